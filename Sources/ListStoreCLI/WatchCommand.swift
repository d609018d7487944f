import Foundation
import ListStore

/// `watch`: one line per committed change, from any process or the `sqlite3` shell, until interrupted.
enum WatchCommand {
    /// How often the database is checked for commits by other connections.
    static let pollInterval: Duration = .milliseconds(100)

    static let count = Option.index("--count", value: "N", help: "stop after N changes")

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let limit = try command[count]
        if limit == 0 { return .streamed }
        let store = try context.openForReading(recognisingInFirstRead: false)
        guard !store.isImmutableSnapshot else {
            // Without locks and a -shm file SQLite never sees other connections' commits: waiting would
            // print nothing forever.
            throw CommandFailure(
                "cannot watch \(context.databasePath): it can only be read as a fixed snapshot (SQLite cannot create its -shm file in that folder and no -wal file exists), so changes would never be seen; watch it as a user who can write the folder"
            )
        }
        let json = context.json
        // Without --json nothing of the state is printed, so nothing of it is read: a marker, and resets
        // that carry no state (the line's counts come from two counts).
        let stream = store.observe(includingOtherConnections: true, pollInterval: pollInterval, startingWith: json ? .state : .marker)
        let write = context.write
        context.environment.writeProgress("watching \(context.databasePath) for changes (Ctrl-C to stop)\n")
        let finished = DispatchSemaphore(value: 0)
        let delivered = Locked(0)
        let failure = Locked<(any Error)?>(nil)
        let reader = Task {
            do {
                for try await update in stream {
                    switch update {
                    case .started:
                        continue  // without --json: watching starts here, nothing read
                    case .initial(let snapshot):
                        // --json: first the state watching starts from, exactly as `show --json` prints it.
                        if json { try write(JSONShapes.list(snapshot.sections).serialized() + "\n") }
                        continue
                    case .changes(let changes):
                        try write(
                            (json
                                ? JSONValue.object([("changes", JSONShapes.changes(changes))]).serialized()
                                : "\(timestamp()) " + HumanText.changes(changes).split(separator: "\n").joined(separator: "; ")) + "\n")
                    case .reset(let snapshot):
                        try write(
                            (json
                                ? JSONValue.object([("reset", JSONShapes.list(snapshot.sections))]).serialized()
                                : "\(timestamp()) reloaded: changed outside ListStore; now \(StoreCounts(sections: snapshot.sections.count, rows: snapshot.rowCount).text)") + "\n")
                    case .invalidated:
                        let counts = try await store.read { StoreCounts(sections: try $0.sectionCount(), rows: try $0.totalRowCount()) }
                        try write("\(timestamp()) reloaded: changed outside ListStore; now \(counts.text)\n")
                    }
                    let count = delivered.withLock {
                        $0 += 1
                        return $0
                    }
                    if let limit, count >= limit { break }
                }
            } catch {
                failure.withLock { $0 = error }
            }
            finished.signal()
        }
        finished.wait()
        reader.cancel()
        let count = delivered.withLock { $0 }
        if let error = failure.withLock({ $0 }) {
            if error is StandardOutputClosed { throw error }  // the reader went away: stop quietly
            throw CommandFailure("stopped watching \(context.databasePath) after \(count) change\(count == 1 ? "" : "s"): \(CLIAdvice.message(for: error))")
        }
        guard let limit, count >= limit else {
            // The stream ends by itself only when the store can no longer be read.
            throw CommandFailure(
                "stopped watching \(context.databasePath) after \(count) change\(count == 1 ? "" : "s"): the database can no longer be read; check it with `liststore check`")
        }
        return .streamed
    }

    private static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter.string(from: Date())
    }
}
