import Foundation
import ListStore

/// `liststore ui`: a full-screen, live view of the store in edit mode — Mail-style checkmarks and one
/// delete for all of them, an add to every section, inserts at the cursor, moves across sections.
enum UICommand {
    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw command.usageError("ui needs a terminal: run it with standard input and output on a terminal, not a pipe or file")
        }
        try context.refuseDirectory()
        let store = try context.openExistingForWriting()
        #if canImport(CNcurses)
            try runScreen(store: store, path: context.databaseFile)
            return .streamed
        #else
            throw CommandFailure("ui is not available on this platform (it needs ncurses)")
        #endif
    }

    #if canImport(CNcurses)
        /// The loop: draw, wait briefly for a key, apply what the observer heard, until `q` or a signal.
        private static func runScreen(store: ListStore, path: String) throws {
            let terminal = try Terminal()
            defer { terminal.restore() }
            let controller = try UIController(store: store, height: ScreenLayout.listHeight(terminalHeight: terminal.size.height))
            var live = LiveUpdates(path: path, list: try store.listName())
            var observedList = try store.listName()
            defer { live.stop() }
            var size = terminal.size
            var dirty = true
            while !controller.wantsToQuit {
                if let signal = terminal.caughtSignal {
                    terminal.restore()
                    live.stop()
                    // End as the signal would have ended us, now that the terminal is back.
                    Foundation.signal(signal, SIG_DFL)
                    raise(signal)
                    return
                }
                if terminal.size != size {
                    size = terminal.size
                    controller.resize(height: ScreenLayout.listHeight(terminalHeight: size.height))
                    dirty = true
                }
                if dirty {
                    terminal.draw(ScreenLayout.frame(controller, width: size.width, height: size.height))
                    dirty = false
                }
                if let key = terminal.readKey() {
                    if key == .resize {
                        size = (0, 0)  // read again at the top of the loop
                    } else {
                        controller.handle(key)
                        if controller.listName != observedList {
                            // Another list shown (`l`/`L`): observe that one.
                            live.stop()
                            observedList = controller.listName
                            live = LiveUpdates(path: path, list: observedList)
                        }
                    }
                    dirty = true
                }
                let events = live.drain()
                if !events.isEmpty {
                    controller.receive(events)
                    dirty = true
                }
            }
        }
    #endif
}
