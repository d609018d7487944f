import ListStore
import StoreShorthands
import Testing

/// An import's change set leads to the state the import committed, as an edit's does: a mirror that
/// applies it is of that version, so edits drawn on it are translated (`asOf`) at once.
@Suite struct ImportChangeSetTests {
    @Test func anImportsChangeSetCarriesTheVersionItCommitted() throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("import.sqlite"))
        var mirror = try store.snapshot()
        let changes = try store.importStream { importer in
            try importer.addSection(title: "Inbox")
            for title in ["Invoice", "Receipt", "Invoice"] { try importer.addRow(title: title) }
        }
        #expect(changes.version.isVersioned)
        #expect(changes.version == (try store.read { try $0.version() }))
        try mirror.apply(changes)
        #expect(mirror == (try store.snapshot()))

        // Another connection inserts above the drawn rows; the second "Invoice" as drawn is deleted.
        let other = try ListStore.open(at: directory.path("import.sqlite"))
        try other.insertRow("New", intoSection: 0, at: 0)
        let drawnSecondInvoice = try #require(mirror[ListIndexPath(section: 0, row: 2)]).id
        try store.write { try $0.asOf(mirror.version).deleteRows(at: [ListIndexPath(section: 0, row: 2)]) }
        #expect(try store.snapshot().sections[0].rows.map(\.title) == ["New", "Invoice", "Receipt"])
        #expect(try store.read { try $0.indexPath(of: drawnSecondInvoice) } == nil)
    }
}
