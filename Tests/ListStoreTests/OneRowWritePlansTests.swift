import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// A one-row edit costs the same at any size only if none of its statements reads the whole of `rows` or
/// of the payload-field entries. SQLite picks each statement's plan without statistics, and once picked
/// one that scanned every row to find the one noted row of an insert with a field indexed (80 ms at a
/// million rows, 0.4 ms before). So every statement the edits run is asked for its plan here, on a file
/// with fields indexed, and none may scan those tables.
@Suite struct OneRowWritePlansTests {
    /// The names `sql` gives the table `table` (itself and its aliases).
    static func names(of table: String, in sql: String) -> Set<String> {
        var names: Set<String> = [table]
        let pattern = try? NSRegularExpression(pattern: "\\b\(table)\\s+(?:AS\\s+)?([A-Za-z_][A-Za-z0-9_]*)", options: [.caseInsensitive])
        let range = NSRange(sql.startIndex..., in: sql)
        for match in pattern?.matches(in: sql, range: range) ?? [] {
            if let alias = Range(match.range(at: 1), in: sql) { names.insert(String(sql[alias])) }
        }
        return names
    }

    /// The lines of `sql`'s plan that read the whole of `rows` or of `liststore_payload_values`.
    static func fullScans(_ sql: String, _ db: Connection) throws -> [String] {
        let scanned = names(of: "rows", in: sql).union(names(of: "liststore_payload_values", in: sql))
        return try db.cached("EXPLAIN QUERY PLAN " + sql).bind([]).map { $0.text(3) }.filter { detail in
            let words = detail.split(separator: " ")
            return words.count >= 2 && words[0] == "SCAN" && scanned.contains(String(words[1]))
        }
    }

    @Test func noOneRowEditScansTheRowsOrTheEntries() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("plans.sqlite")
        let setUp = try ListStore.open(at: path)
        try setUp.insertSection(title: "S")
        try setUp.insertRows((0..<2_000).map { NewRow(title: "r\($0)", payload: #"{"city":"c\#($0 % 10)","n":\#($0)}"#) }, intoSection: 0)
        _ = try setUp.addPayloadIndex(on: PayloadField("city"))
        _ = try setUp.addPayloadIndex(on: PayloadField("n"))
        StatementRecorder.start(folder: directory.url.path)
        defer { StatementRecorder.stop(folder: directory.url.path) }
        let store = try ListStore.open(at: path)  // opened after the recorder started: its statements are recorded
        let id = try store.insertRow(NewRow(title: "new", payload: #"{"city":"c1","n":5}"#), intoSection: 0, at: 1_000).id
        try store.updateRow(id: id, payload: .set(#"{"city":"c2","n":6}"#))
        try store.moveRow(from: ListIndexPath(section: 0, row: 1_000), to: ListIndexPath(section: 0, row: 10))
        try store.deleteRows(at: [ListIndexPath(section: 0, row: 10)])
        try store.deleteRows(at: (0..<20).map { ListIndexPath(section: 0, row: $0 * 50) })
        _ = try store.undo()
        let executed = Set(StatementRecorder.executed(folder: directory.url.path))
        #expect(executed.contains { $0.contains("liststore_payload_stale") }, "the edits ran the payload index's statements")
        let db = try Connection(path: path, mode: .readOnly)
        for sql in executed.sorted() where !sql.hasPrefix("PRAGMA") && !sql.hasPrefix("BEGIN") && !sql.hasPrefix("COMMIT") && !sql.hasPrefix("ROLLBACK") {
            let scans = try Self.fullScans(sql, db)
            #expect(scans.isEmpty, "\(sql): \(scans)")
        }
    }
}
