import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// Migration 0008 (several lists): files of earlier schemas migrate into the default list inside their
/// first write, losing no row, block, page or row of another program's table that points at a section.
@Suite struct ListsMigrationTests {
    @Test(arguments: [3, 7])
    func aFileOfAnEarlierSchemaMigratesIntoTheDefaultList(version: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try FileIdentityMigrationTests.makeFile(version: version, in: directory)
        let store = try ListStore.open(at: path)
        try store.insertRow("Druid", intoSection: 0)
        #expect(try store.fileSchemaVersion() == Schema.migrator.latestVersion)
        #expect(try store.snapshot().titles == [["Barbarian", "Bard", "Cleric", "Druid"], []])
        #expect(try store.lists() == [ListSummary(name: ListStore.defaultListName, index: 0, isDefault: true, sectionCount: 2, rowCount: 4)])
        #expect(try store.checkInvariants().isEmpty)
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.scalarInt("SELECT count(*) FROM list_rows WHERE list_name = 'default' AND list_id = 1 AND row_index IS NOT NULL") == 4)
        #expect(try db.scalarInt("SELECT count(*) FROM pragma_foreign_key_check") == 0)
        // Ids go on from where the old table left them (the migrated counter), and new lists work.
        let (section, _) = try store.insertSection(title: "New")
        #expect(section.rawValue == 3)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        try work.insertRow("w", intoSection: 0)
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aFailedFirstWriteLeavesTheOldFileAsItWas() throws {
        let directory = try TemporaryDirectory()
        let path = try FileIdentityMigrationTests.makeFile(version: 7, in: directory)
        let before = try #require(fileBytes(path))
        let store = try ListStore.open(at: path)
        #expect(throws: ListStoreError.sectionIndexOutOfRange(index: 5, sectionCount: 2)) { try store.insertRow("x", intoSection: 5) }
        #expect(try Migrator.version(of: Connection(path: path, mode: .readOnly)) == 7)
        _ = before  // the -wal may hold the rolled-back pages' absence only: the version and rows say it all
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM rows") == 3)
    }

    /// Another program's table pointing at sections (TheFile.md allows `ON DELETE CASCADE`) keeps its rows:
    /// the rebuild of `sections` runs with foreign keys on, where DROP TABLE would cascade to them.
    @Test func anotherProgramsRowsThatPointAtSectionsSurviveTheRebuild() throws {
        let directory = try TemporaryDirectory()
        let path = try FileIdentityMigrationTests.makeFile(version: 7, in: directory)
        try Connection(path: path, mode: .readWrite).executeScript(
            """
            CREATE TABLE notes (id INTEGER PRIMARY KEY, section_id INTEGER REFERENCES sections (id) ON DELETE CASCADE, text TEXT);
            CREATE TABLE tags (id INTEGER PRIMARY KEY, section_id INTEGER REFERENCES sections (id) ON DELETE SET NULL);
            INSERT INTO notes (section_id, text) VALUES (1, 'first'), (2, 'second'), (NULL, 'none');
            INSERT INTO tags (section_id) VALUES (2);
            """)
        let store = try ListStore.open(at: path)
        try store.insertRow("Druid", intoSection: 0)
        #expect(try store.fileSchemaVersion() == Schema.migrator.latestVersion)
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.cached("SELECT section_id FROM notes ORDER BY id").bind([]).map { $0.isNull(0) ? -1 : $0.int(0) } == [1, 2, -1])
        #expect(try db.scalarInt("SELECT section_id FROM tags") == 2)
        #expect(try db.scalarInt("SELECT count(*) FROM pragma_foreign_key_check") == 0)
        #expect(try store.checkInvariants().isEmpty)
        // The foreign keys still work on the rebuilt table: deleting a section deletes its notes.
        try store.deleteSections(at: [0])
        #expect(try db.scalarInt("SELECT count(*) FROM notes") == 2)
    }

    @Test func recordsOfEarlierFormatsAreReadAsTheDefaultListsEvents() throws {
        let v2 = try LogRecord.encodeVersion2([.sectionInserted(id: 3, index: 0)])
        #expect(LogRecord.decode(v2) == ListedEvents([.sectionInserted(id: 3, index: 0)], list: 1))
        let listed = ListedEvents(lists: [1: [.sectionInserted(id: 3, index: 0)], 2: [.sectionMoved(id: 4, from: 0, to: 1)]], arrivedRows: [9], arrivedSections: [3])
        let v3 = try LogRecord.encode(listed)
        #expect(
            v3
                == #"{"arrivedRows":[9],"arrivedSections":[3],"lists":[{"events":[{"index":0,"kind":"section-inserted","section":3}],"list":1},{"events":[{"from":0,"kind":"section-moved","section":4,"to":1}],"list":2}],"v":3}"#
        )
        #expect(LogRecord.decode(v3) == listed)
        #expect(LogRecord.decode(#"{"lists":[{"events":[],"list":1},{"events":[],"list":1}],"v":3}"#) == nil)  // a list twice
        #expect(LogRecord.decodeStructure(LogRecord.encodeStructure(lists: [2, 5])) == [2, 5])
        #expect(LogRecord.decodeStructure(nil) == nil)
    }
}
