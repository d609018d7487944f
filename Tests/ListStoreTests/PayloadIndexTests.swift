import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands
import TestSupport
import Testing

/// Payload-field indexes (issue 19, item 3; schema 10): a search by an indexed field finds exactly the
/// rows that SQLite's own `json_extract` finds over the list's rows — after ListStore's edits, undo and
/// redo, moves between lists, imports, and inserts, updates and deletes made by another program
/// (noted stale by the file's triggers) — and `check` and `repair` know its entries.
@Suite struct PayloadIndexTests {
    static let fields = ["c", "s", "a.b"]
    static let values: [PayloadValue] = [0, 1, 2, 1.5, "v0", "v1", "1", true, false]

    /// One of the payloads the random edits write: numbers, strings, booleans, nesting, the same value as
    /// an integer and as a double, a number as text, null, missing fields, and no payload at all.
    static func payload(_ random: inout SeededGenerator) -> String? {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return nil
        case 1: return #"{"c":1.0}"#
        case 2: return #"{"c":"1","s":2}"#
        case 3: return #"{"c":null,"other":1}"#
        case 4: return #"{"a":{"b":\#(Bool.random(using: &random))}}"#
        case 5: return #"{"a":{"b":\#(Int.random(in: 0...1, using: &random))},"s":"v\#(Int.random(in: 0...1, using: &random))"}"#
        case 6: return #"{"c":1.5,"s":"v1"}"#
        default:
            return #"{"c":\#(Int.random(in: 0...2, using: &random)),"s":"v\#(Int.random(in: 0...2, using: &random))"}"#
        }
    }

    /// The rows of `list` whose field equals `value`, by id, as SQLite itself reads the payloads (another
    /// connection, no index involved); `title`: also containing that text.
    static func expected(_ db: Connection, list: Int64, field: String, value: PayloadValue, title: String? = nil) throws -> [Int64] {
        let bound: SQLiteValue =
            switch value {
            case .string(let text): .text(text)
            case .integer(let number): .integer(number)
            case .double(let number): .real(number)
            case .bool(let flag): .integer(flag ? 1 : 0)
            }
        return try db.prepare(
            """
            SELECT r.id FROM rows r JOIN sections s ON s.id = r.section_id WHERE s.list_id = ?1
            AND json_extract(r.payload, '$.\(field)') = ?2 AND (?3 IS NULL OR r.title LIKE '%' || ?3 || '%') ORDER BY r.id
            """
        ).bind([.integer(list), bound, title.map { .text($0) } ?? .null]).map { $0.int64(0) }
    }

    /// Every page of `search` (`limit` rows each), checking each result's index path against the snapshot of the same state.
    static func allPages(_ store: ListStore, _ search: RowSearch, limit: Int) throws -> [Int64] {
        var ids: [Int64] = []
        var cursor: SearchCursor?
        repeat {
            let page = try store.read { reader in
                let page = try reader.findRows(search, limit: limit, after: cursor)
                let snapshot = try reader.snapshot()
                for result in page.results { #expect(snapshot[result.indexPath] == result.row, "\(result.row) at \(result.indexPath)") }
                return page
            }
            ids += page.results.map(\.row.id.rawValue)
            cursor = page.next
        } while cursor != nil
        return ids
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func searchesByIndexedFieldsMatchSQLiteThroughRandomEditsByEveryone(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        let other = try store.addList(named: "B")
        for name in Self.fields { #expect(try store.addPayloadIndex(on: PayloadField(name))) }
        #expect(try store.payloadIndexes().map(\.name) == ["a.b", "c", "s"])
        try store.insertSection(title: "one")
        try store.insertSection(title: "two")
        try other.insertSection(title: "elsewhere")
        let hand = try Connection(path: path, mode: .readWrite)  // another program: triggers on, foreign keys off
        var handEdits = 0
        for step in 0..<160 {
            let snapshot = try store.snapshot()
            let paths = snapshot.sections.enumerated().flatMap { section, rows in rows.rows.indices.map { ListIndexPath(section: section, row: $0) } }
            let action = Int.random(in: 0..<13, using: &random)
            var byListStore = true
            switch action {
            case 0, 1:
                let section = Int.random(in: 0..<snapshot.sections.count, using: &random)
                let rows = (0..<Int.random(in: 1...4, using: &random)).map { NewRow(title: "r\(step)-\($0)", payload: Self.payload(&random)) }
                try store.insertRows(rows, intoSection: section, at: Int.random(in: 0...snapshot.sections[section].rows.count, using: &random))
            case 2 where !paths.isEmpty:
                let path = paths[Int.random(in: 0..<paths.count, using: &random)]
                try store.updateRow(at: path, payload: Self.payload(&random).map { .set($0) } ?? .remove)
            case 3 where !paths.isEmpty:
                try store.deleteRows(at: Array(Set((0..<Int.random(in: 1...3, using: &random)).map { _ in paths[Int.random(in: 0..<paths.count, using: &random)] })))
            case 4 where paths.count > 1:
                try store.moveRow(from: paths[Int.random(in: 0..<paths.count, using: &random)], to: paths[Int.random(in: 0..<paths.count, using: &random)])
            case 5:
                _ = try? store.undo()
            case 6:
                _ = try? store.redo()
            case 7 where !paths.isEmpty:
                let row = try #require(snapshot[paths[Int.random(in: 0..<paths.count, using: &random)]])
                _ = try store.transferRow(id: row.id, toList: "B", section: 0)
            case 8 where snapshot.sections.count > 2:
                try store.deleteSections(at: [Int.random(in: 0..<snapshot.sections.count, using: &random)])
            case 8:
                try store.insertSection(title: "s\(step)")
            case 9:
                byListStore = false
                let section = snapshot.sections[Int.random(in: 0..<snapshot.sections.count, using: &random)].id.rawValue
                try hand.prepare(
                    """
                    INSERT INTO rows (section_id, position, title, payload)
                    VALUES (?1, coalesce((SELECT max(position) FROM rows WHERE section_id = ?1) + 1024, 0), ?2, ?3)
                    """
                ).bind([.integer(section), .text("hand \(step)"), Self.payload(&random).map { .text($0) } ?? .null]).run()
            case 10 where !paths.isEmpty:
                byListStore = false
                let row = try #require(snapshot[paths[Int.random(in: 0..<paths.count, using: &random)]])
                try hand.prepare("UPDATE rows SET payload = ?2 WHERE id = ?1").bind([.integer(row.id.rawValue), Self.payload(&random).map { .text($0) } ?? .null]).run()
            case 11 where !paths.isEmpty:
                byListStore = false
                let row = try #require(snapshot[paths[Int.random(in: 0..<paths.count, using: &random)]])
                try hand.prepare("DELETE FROM rows WHERE id = ?1").bind([.integer(row.id.rawValue)]).run()
            default:
                try other.insertRow(NewRow(title: "b\(step)", payload: Self.payload(&random)), intoSection: 0)
            }
            if !byListStore { handEdits += 1 }
            if byListStore, try store.snapshot().version != snapshot.version {
                #expect(try hand.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0, "seed \(seed) step \(step): a ListStore write leaves nothing stale")
            }
            for _ in 0..<3 {
                let field = Self.fields[Int.random(in: 0..<Self.fields.count, using: &random)]
                let value = Self.values[Int.random(in: 0..<Self.values.count, using: &random)]
                let title: String? = Bool.random(using: &random) ? "r" : nil
                let search = RowSearch(titleContains: title, where: [PayloadMatch(try PayloadField(field), equals: value)])
                let limit = Int.random(in: 1...4, using: &random)
                for (handle, list) in [(store, Int64(1)), (other, Int64(2))] {
                    let found = try Self.allPages(handle, search, limit: limit)
                    let wanted = try Self.expected(hand, list: list, field: field, value: value, title: title)
                    #expect(found == wanted, "seed \(seed) step \(step) action \(action): \(field) = \(value) title \(title ?? "-") in list \(list)")
                }
            }
            #expect(try store.checkInvariants().isEmpty, "seed \(seed) step \(step) action \(action)")
        }
        #expect(handEdits > 10)
    }

    @Test func aFieldIndexedLaterIndexesTheRowsAlreadyThereAndDroppingItKeepsSearchesRight() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "s")
        try store.insertRows((0..<300).map { NewRow(title: "r\($0)", payload: #"{"city":"c\#($0 % 7)","n":\#($0)}"#) }, intoSection: 0)
        let city = try PayloadField("city")
        let search = RowSearch(where: [PayloadMatch(city, equals: "c3")])
        let before = try Self.allPages(store, search, limit: 7)
        #expect(before.count == 43)
        #expect(try store.addPayloadIndex(on: city))
        #expect(try store.addPayloadIndex(on: city) == false, "already indexed: nothing written")
        #expect(try Self.allPages(store, search, limit: 7) == before)
        try store.removePayloadIndex(on: city)
        #expect(try store.payloadIndexes().isEmpty)
        #expect(try Self.allPages(store, search, limit: 7) == before)
        #expect {
            try store.removePayloadIndex(on: city)
        } throws: { error in
            guard case .noPayloadIndex("city")? = (error as? ListStoreError)?.reason else { return false }
            return "\(error)".contains("has no index; nothing was changed")
        }
    }

    @Test func addingAnIndexKeepsVersionsDrawnBeforeItTranslatable() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "s")
        try store.insertRows(["a", "b"], intoSection: 0)
        let drawn = try store.snapshot().version
        try store.addPayloadIndex(on: PayloadField("city"))
        // An edit as of the version drawn before the index still finds its row.
        try store.deleteRows(at: [ListIndexPath(section: 0, row: 1)], asOf: drawn)
        #expect(try store.snapshot().sections[0].rows.map(\.title) == ["a"])
    }

    /// From 20,000 rows at once, the entries are written before their value index is made again (sorted
    /// once): the index is the schema's own afterwards, and searches find the same rows.
    @Test func manyRowsAtOnceAreIndexedAndTheIndexIsTheSchemasOwn() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "s")
        try store.insertRows((0..<21_000).map { NewRow(title: "r\($0)", payload: #"{"k":\#($0 % 300)}"#) }, intoSection: 0)
        try store.addPayloadIndex(on: PayloadField("k"))  // builds over 21,000 rows
        let search = RowSearch(where: [try PayloadMatch(field: "k", equals: 7)])
        #expect(try Self.allPages(store, search, limit: 100).count == 70)
        try store.write(tracksChanges: false) { try $0.insertRows((0..<21_000).map { NewRow(title: "more \($0)", payload: #"{"k":\#($0 % 300)}"#) }, intoSection: 0) }
        #expect(try Self.allPages(store, search, limit: 100).count == 140)
        #expect(try store.checkInvariants().isEmpty, "the schema check compares the index with the migration's")
    }

    @Test func importedRowsAreIndexed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        try store.addPayloadIndex(on: PayloadField("k"))
        try store.importStream(replacing: false) { importer in
            try importer.addSection(title: "imported")
            for index in 0..<50 { try importer.addRow(title: "i\(index)", payload: #"{"k":\#(index % 5)}"#) }
        }
        let found = try Self.allPages(store, RowSearch(where: [try PayloadMatch(field: "k", equals: 2)]), limit: 50)
        #expect(found.count == 10)
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM liststore_payload_values") == 50)
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func entriesEditedByHandAreFoundByCheckAndMadeAgainByRepair() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "s")
        try store.insertRows((0..<20).map { NewRow(title: "r\($0)", payload: #"{"k":\#($0 % 2)}"#) }, intoSection: 0)
        try store.addPayloadIndex(on: PayloadField("k"))
        let search = RowSearch(where: [try PayloadMatch(field: "k", equals: 1)])
        let right = try Self.allPages(store, search, limit: 50)
        #expect(right.count == 10)
        let hand = try Connection(path: path, mode: .readWrite)
        try hand.executeScript("DELETE FROM liststore_payload_values WHERE row_id <= 6; UPDATE liststore_payload_values SET value = 9 WHERE row_id = 20")
        #expect(try Self.allPages(store, search, limit: 50) != right, "the damage is real: the search trusts the entries")
        let problems = try store.checkInvariants()
        #expect(
            problems.map(\.description) == [
                "payload index on k: the entries of 7 rows differ from their payloads (liststore_payload_values was edited by hand); searches by k would miss or add rows"
            ])
        let report = try store.repair()
        #expect(report.fixes.contains("payload index on k: made its entries again from the payloads (the entries of 7 rows differed)"), "\(report.fixes)")
        #expect(try store.checkInvariants().isEmpty)
        #expect(try Self.allPages(store, search, limit: 50) == right)
        // A field name no search can use, written by hand, is reported and dropped by repair.
        try hand.executeScript("INSERT INTO liststore_payload_indexes (field) VALUES ('x'']')")
        #expect(try store.checkInvariants().map(\.description).contains { $0.contains("names no field a search can use") })
        _ = try store.repair()
        #expect(try store.payloadIndexes().map(\.name) == ["k"])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func invalidJSONWrittenByHandGetsNoEntryAndBlocksNoWrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "s")
        try store.insertRows([NewRow(title: "a", payload: #"{"k":1}"#)], intoSection: 0)
        try store.addPayloadIndex(on: PayloadField("k"))
        try Connection(path: path, mode: .readWrite).executeScript("UPDATE rows SET payload = '{not json' WHERE id = 1")
        try store.insertRows([NewRow(title: "b", payload: #"{"k":1}"#)], intoSection: 0)  // refreshes the stale row: no entry, no error
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM liststore_payload_values WHERE row_id = 1") == 0)
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0)
    }
}
