import ListStore
import StoreShorthands
import Testing

/// Handles lent to a closure — readers, transactions, importers — work only inside it: kept and used
/// afterwards they throw ``ListStoreError/transactionFinished`` and the file stays as it was.
@Suite struct ScopedHandleTests {
    @Test func anImporterKeptAfterItsImportThrowsAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("kept.sqlite")
        let store = try ListStore.open(at: path)
        var kept: ListImporter?
        try store.importStream { importer in
            kept = importer
            try importer.addSection(title: "A")
            try importer.addRow(title: "a")
        }
        let before = try store.snapshot()
        let importer = try #require(kept)
        #expect(throws: ListStoreError.transactionFinished) { try importer.addRow(title: "late row") }
        #expect(throws: ListStoreError.transactionFinished) { try importer.addSection(title: "late section") }
        #expect(try store.snapshot() == before)
        #expect(try ListStore.open(at: path, mode: .readOnly).snapshot() == before)
        #expect(importer.rowsWritten == 1 && importer.sectionsWritten == 1)
    }

    @Test func anImporterKeptAfterAFailedImportThrowsAndWritesNothing() throws {
        let store = try ListStore.inMemory()
        var kept: ListImporter?
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try store.importStream { importer in
                kept = importer
                try importer.addSection(title: "A")
                throw Stop()
            }
        }
        #expect(throws: ListStoreError.transactionFinished) { try kept?.addSection(title: "late") }
        #expect(try store.sectionCount() == 0)
    }

    /// The same import without keeping the importer: everything it is given is written.
    @Test func anImporterUsedInsideItsImportWrites() throws {
        let store = try ListStore.inMemory()
        let changes = try store.importStream { importer in
            try importer.addSection(title: "A")
            try importer.addRow(title: "a")
            try importer.addRow(title: "b")
            try importer.addSection(title: "B")
        }
        #expect(try store.snapshot().sections.map { $0.rows.map(\.title) } == [["a", "b"], []])
        #expect(changes.insertedSections.count == 2)
    }

    @Test func aReaderKeptAfterItsReadThrows() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "A")
        var kept: ListReader?
        #expect(
            try store.read { reader in
                kept = reader
                return try reader.sectionCount()
            } == 1)
        #expect(throws: ListStoreError.transactionFinished) { try kept?.sectionCount() }
    }
}
