import Foundation
import ListStore
import StoreShorthands
import Testing

/// Undo and redo never take back another author's edit: each refuses instead, naming what changed.
/// UndoAndRedo.md, "When it refuses": "a row it inserted is
/// deleted only while it has the title and payload it was inserted with" and "Another app's, the CLI's
/// and hand edits are never undone by it, and survive it." A section that came back by an undo or a
/// redo is recorded without its rows' values, so taking it back again deletes rows another author
/// changed since. Found by a new user's trial of the public API; the tests marked "failed before the
/// fix" are its findings, each beside a control that passes on any version.
@Suite struct UndoKeepsOtherAuthorsEditsTests {
    struct Pair {
        let folder: TemporaryDirectory
        let app: ListStore
        let other: ListStore
        init() throws {
            folder = try TemporaryDirectory()
            let path = folder.path("authors.sqlite")
            app = try ListStore.open(at: path, author: "App")
            other = try ListStore.open(at: path, author: "Other")
        }
    }

    static func titles(_ store: ListStore) throws -> [[String]] {
        try store.snapshot().sections.map { [$0.title] + $0.rows.map(\.title) }
    }

    static func addDairy(_ store: ListStore) throws {
        try store.write(actionName: "Add Dairy") { tx in
            try tx.insertRows(["Milk", "Butter"], intoSection: try tx.insertSection(title: "Dairy"))
        }
    }

    /// Without the attack: the same undo, redo, undo round trip with nobody else editing works.
    @Test func undoRedoUndoOfASectionInsertWithoutOtherEdits() throws {
        let pair = try Pair()
        try Self.addDairy(pair.app)
        try pair.app.undo()
        try pair.app.redo()
        try pair.app.undo()
        #expect(try Self.titles(pair.app) == [])
    }

    /// The first undo protects another author's rename (this passes): the control for the next test.
    @Test func undoOfASectionInsertKeepsAnotherAuthorsRowRename() throws {
        let pair = try Pair()
        try Self.addDairy(pair.app)
        try pair.other.updateRow(at: ListIndexPath(section: 0, row: 0), title: "Oat milk")
        #expect(throws: ListStoreError.self) { try pair.app.undo() }
        #expect(try Self.titles(pair.app) == [["Dairy", "Oat milk", "Butter"]])
    }

    /// Failed before the fix: after undo and redo, the app's undo deletes the section with "Oat milk", another
    /// author's edit, instead of refusing.
    @Test func undoOfARedoneSectionInsertKeepsAnotherAuthorsRowRename() throws {
        let pair = try Pair()
        try Self.addDairy(pair.app)
        try pair.app.undo()
        try pair.app.redo()
        try pair.other.updateRow(at: ListIndexPath(section: 0, row: 0), title: "Oat milk")
        #expect(throws: ListStoreError.self) { try pair.app.undo() }
        #expect(try Self.titles(pair.app) == [["Dairy", "Oat milk", "Butter"]])
    }

    /// Failed before the fix: the same with a payload set by another author.
    @Test func undoOfARedoneSectionInsertKeepsAnotherAuthorsPayload() throws {
        let pair = try Pair()
        try Self.addDairy(pair.app)
        try pair.app.undo()
        try pair.app.redo()
        try pair.other.updateRow(at: ListIndexPath(section: 0, row: 1), payload: .set(#"{"n":1}"#))
        #expect(throws: ListStoreError.self) { try pair.app.undo() }
        #expect(try pair.app.snapshot().sections.first?.rows.last?.payload == #"{"n":1}"#)
    }

    /// Failed before the fix: a section the app deleted and then undid comes back; another author renames one of
    /// its rows; the app's redo deletes the section again, rename and all, instead of refusing (a redo
    /// of a row delete refuses in the same situation: see the next test).
    @Test func redoOfASectionDeleteKeepsAnotherAuthorsRowRename() throws {
        let pair = try Pair()
        try pair.other.write { tx in try tx.insertRows(["Milk", "Butter"], intoSection: try tx.insertSection(title: "Dairy")) }
        try pair.app.write(actionName: "Delete Dairy") { tx in try tx.deleteSections(at: [0]) }
        try pair.app.undo()
        try pair.other.updateRow(at: ListIndexPath(section: 0, row: 0), title: "Oat milk")
        #expect(throws: ListStoreError.self) { try pair.app.redo() }
        #expect(try Self.titles(pair.app) == [["Dairy", "Oat milk", "Butter"]])
    }

    /// The row-level counterpart: a redo of a row delete refuses after another author's rename.
    @Test func redoOfARowDeleteKeepsAnotherAuthorsRename() throws {
        let pair = try Pair()
        try pair.other.write { tx in try tx.insertRows(["Milk"], intoSection: try tx.insertSection(title: "Dairy")) }
        try pair.app.write(actionName: "Delete Milk") { tx in try tx.deleteRows(at: [ListIndexPath(section: 0, row: 0)]) }
        try pair.app.undo()
        try pair.other.updateRow(at: ListIndexPath(section: 0, row: 0), title: "Oat milk")
        #expect(throws: ListStoreError.self) { try pair.app.redo() }
        #expect(try Self.titles(pair.app) == [["Dairy", "Oat milk"]])
    }

    /// Failed before the fix: a refusal caused by another author's payload change names the title ("its title is
    /// now \"Milk\"" — the title nobody changed) instead of the payload.
    @Test func undoRefusedForAPayloadChangeSaysPayload() throws {
        let pair = try Pair()
        try pair.app.write(actionName: "Add Milk") { tx in try tx.insertRows(["Milk"], intoSection: try tx.insertSection(title: "Dairy")) }
        try pair.other.updateRow(at: ListIndexPath(section: 0, row: 0), payload: .set(#"{"n":1}"#))
        let error = #expect(throws: ListStoreError.self) { try pair.app.undo() }
        #expect(error?.localizedDescription.contains("payload") == true, "\(error?.localizedDescription ?? "")")
    }
}
