import Foundation
import ListStore
import StoreShorthands

/// What a search costs (issue 19): ``ListStore/findRows(_:limit:after:)`` on a store of 1,000,000 rows
/// (10,000 with `--quick`) whose every row has a payload `{"city":"c<i % 1000>","n":<i>}`: the first page
/// of 50 of a search that matches often (it stops early) and of one that matches one row or none (it reads
/// every row), by title and by payload field; then the payload searches again with the fields indexed.
struct SearchBench {
    let fixtures: Fixtures
    let repetitions: Int
    let quick: Bool

    struct Place: Codable {
        let city: String
        let n: Int
    }

    func run() throws {
        let n = quick ? 10_000 : 1_000_000
        let store = try ListStore.open(at: try template(rows: n), mode: .readOnly)
        print("")
        print("search: findRows, first page (limit 50), n = \(n) rows with payloads {\"city\":\"c<i % 1000>\",\"n\":<i>}; medians of \(repetitions)")
        print(pad("search", 52) + pad("rows found", 12, right: true) + pad("time", 12, right: true))
        let cases: [(String, RowSearch, Int)] = [
            ("title contains \"row 1\" (common: stops early)", RowSearch(titleContains: "ROW 1"), 50),
            ("title contains \"row \(n - 1)\" (one row: reads all)", RowSearch(titleContains: "row \(n - 1)"), 1),
            ("title contains \"absent\" (none: reads all)", RowSearch(titleContains: "absent"), 0),
            ("payload city = \"c7\" (1 in 1000)", RowSearch(where: [try PayloadMatch(field: "city", equals: "c7")]), min(50, n / 1000)),
            ("payload n = \(n - 1) (one row: reads all)", RowSearch(where: [try PayloadMatch(field: "n", equals: .integer(Int64(n - 1)))]), 1),
            ("payload city = \"absent\" (none: reads all)", RowSearch(where: [try PayloadMatch(field: "city", equals: "absent")]), 0),
            (
                "title \"row\" and city = \"c7\"",
                RowSearch(titleContains: "row", where: [try PayloadMatch(field: "city", equals: "c7")]), min(50, n / 1000)
            ),
        ]
        for (label, search, expected) in cases {
            var found = 0
            let times = try (0..<repetitions).map { _ in
                try Measurement.seconds { found = try store.findRows(search, limit: 50).results.count }
            }
            guard found == expected else { throw BenchmarkFailure("search \(label) found \(found) rows, not \(expected)") }
            print(pad(label, 52) + pad(String(found), 12, right: true) + pad(Measurement.format(Measurement.median(times)), 12, right: true))
        }
        try runIndexed(n: n, template: try template(rows: n), cases: cases)
    }

    /// The same searches with `city` and `n` indexed (``ListStore/addPayloadIndex(on:)``), on a copy of the
    /// fixture: what building the indexes costs, each search, and a one-row insert with and without them.
    private func runIndexed(n: Int, template: String, cases: [(String, RowSearch, Int)]) throws {
        let indexedPath = fixtures.path("search-\(n)-indexed.sqlite")
        let plainPath = fixtures.path("search-\(n)-plain.sqlite")
        for path in [indexedPath, plainPath] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try FileManager.default.copyItem(atPath: template, toPath: path)
        }
        // The stores close at the end of this block, folding their -wal into the file, which is then measured.
        do {
            // Built, then closed and opened again: the build's -wal (some 67 MB) is checkpointed on a
            // background thread after its commit, which would otherwise run while the searches are timed.
            let build = try Measurement.seconds {
                let building = try ListStore.open(at: indexedPath)
                for field in ["city", "n"] { try building.addPayloadIndex(on: PayloadField(field)) }
            }
            print(pad("index city and n (build, once)", 52) + pad(String(n), 12, right: true) + pad(Measurement.format(build), 12, right: true))
            let indexed = try ListStore.open(at: indexedPath)
            let plain = try ListStore.open(at: plainPath)
            for (label, search, expected) in cases where !search.payloadMatches.isEmpty {
                var found = 0
                let times = try (0..<repetitions).map { _ in
                    try Measurement.seconds { found = try indexed.findRows(search, limit: 50).results.count }
                }
                guard found == expected else { throw BenchmarkFailure("indexed search \(label) found \(found) rows, not \(expected)") }
                let indexedLabel = (label.range(of: " (").map { String(label[..<$0.lowerBound]) } ?? label) + ", indexed"
                print(pad(indexedLabel, 52) + pad(String(found), 12, right: true) + pad(Measurement.format(Measurement.median(times)), 12, right: true))
            }
            for (label, store) in [("insert one row with a payload, no index", plain), ("insert one row with a payload, 2 fields indexed", indexed)] {
                let row = try NewRow(title: "new", encoding: Place(city: "c1", n: -1))
                _ = try store.insertRow(row, intoSection: 0, at: n / 2)  // untimed: the first write makes the -wal
                let times = try (0..<repetitions).map { _ in try Measurement.seconds { _ = try store.insertRow(row, intoSection: 0, at: n / 2) } }
                print(pad(label, 52) + pad("", 12, right: true) + pad(Measurement.format(Measurement.median(times)), 12, right: true))
            }
        }
        let sizes = [indexedPath, plainPath].map { path in
            ["", "-wal"].reduce(0.0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: path + $1)[.size] as? NSNumber)?.doubleValue ?? 0) / 1e6 }
        }
        print(pad("file size, indexed / not", 52) + pad("", 12, right: true) + pad(String(format: "%.1f / %.1f MB", sizes[0], sizes[1]), 12, right: true))
    }

    /// A store of `rows` rows in one section, each with a typed payload, made once.
    private func template(rows: Int) throws -> String {
        try fixtures.oneSectionTemplate("search-\(rows).sqlite", rows: rows) { try NewRow(title: "row \($0)", encoding: Place(city: "c\($0 % 1000)", n: $0)) }
    }
}
