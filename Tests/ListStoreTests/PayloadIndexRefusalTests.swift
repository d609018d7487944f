import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands
import TestSupport
import Testing

/// Why a payload-field index is a table ListStore keeps (PayloadsAndSearch.md, "Payload-field indexes"): ListStore's
/// connections run with `trusted_schema=OFF`, and SQLite then refuses an index that calls `json_extract`,
/// so such an index made by another program leaves the file unreadable to ListStore until it is dropped.
@Suite struct PayloadIndexRefusalTests {
    @Test func aJSONExpressionIndexMadeElsewhereIsRefusedUntilItIsDropped() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        do {
            let store = try ListStore.open(at: path)
            try store.insertSection(title: "s")
            try store.insertRow("Paris", payload: ["city": "Paris"], intoSection: 0)
        }
        // The same search works without the index.
        #expect(try ListStore.open(at: path).findRows(RowSearch(where: [try PayloadMatch(field: "city", equals: "Paris")])).results.count == 1)
        do {
            let other = try Connection(path: path, mode: .readWrite)  // another program: its schema trusted
            try other.run("CREATE INDEX app_city ON rows (json_extract(payload, '$.city'))")
        }
        #expect {
            try ListStore.open(at: path).findRows(RowSearch(titleContains: "Par"))
        } throws: { error in
            "\(error)".contains("unsafe use of json_extract()")
        }
        do {
            let other = try Connection(path: path, mode: .readWrite)
            try other.run("DROP INDEX app_city")
        }
        #expect(try ListStore.open(at: path).findRows(RowSearch(titleContains: "Par")).results.map(\.row.title) == ["Paris"])
    }
}
