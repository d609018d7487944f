import Foundation
import Testing

@testable import ListStore

/// Undo with several lists in a file (UndoAndRedo.md, "Several lists"): undo is per author and list, a
/// section comes back into its own list, and a row or section moved to another list since refuses.
@Suite struct UndoListsTests {
    typealias Fixture = UndoTests.Fixture

    /// The default list and "Errands", both seeded by another author; the store and a handle, as "app".
    static func seededLists(_ fixture: Fixture) throws -> (ListStore, ListStore) {
        let seeder = try fixture.open("seed")
        try UndoTests.seeded(seeder)
        try UndoTests.seeded(try seeder.addList(named: "Errands"))
        let store = try fixture.open("app")
        return (store, try store.list(named: "Errands"))
    }

    @Test func undoIsPerAuthorAndList() throws {
        let fixture = try Fixture()
        let (store, errands) = try Self.seededLists(fixture)
        let defaultBefore = try UndoTests.state(store)
        let errandsBefore = try UndoTests.state(errands)
        try store.write(actionName: "Delete a0") { try $0.deleteRows(at: [ListIndexPath(section: 0, row: 0)]) }
        try errands.write(actionName: "Delete b1") { try $0.deleteRows(at: [ListIndexPath(section: 1, row: 1)]) }
        let defaultAfter = try UndoTests.state(store)

        // The default list's undo takes back its own delete, though the errands' came later.
        #expect(try store.nextUndo()?.actionName == "Delete a0")
        #expect(try errands.nextUndo()?.actionName == "Delete b1")
        let undone = try store.undo()
        #expect(undone.insertedRows.map(\.indexPath) == [ListIndexPath(section: 0, row: 0)])
        #expect(try UndoTests.state(store) == defaultBefore)
        #expect(try UndoTests.state(errands) != errandsBefore)
        try errands.undo()
        #expect(try UndoTests.state(errands) == errandsBefore)
        #expect(throws: ListStoreError.nothingToUndo(author: "app")) { try errands.undo() }

        // Redo, too, is per list; the history names each entry's list.
        try store.redo()
        #expect(try UndoTests.state(store) == defaultAfter)
        #expect(throws: ListStoreError.nothingToRedo(author: "app")) { try store.redo() }
        let lists = try store.history(limit: 5).compactMap(\.list)
        #expect(lists == ["default", "Errands", "default", "Errands", "default"])
        try UndoTests.expectSound(store)
    }

    @Test func aDeletedSectionComesBackIntoItsOwnList() throws {
        let fixture = try Fixture()
        let (store, errands) = try Self.seededLists(fixture)
        let defaultBefore = try UndoTests.state(store)
        let errandsBefore = try UndoTests.state(errands)
        try errands.write { try $0.deleteSections(at: [0]) }
        try errands.undo()
        #expect(try UndoTests.state(errands) == errandsBefore)
        #expect(try UndoTests.state(store) == defaultBefore)
        try UndoTests.expectSound(store)
    }

    @Test func aRowOrSectionMovedToAnotherListSinceRefusesAndChangesNothing() throws {
        let fixture = try Fixture()
        let store = try fixture.open("app")
        let errands = try store.addList(named: "Errands")
        try UndoTests.seeded(store)
        try errands.write { tx in try tx.insertSection(title: "Inbox") }
        let row = try store.write { tx in try tx.insertRow("moved", intoSection: 0, at: 0) }.value
        let section = try store.write { tx in try tx.insertSection(title: "Leaves") }.value
        _ = try store.transferRow(id: row, toList: "Errands", section: 0)
        _ = try store.transferSection(id: section, toList: "Errands")
        let defaultBefore = try UndoTests.state(store)
        let errandsBefore = try UndoTests.state(errands)
        for _ in 0..<2 {
            do {
                try store.undo()
                Issue.record("the undo of an insert whose row or section is in another list now went through")
            } catch let error as ListStoreError {
                guard case .undoRefused(_, _, _, let reason) = error.reason else { throw error }
                #expect(reason.contains(#"was moved to list "Errands" since"#), "\(reason)")
            }
        }
        #expect(try UndoTests.state(store) == defaultBefore)
        #expect(try UndoTests.state(errands) == errandsBefore)
        try UndoTests.expectSound(store)
    }

    @Test func importingListsBlocksOlderUndo() throws {
        let fixture = try Fixture()
        let store = try fixture.open("app")
        try UndoTests.seeded(store)
        try store.importLists(named: ["Imported"]) { _, importer in
            try importer.addSection(title: "S")
            try importer.addRow(title: "r")
        }
        let before = try UndoTests.state(store)
        #expect(throws: ListStoreError.self) { try store.undo() }
        #expect(try UndoTests.state(store) == before)
    }

    @Test func theBoundIsPerListSoABusyListKeepsAnotherListsUndo() throws {
        let fixture = try Fixture()
        let store = try fixture.open("app", limit: 8)
        let errands = try store.addList(named: "Errands")
        try errands.write(actionName: "Add Post") { tx in try tx.insertRows(["post"], intoSection: try tx.insertSection(title: "Town")) }
        _ = try store.insertSection(title: "Groceries")
        for index in 0..<40 { try store.insertRows(["g\(index)"], intoSection: 0) }
        #expect(try errands.nextUndo()?.actionName == "Add Post")
        // The busy list keeps its own last 8 (and up to an eighth more until the next pruning).
        let kept = try store.history(limit: 100).filter { $0.kind == .edit && $0.list == "default" }.count
        #expect((8...9).contains(kept), "\(kept)")
        // A deleted list's entries go with it.
        try store.deleteList(named: "Errands")
        #expect(try store.history(limit: 100).allSatisfy { $0.list != nil || $0.entry == nil })
        try UndoTests.expectSound(store)
    }
}
