import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Positions relative to a per-section base (migration 0002): O(1) head and tail edits, true
/// zero-based indexes in the `list_rows` view, damage from hand edits detected before an edit.
@Suite struct PositionSchemeTests {
    func viewIndexes(_ path: String) throws -> [[Int]] {
        let db = try Connection(path: path, mode: .readOnly)
        return try db.cached("SELECT section_index, row_index FROM list_rows").bind([]).map { [$0.int(0), $0.int(1)] }
    }

    @Test func headInsertsMoveTheBaseAndTheViewStillShowsZeroBasedIndexes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("base.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "Feed")
        try store.insertRows(["c", "d"], intoSection: 0)
        try store.insertRow("b", intoSection: 0, at: 0)
        try store.insertRows(["z", "a"], intoSection: 0, at: 0)
        try store.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: 4))
        #expect(try store.snapshot().titles == [["a", "b", "c", "d", "z"]])
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.scalarInt("SELECT row_base FROM sections") == -2)
        #expect(try viewIndexes(path) == (0..<5).map { [0, $0] })
        #expect(try store.rows(inSection: 0, range: 3..<10).map(\.title) == ["d", "z"])
        #expect(try store.row(at: ListIndexPath(section: 0, row: 0)).title == "a")
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aVersion1FileIsMigratedKeepingEveryRow() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.sqlite")
        do {
            // A file exactly as the previous version wrote it: schema 1, dense positions from 0.
            let db = try Connection(path: path, mode: .readWriteCreate)
            try db.executeScript("PRAGMA journal_mode = WAL")
            try Migrator(migrations: Array(Schema.migrations.prefix(1)), applicationID: Schema.applicationID).migrate(db)
            try db.executeScript(
                """
                INSERT INTO sections (position, title) VALUES (0, 'Roles'), (1, 'Monsters');
                INSERT INTO rows (section_id, position, title, payload) VALUES
                    (1, 0, 'Barbarian', NULL), (1, 1, 'Wizard', '{"level":2}'), (2, 0, 'Goblin', NULL);
                """)
            #expect(try Migrator.version(of: db) == 1)
        }
        let store = try ListStore.open(at: path)
        #expect(try store.snapshot().titles == [["Barbarian", "Wizard"], ["Goblin"]])
        #expect(try store.sections().map(\.rowCount) == [2, 1])
        #expect(try store.row(at: ListIndexPath(section: 0, row: 1)).payload == "{\"level\":2}")
        #expect(try store.checkInvariants().isEmpty)
        try store.insertRow("Paladin", intoSection: 0, at: 0)
        #expect(try viewIndexes(path) == [[0, 0], [0, 1], [0, 2], [1, 0]])
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try Migrator.version(of: db) == Schema.migrator.latestVersion)
    }

    @Test func handEditedGapsAreRefusedBeforeAnyEditActsOnThem() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        try store.insertSection(title: "B")
        try store.insertRows(["a0", "a1", "a2", "a3"], intoSection: 0)
        try store.insertRows(["b0"], intoSection: 1)
        do {
            // What someone might do in the sqlite3 shell: delete a row in the middle, without renumbering.
            let shell = try Connection(path: path, mode: .readWrite)
            try shell.executeScript("DELETE FROM rows WHERE title = 'a1'")
        }
        let before = try store.scannedTitles()
        #expect(throws: ListStoreError.positionsDamaged(section: 0)) { try store.snapshot() }
        for edit in [
            { try store.insertRow("x", intoSection: 0, at: 0).changes }, { try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)]) },
            { try store.moveRow(from: ListIndexPath(section: 1, row: 0), to: ListIndexPath(section: 0, row: 0)) },
            { try store.appendRowToEverySection("x").changes },
        ] as [() throws -> ChangeSet] {
            #expect(throws: ListStoreError.positionsDamaged(section: 0)) { try edit() }
        }
        #expect(try store.scannedTitles() == before)
        #expect(ListStoreError.positionsDamaged(section: 0).description.contains("repair the store"))
        #expect((ListStoreError.positionsDamaged(section: 0) as any Error).localizedDescription == ListStoreError.positionsDamaged(section: 0).description)
        // The undamaged section can still be edited.
        try store.insertRow("b1", intoSection: 1)
        #expect(try store.checkInvariants().map(\.description) == ["rows of section 0 have positions 0…3 (relative to its base) for 3 rows, not 0…2"])
    }

    @Test func rowCountsFollowHandInsertsAndDeletesThroughTheTriggers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("counts.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        try store.insertRows(["a0", "a1"], intoSection: 0)
        do {
            let shell = try Connection(path: path, mode: .readWrite)
            try shell.executeScript("INSERT INTO rows (section_id, position, title) VALUES (1, 2, 'a2 by hand')")
        }
        #expect(try store.rowCount(inSection: 0) == 3)
        try store.insertRow("a3", intoSection: 0)  // the hand insert kept the positions contiguous: allowed
        #expect(try store.snapshot().titles == [["a0", "a1", "a2 by hand", "a3"]])
        #expect(try store.checkInvariants().isEmpty)
    }
}
