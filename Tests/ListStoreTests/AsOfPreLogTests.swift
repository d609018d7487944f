import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// A file without a change log (schema 2) has no versions: what `.inspect` reads of it is unversioned,
/// and edits as of that are refused; once migrated, versions start at 0.
@Suite struct AsOfPreLogTests {
    @Test func aFileWithoutAChangeLogIsUnversioned() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v2.sqlite")
        do {
            let db = try Connection(path: path, mode: .readWriteCreate)
            try db.executeScript("PRAGMA journal_mode = WAL")
            try Migrator(migrations: Array(Schema.migrations.prefix(2)), applicationID: Schema.applicationID).migrate(db)
            try db.executeScript("INSERT INTO sections (position, row_base, title) VALUES (0, 0, 'A'); INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'a');")
            #expect(try Migrator.version(of: db) == 2)
        }
        let inspected = try ListStore.open(at: path, mode: .inspect)
        let drawn = try inspected.version()
        #expect(drawn == .unversioned)
        // Schema 7 reads count rows in row_blocks and row_pages, which a file inspected at version 2 (not
        // migrated) does not have: such reads are refused as .readOnly refuses the file.
        #expect(throws: ListStoreError.needsMigration(path: path, fileVersion: 2, supportedVersion: ListStore.schemaVersion)) {
            _ = try inspected.snapshot()
        }

        let store = try ListStore.open(at: path)
        let before = fileBytes(path)
        #expect(throws: ListStoreError.self) { try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)], asOf: drawn) }
        #expect(try store.rowCount(inSection: 0) == 1)
        // The refused write did not even migrate the file.
        #expect(fileBytes(path) == before)
        let migrated = try store.snapshot()
        #expect(migrated.version == ListVersion(rawValue: 0))
        try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)], asOf: migrated.version)
        #expect(try store.totalRowCount() == 0)
    }
}
