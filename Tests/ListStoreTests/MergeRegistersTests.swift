import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// What every ListStore write keeps for merging (schema 15, Docs/Merging.md): each row, section and list
/// has an order key, in the order of its positions, whatever edits, undos and moves between lists ran; a
/// title, payload or name set carries the stamp of the write that set it; everything deleted has a
/// tombstone until an undo puts it back; stamps grow from write to write and name the replica.
@Suite struct MergeRegistersTests {
    /// Every element's key, checked to follow its siblings' positions; the number of elements checked.
    @discardableResult
    static func expectKeysFollowPositions(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let db = try Connection(path: path, mode: .readOnly)
        var checked = 0
        for (table, container) in [("rows", "section_id"), ("sections", "list_id"), ("lists", "'all'")] {
            var previous: (container: Int64, key: [UInt8])?
            try db.cached("SELECT \(container), order_key, id FROM \(table) ORDER BY \(container), position").bind([]).forEachRow { row in
                let key = row.blob(1)
                #expect(key != nil, "\(table) #\(row.int64(2)) has no order key", sourceLocation: sourceLocation)
                guard let key else { return }
                if let previous, previous.container == row.int64(0) {
                    #expect(previous.key.lexicographicallyPrecedes(key), "\(table) #\(row.int64(2)): key out of order", sourceLocation: sourceLocation)
                }
                previous = (row.int64(0), key)
                checked += 1
            }
        }
        return checked
    }

    /// A file of schema 14 (before order keys) at `path`, holding what `script` inserts.
    static func makeSchema14File(_ path: String, _ script: String) throws {
        let db = try Connection(path: path, mode: .readWriteCreate)
        try Migrator(migrations: Array(Schema.migrations.prefix(14)), applicationID: Schema.applicationID).migrate(db)
        try db.executeScript(script)
    }

    static func scalar(_ path: String, _ sql: String, _ values: [SQLiteValue] = []) throws -> Int64? {
        try Connection(path: path, mode: .readOnly).scalarInt(sql, values).map(Int64.init)
    }

    /// The last logical time the file gave.
    static func clock(_ path: String) throws -> Int64 {
        try #require(try scalar(path, "SELECT seq FROM sqlite_sequence WHERE name = 'liststore_clock'"))
    }

    @Test func randomEditsUndosAndMovesBetweenListsKeepEveryKeyInOrderAndEveryDeleteTombstoned() throws {
        let directory = try TemporaryDirectory(prefix: "registers")
        let path = directory.path("list.sqlite")
        let store = try ListStore.open(at: path)
        let work = try store.addList(named: "Work")
        var random = SeededGenerator(seed: 15_003)
        var lastClock = try Self.clock(path)
        var deletedRows: Set<Int64> = []
        for step in 0..<600 {
            let target = Bool.random(using: &random) ? store : work
            let snapshot = try target.snapshot()
            let sections = snapshot.sections
            let rows = sections.flatMap(\.rows)
            switch Int.random(in: 0..<14, using: &random) {
            case 0, 1, 2:
                if sections.isEmpty { fallthrough }
                let section = Int.random(in: 0..<sections.count, using: &random)
                let count = Int.random(in: 1...4, using: &random)
                _ = try target.write { tx in
                    try tx.insertRows((0..<count).map { "r\(step).\($0)" }, intoSection: section, at: Int.random(in: 0...sections[section].rows.count, using: &random))
                }
            case 3:
                _ = try target.write { tx in try tx.insertSection(title: "s\(step)", at: Int.random(in: 0...sections.count, using: &random)) }
            case 4, 5:
                guard let row = rows.randomElement(using: &random) else { continue }
                let section = Int.random(in: 0..<sections.count, using: &random)
                let rowsThere = sections[section].rows.count - (sections[section].rows.contains { $0.id == row.id } ? 1 : 0)
                _ = try target.write { tx in
                    try tx.moveRow(id: row.id, to: ListIndexPath(section: section, row: Int.random(in: 0...rowsThere, using: &random)))
                }
            case 6:
                guard let row = rows.randomElement(using: &random) else { continue }
                _ = try target.write { tx in try tx.deleteRows(ids: [row.id]) }
                deletedRows.insert(row.id.rawValue)
            case 7:
                guard let row = rows.randomElement(using: &random) else { continue }
                let before = try Self.clock(path)
                if Bool.random(using: &random) {
                    _ = try target.write { tx in try tx.updateRow(id: row.id, title: "t\(step)") }
                    #expect(try Self.scalar(path, "SELECT title_stamp >> 20 FROM rows WHERE id = ?1", [.integer(row.id.rawValue)]) ?? 0 > before)
                } else {
                    _ = try target.write { tx in try tx.updateRow(id: row.id, payload: .set(#"{"n":\#(step)}"#)) }
                    #expect(try Self.scalar(path, "SELECT payload_stamp >> 20 FROM rows WHERE id = ?1", [.integer(row.id.rawValue)]) ?? 0 > before)
                }
            case 8:
                guard sections.count > 1 else { continue }
                _ = try target.write { tx in
                    try tx.moveSection(from: Int.random(in: 0..<sections.count, using: &random), to: Int.random(in: 0..<sections.count, using: &random))
                }
            case 9:
                guard let section = sections.randomElement(using: &random), Int.random(in: 0..<3, using: &random) == 0 else { continue }
                _ = try target.write { tx in try tx.deleteSections(ids: [section.id]) }
                deletedRows.formUnion(section.rows.map(\.id.rawValue))
                #expect(try Self.scalar(path, "SELECT count(*) FROM liststore_tombstones WHERE kind = 'section' AND id = ?1", [.integer(section.id.rawValue)]) == 1)
            case 10:
                guard let section = sections.randomElement(using: &random) else { continue }
                _ = try target.write { tx in try tx.renameSection(id: section.id, to: "n\(step)") }
                #expect(try Self.scalar(path, "SELECT title_stamp >> 20 FROM sections WHERE id = ?1", [.integer(section.id.rawValue)]) == (try Self.clock(path)))
            case 11:
                _ = try? Bool.random(using: &random) ? target.undo() : target.redo()  // nothing to undo or redo: a step without an edit
            case 12:
                guard let row = rows.randomElement(using: &random) else { continue }
                let other = target === store ? "Work" : ListStore.defaultListName
                let otherStore = target === store ? work : store
                guard try !otherStore.snapshot().sections.isEmpty else { continue }
                _ = try target.transferRow(id: row.id, toList: other, section: 0, at: 0)
            default:
                guard let section = sections.randomElement(using: &random) else { continue }
                let other = target === store ? "Work" : ListStore.defaultListName
                _ = try target.transferSection(id: section.id, toList: other, at: 0)
            }
            let clock = try Self.clock(path)
            #expect(clock >= lastClock)
            lastClock = clock
            if step % 50 == 49 { try Self.expectKeysFollowPositions(path) }
        }
        #expect(try Self.expectKeysFollowPositions(path) > 50)
        // Every row deleted and not put back by an undo has its tombstone; no live row has one.
        let live = Set(try store.snapshot().sections.flatMap(\.rows).map(\.id.rawValue) + work.snapshot().sections.flatMap(\.rows).map(\.id.rawValue))
        let db = try Connection(path: path, mode: .readOnly)
        let buried = Set(try db.cached("SELECT id FROM liststore_tombstones WHERE kind = 'row'").bind([]).map { $0.int64(0) })
        #expect(deletedRows.subtracting(live).isSubset(of: buried))
        #expect(buried.isDisjoint(with: live))
        #expect(try db.scalarInt("SELECT count(*) FROM rows WHERE revived_stamp > 0") ?? 0 > 0, "no undo put a row back: the run does not test revival")
    }

    @Test func stampsGrowWhenTheClockGoesBackAndNameTheReplica() throws {
        let db = try Connection(path: ":memory:", mode: .readWriteCreate)
        try Schema.migrator.migrate(db)
        let now = Date()
        var stamps: [Int64] = []
        for offset: TimeInterval in [0, -3_600, -86_400 * 365, 0, 1] {
            try db.transaction { stamps.append(try MergeClock.stamp(db, now: now.addingTimeInterval(offset))) }
        }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "\(stamps)")
        #expect(stamps.allSatisfy { $0 & (ReplicaIdentity.numberLimit - 1) == 0 })
        // Quarter milliseconds since 2020, as the triggers stamping another program's edits count them too.
        #expect(stamps[0] >> 20 == Int64(((now.timeIntervalSince1970 - MergeClock.epoch) * 4_000).rounded(.down)))
        let fresh = try Connection(path: ":memory:", mode: .readWriteCreate)
        try Schema.migrator.migrate(fresh)
        let byHand = Int64(try #require(try fresh.scalarInt("SELECT stamp FROM liststore_hand_stamp"))) >> 20
        let byListStore = try fresh.transaction { try MergeClock.stamp(fresh) } >> 20
        #expect(abs(byListStore - byHand) < 4_000 * 60, "\(byListStore) \(byHand)")
        // One write, one stamp, however often it is asked for.
        try db.transaction {
            let first = try MergeClock.stamp(db)
            #expect(try MergeClock.stamp(db) == first)
        }
        try db.run("UPDATE liststore_replica SET number = 77")
        try db.transaction {
            let stamp = try MergeClock.stamp(db)
            #expect(stamp & (ReplicaIdentity.numberLimit - 1) == 77)
        }
    }

    @Test func aListsNameKeyAndDeleteAreKept() throws {
        let directory = try TemporaryDirectory(prefix: "registers")
        let path = directory.path("list.sqlite")
        let store = try ListStore.open(at: path)
        let work = try store.addList(named: "Work", at: 0)
        try work.write { tx in
            try tx.insertSection(title: "Today")
            _ = try tx.insertRows(["a", "b"], intoSection: 0)
        }
        try store.addList(named: "Home", at: 1)
        try store.moveList(named: "Home", to: 0)
        try store.renameList(named: "Work", to: "Office")
        try Self.expectKeysFollowPositions(path)
        #expect(try Self.scalar(path, "SELECT name_stamp >> 20 FROM lists WHERE name = 'Office'") == (try Self.clock(path)))
        let sectionID = try #require(try Self.scalar(path, "SELECT id FROM sections WHERE title = 'Today'"))
        try store.deleteList(named: "Office")
        #expect(try Self.scalar(path, "SELECT count(*) FROM liststore_tombstones WHERE kind = 'list'") == 1)
        #expect(try Self.scalar(path, "SELECT count(*) FROM liststore_tombstones WHERE kind = 'section' AND id = ?1", [.integer(sectionID)]) == 1)
        #expect(try Self.scalar(path, "SELECT count(*) FROM liststore_tombstones WHERE kind = 'row'") == 2)
    }

    @Test func anImportGivesItsRowsOneRunOfKeysAndBuriesWhatItReplaced() throws {
        let directory = try TemporaryDirectory(prefix: "registers")
        let path = directory.path("list.sqlite")
        let store = try ListStore.open(at: path)
        try store.write { tx in
            try tx.insertSection(title: "Old")
            _ = try tx.insertRows(["x", "y"], intoSection: 0)
        }
        try store.importStream(replacing: true) { importer in
            for section in 0..<3 {
                try importer.addSection(title: "S\(section)")
                for row in 0..<100 { try importer.addRow(title: "r\(row)") }
            }
        }
        #expect(try Self.expectKeysFollowPositions(path) == 300 + 3 + 1)
        #expect(try Self.scalar(path, "SELECT count(*) FROM liststore_tombstones") == 3)
        let stamps = try Connection(path: path, mode: .readOnly).cached("SELECT order_key FROM rows").bind([]).map { OrderKey.stamp(of: $0.blob(0) ?? []) }
        #expect(Set(stamps).count == 1)
    }

    @Test func aRowAnotherProgramInsertedWithoutAKeyIsPassedOverByTheNextInsert() throws {
        let directory = try TemporaryDirectory(prefix: "registers")
        let path = directory.path("list.sqlite")
        let store = try ListStore.open(at: path)
        try store.write { tx in
            try tx.insertSection(title: "S")
            _ = try tx.insertRows(["a", "c"], intoSection: 0)
        }
        let c = try #require(try Self.scalar(path, "SELECT position FROM rows WHERE title = 'c'"))
        let a = try #require(try Self.scalar(path, "SELECT position FROM rows WHERE title = 'a'"))
        try Connection(path: path, mode: .readWrite).run("INSERT INTO rows (section_id, position, title) VALUES (1, ?1, 'by hand')", [.integer((a + c) / 2)])
        try store.write { tx in _ = try tx.insertRows(["b"], intoSection: 0, at: 1) }
        #expect(try store.snapshot().sections[0].rows.map(\.title) == ["a", "b", "by hand", "c"])
        #expect(try Self.scalar(path, "SELECT count(*) FROM rows WHERE order_key IS NULL") == 1)
        let keyed = try Connection(path: path, mode: .readOnly).cached("SELECT order_key FROM rows WHERE order_key IS NOT NULL ORDER BY position").bind([])
            .map { $0.blob(0) ?? [] }
        #expect(zip(keyed, keyed.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
    }

    @Test func aFileOfSchema14GetsKeysFromItsPositionsInItsFirstWrite() throws {
        let directory = try TemporaryDirectory(prefix: "registers")
        let path = directory.path("v14.sqlite")
        try Self.makeSchema14File(
            path,
            """
            INSERT INTO sections (position, title) VALUES (1, 'B'), (0, 'A');
            INSERT INTO rows (section_id, position, title) VALUES (1, 5000, 'b2'), (1, -7, 'b1'), (2, 3, 'a1');
            """)
        let store = try ListStore.open(at: path)
        try store.write { tx in _ = try tx.insertRows(["a0"], intoSection: 0, at: 0) }
        #expect(try store.snapshot().sections.map { $0.rows.map(\.title) } == [["a0", "a1"], ["b1", "b2"]])
        #expect(try Self.expectKeysFollowPositions(path) == 4 + 2 + 1)
        #expect(try Self.scalar(path, "SELECT count(*) FROM rows WHERE substr(order_key, 9, 8) = zeroblob(8)") == 3)
    }

    @Test func repairKeysRowsAndSectionsInsertedOrMovedByHandWhereTheyStand() throws {
        let directory = try TemporaryDirectory(prefix: "registers")
        let path = directory.path("list.sqlite")
        let store = try ListStore.open(at: path)
        try store.write { tx in
            try tx.insertSection(title: "S")
            _ = try tx.insertRows(["a", "b", "c", "d"], intoSection: 0)
        }
        #expect(try store.checkInvariants().isEmpty)
        try Connection(path: path, mode: .readWrite).executeScript(
            """
            UPDATE rows SET position = -position WHERE title IN ('a', 'c');
            INSERT INTO rows (section_id, position, title) VALUES (1, 99999999999, 'by hand');
            INSERT INTO sections (list_id, position, title) VALUES (1, 1, 'by hand');
            """)
        let titles = try store.snapshot().sections.map { $0.rows.map(\.title) }
        #expect(try store.checkInvariants().isEmpty, "editing with the sqlite3 shell is allowed: keys matter only to a merge")
        let report = try store.repair()
        #expect(report.fixes.contains { $0.hasPrefix("rows: gave ") && $0.contains("order keys where they stand") }, "\(report.fixes)")
        #expect(try store.checkInvariants().isEmpty)
        #expect(try store.snapshot().sections.map { $0.rows.map(\.title) } == titles)
        try Self.expectKeysFollowPositions(path)
        // Two rows took the repair's stamp (a hand edit becomes an edit): the one inserted by hand, and 'c',
        // which the hand edit moved to the start; 'a', 'b' and 'd' stay in the order of their keys and keep them.
        let clock = try Self.clock(path)
        let rekeyed = try Connection(path: path, mode: .readOnly).cached("SELECT title, order_key FROM rows").bind([])
            .map { (title: $0.text(0), stamp: OrderKey.stamp(of: $0.blob(1) ?? []) ?? 0) }.filter { $0.stamp >> 20 == clock }.map(\.title)
        #expect(Set(rekeyed) == ["c", "by hand"], "\(rekeyed)")
    }
}
