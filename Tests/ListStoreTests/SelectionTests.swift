import Testing

@testable import ListStore

/// The Mail-style selection holds ids, so it survives moves, inserts and deletes made after toggling.
@Suite struct SelectionTests {
    func path(_ section: Int, _ row: Int) -> ListIndexPath { ListIndexPath(section: section, row: row) }

    @Test func selectionFollowsRowsThatMoveAndDropsRowsDeletedElsewhere() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "Countries")
        try store.insertSection(title: "Other")
        try store.insertRows(["Austria", "Belgium", "Canada", "Belgium", "Denmark"], intoSection: 0)
        var selection = ListSelection()
        selection.toggle(try store.row(at: path(0, 1)).id)  // the first Belgium
        selection.toggle(try store.row(at: path(0, 4)).id)  // Denmark
        selection.toggle(try store.row(at: path(0, 2)).id)  // Canada…
        selection.toggle(try store.row(at: path(0, 2)).id)  // …and not Canada after all
        #expect(selection.count == 2)

        // Meanwhile: rows are inserted above, Denmark moves to the other section, Austria is deleted.
        try store.insertRows(["Zambia", "Yemen"], intoSection: 0, at: 0)
        try store.moveRow(from: path(0, 6), to: path(1, 0))
        try store.deleteRows(at: [path(0, 2)])
        #expect(try selection.indexPaths(in: store) == [path(0, 2), path(1, 0)])

        // Belgium (the first one) is deleted by someone else; it just drops out.
        let belgium = try store.row(at: path(0, 2))
        #expect(belgium.title == "Belgium")
        try store.deleteRows(ids: [belgium.id])
        #expect(try selection.indexPaths(in: store) == [path(1, 0)])
        #expect(selection.count == 2, "reading the paths does not change the selection")
        try selection.removeDeleted(in: store)
        #expect(selection.count == 1)

        selection.toggle(try store.row(at: path(0, 3)).id)  // the second Belgium
        let changes = try selection.deleteSelected(in: store)
        #expect(changes.deletedRows.map(\.indexPath) == [path(0, 3), path(1, 0)])
        #expect(selection.isEmpty)
        #expect(try store.snapshot().titles == [["Zambia", "Yemen", "Canada"], []])
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Checkmarks go where the table view drew the rows: the mirror's index paths, not the store's,
    /// which another connection's commits may have moved on before the mirror catches up.
    @Test func checkmarksAreAtTheMirrorsIndexPathsWhileTheStoreIsAhead() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "Inbox")
        try store.insertRows(["Invoice", "Receipt", "Invoice", "Note"], intoSection: 0)
        let mirror = try store.snapshot()
        var selection = ListSelection()
        try selection.toggle(drawnAt: path(0, 2), in: mirror)  // the second Invoice
        try selection.toggle(drawnAt: path(0, 3), in: mirror)
        try store.insertRows(["New", "Newer"], intoSection: 0, at: 0)  // the mirror has not caught up
        #expect(selection.indexPaths(in: mirror) == [path(0, 2), path(0, 3)])
        #expect(try selection.indexPaths(in: store) == [path(0, 4), path(0, 5)])

        try store.deleteRows(at: [path(0, 5)])
        let later = try store.snapshot()
        selection.removeDeleted(in: later)
        #expect(selection.count == 1)
        #expect(selection.indexPaths(in: later) == [path(0, 4)])

        try selection.deleteSelected(in: store, actionName: "Delete 1 Message")
        #expect(try store.nextUndo()?.actionName == "Delete 1 Message")
        #expect(try store.snapshot().titles == [["New", "Newer", "Invoice", "Receipt"]])
    }

    @Test func deletingASelectionWhoseRowsAreAllGoneChangesNothing() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        let id = try store.insertRow("x", intoSection: 0).id
        var selection = ListSelection([id])
        try store.deleteRows(ids: [id])
        #expect(try selection.deleteSelected(in: store).isEmpty)
    }
}
