import Foundation
import ListStore
import StoreShorthands
import Testing

/// The small things every adopter meets first (issue 20, item 6): the new ids from the store's own
/// inserts, an empty array of rows, look-ups by id in a snapshot, `ListSection` as JSON, a cancellable import.
@Suite struct SmallAPITests {
    @Test func theStoresInsertsReturnTheNewIDsWithTheChangeSet() throws {
        let store = try ListStore.inMemory()
        let (section, sectionChanges) = try store.insertSection(title: "Inbox")
        #expect(sectionChanges.insertedSections.map(\.id) == [section])
        let (row, rowChanges) = try store.insertRow("first", intoSection: section)
        #expect(rowChanges.insertedRows.map(\.id) == [row])
        let (rows, rowsChanges) = try store.insertRows(["a", "b", "c"], intoSection: 0, at: 0)
        #expect(rowsChanges.insertedRows.map(\.id) == rows)
        #expect(try store.insertRows(["after"], after: row).ids.count == 1)
        #expect(try store.insertRows(["before"], before: row).ids.count == 1)
        try store.insertSection(title: "Later")  // the result may be ignored
        let appended = try store.appendRowToEverySection("tail")
        #expect(appended.ids == appended.changes.insertedRows.map(\.id))
        #expect(try store.snapshot().sections[0].rows.map(\.id).prefix(3) == rows[...])
        #expect(try store.row(id: row).title == "first")
    }

    @Test func anEmptyArrayOfRowsTypeChecksAndChangesNothing() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        let inserted = try store.insertRows([], intoSection: 0)
        #expect(inserted.ids.isEmpty && inserted.changes.isEmpty)
        let changes = try store.write { tx in
            #expect(try tx.insertRows([], intoSection: 0, at: 0).isEmpty)
            let titles: [String] = []
            try tx.insertRows(titles, intoSection: SectionID(rawValue: 1))
        }.changes
        #expect(changes.isEmpty)
        #expect(try store.totalRowCount() == 0)
    }

    @Test func aSnapshotFindsSectionsAndRowsByID() throws {
        let store = try ListStore.inMemory()
        let (first, _) = try store.insertSection(title: "First")
        let (second, _) = try store.insertSection(title: "Second")
        let (ids, _) = try store.insertRows(["a", NewRow(title: "b", payload: "[1]")], intoSection: second)
        let snapshot = try store.snapshot()
        let index = SnapshotIndex(snapshot)
        #expect(snapshot.index(of: second) == 1 && index.index(of: second) == 1)
        #expect(snapshot.section(id: first)?.title == "First" && index.section(id: first) == snapshot.sections[0])
        #expect(snapshot.indexPath(of: ids[1]) == ListIndexPath(section: 1, row: 1))
        #expect(index.indexPath(of: ids[1]) == ListIndexPath(section: 1, row: 1))
        #expect(snapshot.row(id: ids[1]) == ListRow(id: ids[1], title: "b", payload: "[1]") && index.row(id: ids[1]) == snapshot.row(id: ids[1]))
        let missingRow = RowID(rawValue: 99)
        let missingSection = SectionID(rawValue: 99)
        #expect(snapshot.row(id: missingRow) == nil && snapshot.indexPath(of: missingRow) == nil && index.row(id: missingRow) == nil)
        #expect(snapshot.section(id: missingSection) == nil && snapshot.index(of: missingSection) == nil && index.section(id: missingSection) == nil)
        // Every row of a larger snapshot, both ways.
        try store.insertRows((0..<500).map { "r\($0)" }, intoSection: 0)
        let large = try store.snapshot()
        let largeIndex = SnapshotIndex(large)
        for (s, section) in large.sections.enumerated() {
            for (r, row) in section.rows.enumerated() {
                #expect(largeIndex.indexPath(of: row.id) == ListIndexPath(section: s, row: r))
            }
        }
        #expect(large.indexPath(of: large.sections[0].rows[499].id) == ListIndexPath(section: 0, row: 499))
    }

    @Test func aSectionEncodesWithDeclaredKeysAndDecodesBack() throws {
        let section = ListSection(id: SectionID(rawValue: 2), title: "Countries", rowCount: 8)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(section), as: UTF8.self) == #"{"id":2,"rowCount":8,"title":"Countries"}"#)
        #expect(try JSONDecoder().decode(ListSection.self, from: Data(#"{"title":"Countries","rowCount":8,"id":2}"#.utf8)) == section)
        let row = ListRow(id: RowID(rawValue: 3), title: "Canada", payload: "{}")
        #expect(String(decoding: try encoder.encode(row), as: UTF8.self) == #"{"id":3,"payload":"{}","title":"Canada"}"#)
        let sections = try ListStore.inMemory().sections()
        #expect(try JSONDecoder().decode([ListSection].self, from: try JSONEncoder().encode(sections)) == sections)
    }

    static func document(rows: Int) -> ListDocument {
        ListDocument(sections: [.init(title: "Imported", rows: (0..<rows).map { .init(title: "row \($0)") })])
    }

    @Test func anImportCancelledFromItsProgressRollsBackAndSaysSo() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("import.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "Kept")
        try store.insertRows(["one", "two"], intoSection: 0)
        let before = try store.snapshot()
        let bytes = fileBytes(path)
        var reports: [Int] = []
        #expect(throws: ListStoreError.importCancelled(rowsWritten: 3_000, rowCount: 5_000)) {
            try store.importDocument(Self.document(rows: 5_000), replacing: true) { written, _ in
                reports.append(written)
                if written >= 3_000 { throw CancellationError() }
            }
        }
        #expect(reports == [1_000, 2_000, 3_000])
        #expect(try store.snapshot() == before)
        #expect(fileBytes(path) == bytes, "the file is as it was")
        #expect(try store.checkInvariants().isEmpty)
        // Another error from the closure rolls back too, and is rethrown as it is.
        struct Stop: Error, Equatable {}
        #expect(throws: Stop()) { try store.importDocument(Self.document(rows: 10), replacing: true) { _, _ in throw Stop() } }
        #expect(try store.snapshot() == before)
    }

    @Test func anImportThatIsNotCancelledReportsItsProgressAndLoads() throws {
        let store = try ListStore.inMemory()
        var reports: [Int] = []
        let changes = try store.importDocument(Self.document(rows: 2_500)) { written, total in
            #expect(total == 2_500)
            reports.append(written)
        }
        #expect(reports == [1_000, 2_000, 2_500])
        #expect(changes.insertedSections.map(\.section.rows.count) == [2_500])
        #expect(try store.totalRowCount() == 2_500)
    }
}
