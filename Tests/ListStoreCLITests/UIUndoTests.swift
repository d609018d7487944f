import Foundation
import Testing

@testable import ListStore
@testable import ListStoreCLI

/// `liststore ui`'s `u` (undo) and `U` or Ctrl-R (redo), through the controller as the terminal drives it.
@Suite struct UIUndoTests {
    @Test func uUndoesAndCapitalUOrControlRRedoesWithAStatusLine() throws {
        let directory = try TemporaryDirectory(prefix: "ui-undo")
        let path = directory.path("ui.sqlite")
        let store = try ListStore.open(at: path, author: HistoryCommands.author)
        try store.write { tx in try tx.insertRows(["a", "b", "c"], intoSection: try tx.insertSection(title: "S")) }
        let b = try store.row(at: ListIndexPath(section: 0, row: 1)).id
        let controller = try UIController(store: store, height: 10)
        controller.handle(.character("j"))
        controller.handle(.character("d"))
        controller.handle(.character("y"))
        #expect(try store.snapshot().sections[0].rows.map(\.title) == ["a", "c"])
        controller.handle(.character("u"))
        #expect(controller.message == .info("undid the last edit; inserted 1 row: 0:1"))
        #expect(try store.snapshot().sections[0].rows.map(\.id)[1] == b)
        #expect(controller.model.sections[0].rowCount == 3)
        controller.handle(.character("U"))
        #expect(controller.message == .info("redid the last edit; deleted 1 row: 0:1"))
        controller.handle(.character("u"))
        controller.handle(.character("\u{12}"))  // Ctrl-R
        #expect(try store.snapshot().sections[0].rows.map(\.title) == ["a", "c"])
        controller.handle(.character("U"))
        #expect(controller.message == .error("nothing to redo by \"cli\": they have undone nothing since their last edit"))
        // Another author's edit in between: refused with the reason, nothing changed.
        try store.undo()
        try ListStore.open(at: path, author: "other").updateRow(id: b, title: "B")
        controller.handle(.character("U"))
        guard case .error(let text) = controller.message else {
            Issue.record("no error on the status line")
            return
        }
        #expect(text.hasPrefix("cannot redo (history entry #") && text.contains("row #\(b.rawValue) was changed since"), "\(text)")
        #expect(controller.keyHelp.contains("u/U undo/redo"))
    }
}
