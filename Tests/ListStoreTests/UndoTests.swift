import Foundation
import Testing

@testable import ListStore

/// Undo and redo (UndoAndRedo.md): round trips of every kind of edit with ids, places and
/// values restored, the per-author rule, refusals that change nothing, the bound, relaunch.
@Suite struct UndoTests {
    /// A store on a fresh file, opened as `author`, with a folder that lives as long as the test.
    struct Fixture {
        let folder: TemporaryDirectory
        let path: String
        init() throws {
            folder = try TemporaryDirectory()
            path = folder.path("undo.sqlite")
        }
        func open(_ author: String, limit: Int = ListStore.defaultHistoryLimit) throws -> ListStore {
            try ListStore.open(at: path, author: author, historyLimit: limit)
        }
    }

    /// The store's sections and rows with their ids, to compare states exactly.
    static func state(_ store: ListStore) throws -> [[String]] {
        try store.snapshot().sections.map { section in ["#\(section.id.rawValue) \(section.title)"] + section.rows.map { "#\($0.id.rawValue) \($0.title) \($0.payload ?? "-")" } }
    }

    static func expectSound(_ store: ListStore) throws {
        let problems = try store.checkInvariants()
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Undoes and redoes `edit` (run by `store`), expecting the state before it after the undo and the
    /// state after it after the redo, sound after each.
    static func roundTrip(_ store: ListStore, _ edit: (ListTransaction) throws -> Void) throws {
        let before = try state(store)
        try store.write(edit)
        let after = try state(store)
        #expect(after != before)
        let undone = try store.undo()
        #expect(!undone.isEmpty)
        #expect(try state(store) == before)
        try expectSound(store)
        try store.redo()
        #expect(try state(store) == after)
        try expectSound(store)
        try store.undo()
        #expect(try state(store) == before)
    }

    static func seeded(_ store: ListStore) throws {
        try store.write { tx in
            let a = try tx.insertSection(title: "A")
            try tx.insertRows(["a0", NewRow(title: "a1", payload: #"{"n":1}"#), "a2", "a3"], intoSection: a)
            let b = try tx.insertSection(title: "B")
            try tx.insertRows(["b0", "b1"], intoSection: b)
            try tx.insertSection(title: "C")
        }
    }

    @Test func everyKindOfEditRoundTrips() throws {
        let fixture = try Fixture()
        let store = try fixture.open("app")
        try Self.seeded(store)
        try Self.roundTrip(store) { try $0.deleteRows(at: [ListIndexPath(section: 0, row: 1), ListIndexPath(section: 0, row: 2), ListIndexPath(section: 1, row: 0)]) }
        try Self.roundTrip(store) { try $0.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 1, row: 1)) }
        try Self.roundTrip(store) { try $0.moveRow(from: ListIndexPath(section: 0, row: 3), to: ListIndexPath(section: 0, row: 0)) }
        try Self.roundTrip(store) { try $0.updateRow(at: ListIndexPath(section: 0, row: 1), title: "changed", payload: .remove) }
        try Self.roundTrip(store) { try $0.updateRow(at: ListIndexPath(section: 0, row: 0), payload: .set(#"{"x":[1,2]}"#)) }
        try Self.roundTrip(store) { try $0.renameSection(at: 1, to: "Bee") }
        try Self.roundTrip(store) { try $0.moveSection(from: 0, to: 2) }
        try Self.roundTrip(store) { try $0.deleteSections(at: [0, 2]) }
        try Self.roundTrip(store) { try $0.insertRows(["n1", "n2"], intoSection: 1, at: 1) }
        try Self.roundTrip(store) { try $0.appendRowToEverySection("end") }
        try Self.roundTrip(store) { tx in
            let s = try tx.insertSection(title: "New", at: 1)
            try tx.insertRows(["x", "y"], intoSection: s)
        }
        // Several edits of one transaction, each on what the one before left.
        try Self.roundTrip(store) { tx in
            let first = try tx.row(at: ListIndexPath(section: 0, row: 0)).id
            try tx.updateRow(id: first, title: "renamed first")
            try tx.moveRow(id: first, toSection: try tx.section(at: 1).id, at: 0)
            try tx.deleteRows(at: [ListIndexPath(section: 0, row: 0)])
            try tx.deleteSections(at: [2])
            try tx.insertSection(title: "Z", at: 0)
            try tx.moveSection(from: 0, to: 2)
        }
    }

    @Test func restoredRowsKeepTheirIdsAndGoBackBetweenTheirNeighbours() throws {
        let fixture = try Fixture()
        let store = try fixture.open("app")
        try Self.seeded(store)
        let a2 = try store.row(at: ListIndexPath(section: 0, row: 2)).id
        try store.deleteRows(ids: [a2])
        // Another author inserts at the top and moves a row meanwhile: a2 goes back after a1, whose index changed.
        let other = try fixture.open("other")
        try other.insertRows(["top1", "top2"], intoSection: 0, at: 0)
        try other.moveRow(from: ListIndexPath(section: 0, row: 4), to: ListIndexPath(section: 0, row: 0))  // a3 to the top
        let changes = try store.undo()
        #expect(changes.insertedRows.map(\.row.id) == [a2])
        #expect(try store.snapshot().titles[0] == ["a3", "top1", "top2", "a0", "a1", "a2"])
        #expect(try store.row(id: a2).title == "a2")
        try Self.expectSound(store)
        // The other author's edits stay; their own undo takes back their move, then their insert.
        try other.undo()
        // a3 goes back right after a1, the row that was before it when it moved.
        #expect(try store.snapshot().titles[0] == ["top1", "top2", "a0", "a1", "a3", "a2"])
        try other.undo()
        #expect(try store.snapshot().titles[0] == ["a0", "a1", "a3", "a2"])
    }

    @Test func undoIsPerAuthorAndRedoIsClearedByTheirNextEdit() throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let cli = try fixture.open("cli")
        try Self.seeded(app)
        try app.write(actionName: "Rename") { try $0.updateRow(at: ListIndexPath(section: 0, row: 0), title: "by app") }
        try cli.updateRow(at: ListIndexPath(section: 1, row: 0), title: "by cli")
        #expect(try app.nextUndo()?.actionName == "Rename")
        try app.undo()
        #expect(try app.snapshot().titles[0][0] == "a0")
        #expect(try app.snapshot().titles[1][0] == "by cli")
        #expect(try app.nextUndo(redo: true)?.actionName == "Rename")
        try app.insertSection(title: "D")  // the app's next ordinary edit clears its redo
        #expect(throws: ListStoreError.nothingToRedo(author: "app")) { try app.redo() }
        // The CLI's redo stack is its own.
        try cli.undo()
        try app.insertSection(title: "E")
        try cli.redo()
        #expect(try app.snapshot().titles[1][0] == "by cli")
        // Another author's last edit, by name.
        try app.undo(by: "cli")
        #expect(try app.snapshot().titles[1][0] == "b0")
    }

    @Test func conflictsRefuseAndChangeNothing() throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let other = try fixture.open("other")
        try Self.seeded(app)
        try app.updateRow(at: ListIndexPath(section: 0, row: 0), title: "mine")
        try other.updateRow(at: ListIndexPath(section: 0, row: 0), title: "theirs")
        let bytes = try Self.state(app)
        #expect {
            try app.undo()
        } throws: { error in
            guard case .undoRefused(_, _, false, let reason)? = (error as? ListStoreError)?.reason else { return false }
            return reason.contains("was changed since")
        }
        #expect(try Self.state(app) == bytes)
        // A row deleted into a section another process deleted since cannot come back.
        try other.undo()
        try app.undo()  // now it can: the title is "mine" again
        let b0 = try app.row(at: ListIndexPath(section: 1, row: 0)).id
        try app.deleteRows(ids: [b0])
        try other.deleteSections(at: [1])
        let state = try Self.state(app)
        #expect {
            try app.undo()
        } throws: { error in
            guard case .undoRefused(nil, _, false, let reason)? = (error as? ListStoreError)?.reason else { return false }
            return reason == "section #2, which row #5 was in, was deleted or moved to another list since"
        }
        #expect(try Self.state(app) == state)
        try Self.expectSound(app)
    }

    @Test func aTransactionOthersAlreadyTookBackIsPassedOver() throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let other = try fixture.open("other")
        try Self.seeded(app)
        try app.renameSection(at: 2, to: "C2")
        let (id, _) = try app.insertRow("temp", intoSection: 0)
        try other.deleteRows(ids: [id])
        try app.undo()  // the insert has nothing left: the rename before it is undone
        #expect(try app.snapshot().sections[2].title == "C")
    }

    @Test func untrackedWritesAndImportsBlockOlderUndo() throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        try Self.seeded(app)
        try app.renameSection(at: 0, to: "A2")
        let other = try fixture.open("other")
        try other.write(tracksChanges: false) { try $0.insertRow("bulk", intoSection: 1) }
        #expect {
            try app.undo()
        } throws: { error in
            guard case .undoRefused(_, _, _, let reason)? = (error as? ListStoreError)?.reason else { return false }
            return reason.contains("untracked write")
        }
        try app.renameSection(at: 0, to: "A3")
        try app.undo()  // a newer edit is undoable
        #expect(try app.snapshot().sections[0].title == "A2")
        let document = ListDocument(sections: [.init(title: "Imported", rows: [.init(title: "r")])])
        try app.importDocument(document, replacing: true)
        #expect(throws: ListStoreError.self) { try app.redo() }
    }

    @Test func historyIsBoundedPerAuthorAndSurvivesRelaunch() throws {
        let fixture = try Fixture()
        do {
            let app = try fixture.open("app", limit: 3)
            let section = try app.insertSection(title: "S").id
            for n in 0..<5 { try app.insertRow("r\(n)", intoSection: section) }
        }
        let app = try fixture.open("app", limit: 3)
        for _ in 0..<3 { try app.undo() }
        #expect(try app.snapshot().titles == [["r0", "r1"]])
        #expect(throws: ListStoreError.nothingToUndo(author: "app")) { try app.undo() }
        let rows = try app.read { _ in 0 }
        #expect(rows == 0)
    }

    @Test func deletedSectionComesBackWithAllItsRowsAndIds() throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let section = try app.insertSection(title: "Big").id
        let (ids, _) = try app.insertRows((0..<2_500).map { NewRow(title: "row \($0)", payload: $0 % 7 == 0 ? #"{"k":\#($0)}"# : nil) }, intoSection: section)
        try app.insertSection(title: "After")
        let before = try Self.state(app)
        try app.deleteSections(ids: [section])
        let changes = try app.undo()
        #expect(changes.insertedSections.map(\.section.id) == [section])
        #expect(try Self.state(app) == before)
        #expect(try app.snapshot().sections[0].rows.map(\.id) == ids)
        try Self.expectSound(app)
        try app.redo()
        #expect(try app.snapshot().sections.map(\.title) == ["After"])
        try app.undo()
        #expect(try Self.state(app) == before)
    }

    @Test func badNamesAreRefused() throws {
        let fixture = try Fixture()
        #expect(throws: ListStoreError.self) { try fixture.open("") }
        #expect(throws: ListStoreError.self) { try fixture.open("a\nb") }
        #expect(throws: ListStoreError.self) { try fixture.open("app", limit: -1) }
        let app = try fixture.open("app")
        #expect(throws: ListStoreError.self) { try app.write(actionName: "") { try $0.insertSection(title: "x") } }
        #expect(try app.sectionCount() == 0)
    }
}
