import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// Since schema 11 (`0011_payload_values_without_row_key.sql`) the payload-field index entries have no
/// foreign key into `rows`: every path of ListStore's that deletes rows — directly or through a section's
/// or a list's cascade — notes them in `liststore_payload_stale` so that the refresh before the commit
/// drops their entries, and writes nothing there when no field is indexed.
@Suite struct PayloadIndexDeleteTests {
    /// Every way ListStore deletes rows, and one that only looks like it (a row moved to another list).
    enum Path: String, CaseIterable, CustomStringConvertible {
        case rowsByIndexPath, rowsByID, rowsUntracked, rowsAsOf, sections, sectionsByID, list, importReplacing, importListsReplacing
        case undoOfAnInsert, redoOfARowDelete, redoOfASectionDelete, rowMovedToAnotherList
        var description: String { rawValue }
    }

    static let fields = ["c", "s"]

    /// A file with two lists: the default one with sections "one" and "two" (6 rows each), "B" with one
    /// section of 4; payloads give `c` and `s` (some give one, some none).
    static func makeStore(_ path: String, indexed: Bool) throws -> (store: ListStore, other: ListStore) {
        let store = try ListStore.open(at: path)
        let other = try store.addList(named: "B")
        if indexed { for field in fields { #expect(try store.addPayloadIndex(on: PayloadField(field))) } }
        for section in ["one", "two"] {
            try store.insertSection(title: section)
            try store.insertRows((0..<6).map { NewRow(title: "\(section)\($0)", payload: payload($0)) }, intoSection: section == "one" ? 0 : 1)
        }
        try other.insertSection(title: "b")
        try other.insertRows((0..<4).map { NewRow(title: "b\($0)", payload: payload($0)) }, intoSection: 0)
        return (store, other)
    }

    static func payload(_ index: Int) -> String? {
        switch index % 4 {
        case 0: return #"{"c":\#(index % 3),"s":"v\#(index % 2)"}"#
        case 1: return #"{"c":\#(index % 3)}"#
        case 2: return nil
        default: return #"{"s":"v\#(index % 2)","other":true}"#
        }
    }

    /// Runs `path` on the store: each deletes some rows (or, the last, moves one away).
    static func run(_ path: Path, _ store: ListStore, _ other: ListStore) throws {
        let paths = [ListIndexPath(section: 0, row: 1), ListIndexPath(section: 1, row: 0), ListIndexPath(section: 1, row: 4)]
        switch path {
        case .rowsByIndexPath: try store.deleteRows(at: paths)
        case .rowsByID:
            let snapshot = try store.snapshot()
            try store.deleteRows(ids: try paths.map { try #require(snapshot[$0]).id })
        case .rowsUntracked: try store.write(tracksChanges: false) { try $0.deleteRows(at: paths) }
        case .rowsAsOf: try store.deleteRows(at: paths, asOf: try store.snapshot().version)
        case .sections: try store.deleteSections(at: [0])
        case .sectionsByID: try store.deleteSections(ids: [try store.snapshot().sections[1].id])
        case .list: try store.deleteList(named: "B")
        case .importReplacing:
            try store.importStream(replacing: true) { importer in
                try importer.addSection(title: "imported")
                for index in 0..<3 { try importer.addRow(title: "i\(index)", payload: payload(index)) }
            }
        case .importListsReplacing:
            try store.importLists(named: ["B"], replacing: true) { _, importer in
                try importer.addSection(title: "imported")
                try importer.addRow(title: "i", payload: payload(4))
            }
        case .undoOfAnInsert:
            try store.insertRows((0..<3).map { NewRow(title: "new\($0)", payload: payload($0)) }, intoSection: 1, at: 2)
            try store.undo()
        case .redoOfARowDelete:
            try store.deleteRows(at: paths)
            try store.undo()
            try store.redo()
        case .redoOfASectionDelete:
            try store.deleteSections(at: [1])
            try store.undo()
            try store.redo()
        case .rowMovedToAnotherList:
            try store.transferRow(id: try #require(store.snapshot()[ListIndexPath(section: 0, row: 0)]).id, toList: "B", section: 0)
        }
    }

    /// The rows of list `list` whose `field` equals `value`, as SQLite reads the payloads (no index).
    static func expected(_ db: Connection, list: Int64, field: String, value: PayloadValue) throws -> [Int64] {
        try PayloadIndexTests.expected(db, list: list, field: field, value: value)
    }

    /// Statements that note rows in `liststore_payload_stale`, among `executed`.
    static func notes(_ executed: some Collection<String>) -> Int {
        executed.filter { $0.hasPrefix("INSERT") && $0.contains("liststore_payload_stale") }.count
    }

    @Test(arguments: Path.allCases)
    func aDeleteDropsTheEntriesOfItsRows(path: Path) throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("lists.sqlite")
        StatementRecorder.start(folder: directory.url.path)
        defer { StatementRecorder.stop(folder: directory.url.path) }
        let (store, other) = try Self.makeStore(file, indexed: true)
        let db = try Connection(path: file, mode: .readOnly)
        let rowsBefore = try db.scalarInt("SELECT count(*) FROM rows") ?? 0
        let start = StatementRecorder.executed(folder: directory.url.path).count
        try Self.run(path, store, other)
        let executed = StatementRecorder.executed(folder: directory.url.path).dropFirst(start)
        #expect(Self.notes(executed) > 0, "the rows going are noted")
        if ![.rowMovedToAnotherList, .importReplacing, .importListsReplacing, .undoOfAnInsert].contains(path) {
            #expect(try db.scalarInt("SELECT count(*) FROM rows") ?? 0 < rowsBefore, "rows were deleted")
        }
        #expect(
            try db.scalarInt("SELECT count(*) FROM liststore_payload_values v WHERE NOT EXISTS (SELECT 1 FROM rows WHERE rows.id = v.row_id)") == 0,
            "no entry is left without its row")
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0)
        // Every row with a field has its entry, and no other entry is there.
        let wanted =
            try db.scalarInt(
                "SELECT count(*) FROM rows, (SELECT 'c' AS f UNION ALL SELECT 's') WHERE json_extract(payload, '$.' || f) IS NOT NULL") ?? -1
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_values") == wanted)
        #expect(try store.checkInvariants().isEmpty)
        let searches: [(String, PayloadValue)] = [("c", 1), ("c", 0), ("s", "v1"), ("s", "v0")]
        for (field, value) in searches {
            let search = RowSearch(where: [PayloadMatch(try PayloadField(field), equals: value)])
            for (handle, list) in [(store, Int64(1))] + (path == .list ? [] : [(other, Int64(2))]) {
                #expect(
                    try PayloadIndexTests.allPages(handle, search, limit: 2) == Self.expected(db, list: list, field: field, value: value), "\(field) = \(value) in list \(list)")
            }
        }
    }

    /// With no field indexed the same deletes write nothing to the stale table (and no entry exists).
    @Test(arguments: Path.allCases)
    func withNoFieldIndexedADeleteNotesNothing(path: Path) throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("lists.sqlite")
        StatementRecorder.start(folder: directory.url.path)
        defer { StatementRecorder.stop(folder: directory.url.path) }
        let (store, other) = try Self.makeStore(file, indexed: false)
        let start = StatementRecorder.executed(folder: directory.url.path).count
        try Self.run(path, store, other)
        let executed = StatementRecorder.executed(folder: directory.url.path).dropFirst(start)
        #expect(Self.notes(executed) == 0, "\(executed.filter { $0.contains("liststore_payload_stale") })")
        #expect(!executed.contains { $0.hasPrefix("DELETE FROM liststore_payload") })
        let db = try Connection(path: file, mode: .readOnly)
        #expect(try db.scalarInt("SELECT (SELECT count(*) FROM liststore_payload_stale) + (SELECT count(*) FROM liststore_payload_values)") == 0)
        #expect(try store.checkInvariants().isEmpty)
    }

    /// A program deleting a row with triggers off (nothing notes it) leaves its entries: a search passes
    /// over them, `check` counts them, `repair` drops them and only them.
    @Test func entriesOfARowDeletedWithTriggersOffAreFoundByCheckAndDroppedByRepair() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("lists.sqlite")
        let (store, _) = try Self.makeStore(file, indexed: true)
        let doomed = try #require(try store.snapshot()[ListIndexPath(section: 0, row: 0)]).id.rawValue  // c = 0, s = "v0"
        let hand = try Connection(path: file, mode: .readWrite)
        try hand.run("PRAGMA foreign_keys = ON")
        try hand.disableTriggers()
        // A program that keeps the counts itself (what the counting trigger does), and nothing else.
        try hand.transaction(.immediate) {
            for table in ["row_blocks", "row_pages"] {
                try hand.run(
                    """
                    UPDATE \(table) SET row_count = row_count - 1 WHERE section_id = (SELECT section_id FROM rows WHERE id = ?1)
                    AND start = (SELECT max(start) FROM \(table) WHERE section_id = (SELECT section_id FROM rows WHERE id = ?1)
                                 AND start <= (SELECT position FROM rows WHERE id = ?1))
                    """, [.integer(doomed)])
            }
            try hand.run("UPDATE sections SET row_count = row_count - 1 WHERE id = (SELECT section_id FROM rows WHERE id = ?1)", [.integer(doomed)])
            try hand.run("DELETE FROM rows WHERE id = ?1", [.integer(doomed)])
        }
        #expect(try hand.scalarInt("SELECT count(*) FROM liststore_payload_values WHERE row_id = ?1", [.integer(doomed)]) == 2, "left behind")
        let search = RowSearch(where: [PayloadMatch(try PayloadField("s"), equals: "v0")])
        #expect(try !PayloadIndexTests.allPages(store, search, limit: 10).contains(doomed), "a search never returns a deleted row")
        let problems = try store.checkInvariants().map(\.description)
        let line = "payload index entries of 1 row that no longer exist: 2 entries (rows deleted by a program with triggers off)"
        #expect(problems.contains(line), "\(problems)")
        #expect(!problems.contains { $0.contains("differ from their payloads") }, "counted once: \(problems)")
        let entries = try hand.scalarInt("SELECT count(*) FROM liststore_payload_values") ?? 0
        let report = try store.repair()
        #expect(report.fixes.contains(line + ": dropped them"), "\(report.fixes)")
        #expect(try hand.scalarInt("SELECT count(*) FROM liststore_payload_values") == entries - 2, "only the dead entries go")
        #expect(try store.checkInvariants().isEmpty)
        #expect(try PayloadIndexTests.allPages(store, search, limit: 10) == Self.expected(hand, list: 1, field: "s", value: "v0"))
    }

    /// A row deleted by another program with triggers on is noted by the schema's trigger: the next
    /// ListStore write drops its entries; `check` meanwhile reports nothing.
    @Test func aRowDeletedByAnotherProgramWithTriggersOnLosesItsEntriesWithTheNextWrite() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("lists.sqlite")
        let (store, _) = try Self.makeStore(file, indexed: true)
        let doomed = try #require(try store.snapshot()[ListIndexPath(section: 0, row: 0)]).id.rawValue
        let hand = try Connection(path: file, mode: .readWrite)
        try hand.run("DELETE FROM rows WHERE id = ?1", [.integer(doomed)])
        #expect(try store.checkInvariants().isEmpty, "noted stale: not damage")
        try store.insertRow("later", intoSection: 1)
        #expect(try hand.scalarInt("SELECT count(*) FROM liststore_payload_values WHERE row_id = ?1", [.integer(doomed)]) == 0)
        #expect(try store.checkInvariants().isEmpty)
    }

    // MARK: The migration

    /// A schema-10 file (every row's entries made, as ListStore made them) with `rows` rows in one section.
    static func makeVersion10File(_ path: String, rows: Int) throws {
        let db = try Connection(path: path, mode: .readWriteCreate)
        try Migrator(migrations: Array(Schema.migrations.prefix(10)), applicationID: Schema.applicationID).migrate(db)
        try db.transaction(.immediate) {
            try db.run("INSERT INTO sections (position, title) VALUES (0, 'S')")
            let insert = try db.cached("INSERT INTO rows (section_id, position, title) VALUES (1, ?1, ?2)")
            for index in 0..<rows { try insert.bind([.int(index * 1024), .text("r\(index)")]).run() }
        }
        try db.executeScript(
            """
            UPDATE rows SET payload = json_object('c', 'c' || (id % 100), 's', id % 7);
            INSERT INTO liststore_payload_indexes (field) VALUES ('c'), ('s');
            INSERT INTO liststore_payload_values (row_id, field, value) SELECT id, 'c', 'c' || (id % 100) FROM rows;
            INSERT INTO liststore_payload_values (row_id, field, value) SELECT id, 's', id % 7 FROM rows;
            """)
    }

    @Test func aSchema10FileKeepsItsEntriesThroughTheMigrationAndLosesNoForeignKeyButRowsOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v10.sqlite")
        try Self.makeVersion10File(path, rows: 300)
        let entries = "SELECT row_id, field, value, typeof(value) FROM liststore_payload_values ORDER BY row_id, field"
        let before = try Connection(path: path, mode: .readOnly).prepare(entries).map { [$0.int64(0).description, $0.text(1), $0.text(2), $0.text(3)] }
        #expect(before.count == 600)
        let store = try ListStore.open(at: path)
        try store.insertRow("new", intoSection: 0)  // the first write migrates
        #expect(try store.fileSchemaVersion() == Schema.migrator.latestVersion)
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.prepare(entries).map { [$0.int64(0).description, $0.text(1), $0.text(2), $0.text(3)] } == before)
        #expect(
            try db.prepare("SELECT \"table\", \"from\" FROM pragma_foreign_key_list('liststore_payload_values')").map { "\($0.text(0)).\($0.text(1))" }
                == ["liststore_payload_indexes.field"])
        #expect(try db.scalarInt("SELECT count(*) FROM pragma_index_list('liststore_payload_values') WHERE name = 'liststore_payload_values_by_value'") == 1)
        #expect(try Schema.differences(in: db, version: Schema.migrator.latestVersion).isEmpty)
        #expect(try store.checkInvariants().isEmpty)
        let search = RowSearch(where: [try PayloadMatch(field: "c", equals: "c7")])
        #expect(try PayloadIndexTests.allPages(store, search, limit: 100) == [7, 107, 207])
        try store.deleteRows(at: [ListIndexPath(section: 0, row: 7)])  // the row with id 8
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_values WHERE row_id = 8") == 0)
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_values") == 598)
        // Removing an index still takes its entries with it (the foreign key on `field` is kept).
        try store.removePayloadIndex(on: PayloadField("s"))
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_values WHERE field = 's'") == 0)
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Entries of an index removed by hand without foreign keys (which `check` reports on a schema-10
    /// file) cannot go into the rebuilt table, whose `field` keeps its foreign key: the migration leaves
    /// them behind instead of failing the first write.
    @Test func aSchema10FileWithEntriesOfARemovedIndexMigrates() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v10.sqlite")
        try Self.makeVersion10File(path, rows: 20)
        try Connection(path: path, mode: .readWrite).executeScript("DELETE FROM liststore_payload_indexes WHERE field = 's'")  // foreign keys off: no cascade
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM liststore_payload_values WHERE field = 's'") == 20)
        let store = try ListStore.open(at: path)
        try store.insertRow("new", intoSection: 0)
        #expect(try store.fileSchemaVersion() == Schema.migrator.latestVersion)
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.prepare("SELECT DISTINCT field FROM liststore_payload_values").map { $0.text(0) } == ["c"])
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_values") == 20)
        #expect(try store.checkInvariants().isEmpty)
    }
}
