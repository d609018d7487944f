import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Opening writes nothing it does not have to: no write lock when the file is current, an older file
/// migrated only together with its first write, and reading modes that leave the main file's bytes alone.
@Suite struct OpeningWithoutWritingTests {
    /// A closed version-1 file, as the previous ListStore wrote it.
    func makeVersion1File(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path("v1.sqlite")
        let db = try Connection(path: path, mode: .readWriteCreate)
        try db.executeScript("PRAGMA journal_mode = WAL")
        try Migrator(migrations: Array(Schema.migrations.prefix(1)), applicationID: Schema.applicationID).migrate(db)
        try db.executeScript("INSERT INTO sections (position, title) VALUES (0, 'Roles'); INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'Barbarian')")
        return path
    }

    @Test func aFailedFirstEditLeavesAVersion1FileAsItWas() throws {
        let directory = try TemporaryDirectory()
        let path = try makeVersion1File(directory)
        let before = try #require(fileBytes(path))
        do {
            let store = try ListStore.open(at: path)
            #expect(throws: ListStoreError.sectionIndexOutOfRange(index: 3, sectionCount: 1)) { try store.insertRow("x", intoSection: 3) }
            #expect(throws: ListStoreError.rowIndexOutOfRange(ListIndexPath(section: 0, row: 5), rowCount: 1)) {
                try store.deleteRows(at: [ListIndexPath(section: 0, row: 5)])
            }
        }
        #expect(fileBytes(path) == before)
        #expect(try Migrator.version(of: Connection(path: path, mode: .readOnly)) == 1)
        // The first edit that succeeds migrates in the same transaction.
        let store = try ListStore.open(at: path)
        let changes = try store.insertRow("Wizard", intoSection: 0).changes
        #expect(changes.insertedRows.map(\.indexPath) == [ListIndexPath(section: 0, row: 1)])
        #expect(try Migrator.version(of: Connection(path: path, mode: .readOnly)) == Schema.migrator.latestVersion)
        #expect(try store.snapshot().titles == [["Barbarian", "Wizard"]])
    }

    @Test func openingACurrentFileTakesNoWriteLock() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("current.sqlite")
        try ListStore.open(at: path).insertSection(title: "A")
        // Another connection holds the write lock for the whole test.
        let writer = try Connection(path: path, mode: .readWrite)
        try writer.run("BEGIN IMMEDIATE")
        defer { try? writer.run("ROLLBACK") }
        let store = try ListStore.open(at: path, busyTimeout: 50)
        #expect(try store.sectionCount() == 1)
        // Refused because the write lock is held (and only for that): the store could open without it.
        #expect { try store.insertSection(title: "B") } throws: { error in
            if case .busy = (error as? ListStoreError)?.reason { return true } else { return false }
        }
    }

    @Test func readingModesNeverCheckpointCommittedFramesIntoTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("frames.sqlite")
        try ListStore.open(at: path).insertSection(title: "A")
        let before: Data
        do {
            let writer = try Connection(path: path, mode: .readWrite)
            try writer.run("PRAGMA wal_autocheckpoint = 0")
            try writer.run("UPDATE sections SET title = 'committed in the WAL'")
            before = try #require(fileBytes(path))
            // The writer closes without checkpointing, as a killed one would leave the file.
            try writer.setCheckpointOnClose(false)
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        for mode in [ListStore.AccessMode.readOnly, .inspect] {
            let store = try ListStore.open(at: path, mode: mode)
            #expect(try store.sections().map(\.title) == ["committed in the WAL"])
            #expect(try store.checkInvariants().isEmpty)
        }
        #expect(fileBytes(path) == before)
        // A read-write store that only reads, or whose edit fails, does not checkpoint either.
        do {
            let store = try ListStore.open(at: path)
            _ = try store.snapshot()
            #expect(throws: ListStoreError.sectionIndexOutOfRange(index: 4, sectionCount: 1)) { try store.renameSection(at: 4, to: "x") }
        }
        #expect(fileBytes(path) == before)
    }

    @Test func pathsThatCannotBeDatabaseFilesAreRefused() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: ListStoreError.unusablePath(path: "/dev/null", reason: "it is a character device")) { try ListStore.open(at: "/dev/null") }
        #expect(throws: ListStoreError.unusablePath(path: directory.url.path, reason: "it is a folder")) { try ListStore.open(at: directory.url.path, mode: .readOnly) }
        #expect(throws: ListStoreError.unusablePath(path: "", reason: "no file name was given")) { try ListStore.open(at: "") }
        // `file:` names a file, not a URI (the CLI tests write and read one); `:memory:` stays the in-memory
        // store the library offers.
        #expect(Connection.fileName(for: "file:named.sqlite") == "./file:named.sqlite")
        #expect(Connection.fileName(for: "/abs/file:x") == "/abs/file:x")
        #expect(try ListStore.inMemory().sectionCount() == 0)
    }
}
