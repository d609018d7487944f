import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Migration 0004 (the file identity): files written by every earlier schema version open, read, and
/// migrate with their first write, keeping every row; a new file gets its identity at creation.
@Suite struct FileIdentityMigrationTests {
    /// A closed file of schema `version`, as that version of ListStore left it: two sections, three rows.
    static func makeFile(version: Int, in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("v\(version).sqlite")
        do {
            let db = try Connection(path: path, mode: .readWriteCreate)
            try db.executeScript("PRAGMA journal_mode = WAL")
            try Migrator(migrations: Array(Schema.migrations.prefix(version)), applicationID: Schema.applicationID).migrate(db)
            try db.executeScript(
                """
                INSERT INTO sections (position, title) VALUES (0, 'Roles'), (1, 'Empty');
                INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'Barbarian'), (1, 1, 'Bard'), (1, 2, 'Cleric');
                """)
        }
        return path
    }

    static func identity(_ path: String) throws -> Int64? {
        try Connection(path: path, mode: .readOnly)
            .scalarInt("SELECT seq FROM sqlite_sequence WHERE name = ?1", [.text(WALOwnership.identityRow)]).map(Int64.init)
    }

    @Test(arguments: [1, 2, 3])
    func aFileOfAnEarlierVersionOpensAndMigratesWithItsFirstWrite(version: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(version: version, in: directory)
        #expect(try Self.identity(path) == nil)
        #expect(try ListStore.open(at: path, mode: .inspect).checkInvariants().isEmpty)
        let store = try ListStore.open(at: path)
        try store.insertRow("Druid", intoSection: 0)
        #expect(try store.snapshot().titles == [["Barbarian", "Bard", "Cleric", "Druid"], []])
        #expect(try Migrator.version(of: Connection(path: path, mode: .readOnly)) == Schema.migrator.latestVersion)
        let identity = try #require(try Self.identity(path))
        #expect(identity > 0)
        try store.insertRow("Fighter", intoSection: 1)
        #expect(try Self.identity(path) == identity)
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aNewFileHasAnIdentityFromTheStart() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite")
        _ = try ListStore.open(at: path)
        #expect(try Self.identity(path).map { $0 > 0 } == true)
        // The migration adds no schema object: version 4's objects are version 3's.
        #expect(try Schema.expectedObjects(version: 4) == Schema.expectedObjects(version: 3))
    }
}
