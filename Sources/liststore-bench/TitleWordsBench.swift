import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands

/// The full-text index of titles (issue 35; `--search`), on two copies of one store of 1,000,000 rows
/// (10,000 with `--quick`) titled as a mailbox's subjects (``subject(_:)``), one with the index
/// (``ListStore/addTitleIndex()``) and one without: the first page of 50 of a typed prefix and of a run of
/// Chinese characters by ``RowSearch/titleWords`` (in id order, display order and ranked) against the scan
/// (``RowSearch/titleContains``); a one-row insert and retitle on each copy, interleaved so that the
/// machine's load falls on both alike; the index's build time and its size against the titles' bytes.
struct TitleWordsBench {
    let fixtures: Fixtures
    let repetitions: Int
    let quick: Bool

    func run() throws {
        let n = quick ? 10_000 : 1_000_000
        let label = n == 1_000_000 ? "1M" : String(n)
        let template = try wordsTemplate(rows: n)
        let indexedPath = fixtures.path("words-\(n)-indexed.sqlite")
        let plainPath = fixtures.path("words-\(n)-plain.sqlite")
        for path in [indexedPath, plainPath] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try FileManager.default.copyItem(atPath: template, toPath: path)
        }
        print("")
        print("title words: n = \(n) subjects; the index of titles on one copy, none on the other; medians of \(repetitions)")
        // Built, then closed and opened again, so that the build's checkpoint does not run while searches are timed.
        let build = try Measurement.seconds { try ListStore.open(at: indexedPath).addTitleIndex() }
        print(pad("add the index of titles (build, once)", 44) + pad(Measurement.format(build), 12, right: true))
        let indexed = try ListStore.open(at: indexedPath)
        let plain = try ListStore.open(at: plainPath)
        print(
            pad("search, first page (limit 50)", 44) + pad("rows found", 12, right: true) + pad("total", 10, right: true) + pad("index", 12, right: true)
                + pad("scan", 12, right: true))
        func ordered(_ words: String, ranked: Bool) -> RowSearch {
            var search = RowSearch(titleWords: words)
            if ranked { search.ranked = true } else { search.inDisplayOrder = true }
            return search
        }
        let display = ordered("report 4242", ranked: false)
        let cases: [(String, RowSearch, RowSearch)] = [
            ("find title prefix \(label)", RowSearch(titleWords: "report 4242"), RowSearch(titleContains: "#4242")),
            ("find title prefix \(label), common word", RowSearch(titleWords: "inv"), RowSearch(titleContains: "inv")),
            ("find title prefix \(label), one letter", RowSearch(titleWords: "m"), RowSearch(titleContains: "m")),
            ("find title prefix \(label), display order", display, RowSearch(titleContains: "#4242")),
            ("find title ranked \(label)", ordered("report 4242", ranked: true), RowSearch(titleContains: "#4242")),
            ("common word, display order", ordered("inv", ranked: false), RowSearch(titleContains: "inv")),
            ("find title ranked \(label), common word", ordered("inv", ranked: true), RowSearch(titleContains: "inv")),
            ("find title substring \(label)", RowSearch(titleWords: "京都会"), RowSearch(titleContains: "京都会")),
            ("find title substring \(label), one character", RowSearch(titleWords: "議"), RowSearch(titleContains: "議")),
        ]
        for (name, words, scan) in cases {
            var found = 0
            var total = 0
            let indexTimes = try (0..<repetitions).map { _ in
                try Measurement.seconds {
                    let page = try indexed.findRows(words, limit: 50)
                    found = page.results.count
                    total = page.total ?? -1
                }
            }
            var scanned = 0
            let scanTimes = try (0..<repetitions).map { _ in try Measurement.seconds { scanned = try plain.findRows(scan, limit: 50).results.count } }
            guard found > 0, scanned > 0 else { throw BenchmarkFailure("\(name) found \(found) rows, the scan \(scanned)") }
            print(
                pad(name, 44) + pad(String(found), 12, right: true) + pad(String(total), 10, right: true)
                    + pad(Measurement.format(Measurement.median(indexTimes)), 12, right: true) + pad(Measurement.format(Measurement.median(scanTimes)), 12, right: true))
        }
        try edits(n: n, indexed: indexed, plain: plain)
        let db = try Connection(path: indexedPath, mode: .readOnly)
        let titleBytes = Double(try db.scalarInt("SELECT sum(length(CAST(title AS BLOB))) FROM rows") ?? 0)
        let indexBytes = Double(try db.scalarInt("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'liststore_title_words%'") ?? 0)
        let fileBytes = Double(try db.scalarInt("SELECT sum(pgsize) FROM dbstat") ?? 0)
        print(
            pad("index of titles / titles' bytes", 44)
                + pad(String(format: "%.1f MB / %.1f MB = %.2f× (file %.1f MB)", indexBytes / 1e6, titleBytes / 1e6, indexBytes / titleBytes, fileBytes / 1e6), 58, right: true))
    }

    /// 1,024 one-row inserts and 256 retitles in the middle of each copy, one on each in turn.
    private func edits(n: Int, indexed: ListStore, plain: ListStore) throws {
        let stores = [plain, indexed]
        var ids: [RowID] = []
        for store in stores {
            let (id, _) = try store.insertRow(NewRow(title: "Re: budget travel #new"), intoSection: 0, at: n / 2)  // untimed: makes the -wal
            ids.append(id)
        }
        var inserts: [[Double]] = [[], []]
        var retitles: [[Double]] = [[], []]
        for round in 0..<1_024 {
            for (which, store) in stores.enumerated() {
                inserts[which].append(try Measurement.seconds { _ = try store.insertRow(NewRow(title: "Re: budget travel #\(round)"), intoSection: 0, at: n / 2) })
                if round % 4 == 0 {
                    let title = "Fwd: lunch review #\(round) 会議"
                    retitles[which].append(try Measurement.seconds { _ = try store.updateRow(id: ids[which], title: title) })
                }
            }
        }
        print(pad("one-row edit (interleaved)", 44) + pad("no index", 12, right: true) + pad("index", 12, right: true) + pad("cost", 10, right: true))
        for (name, times) in [("insert one row: median of 1,024", inserts), ("retitle one row: median of 256", retitles)] {
            let medians = times.map { Measurement.median($0) }
            print(
                pad(name, 44) + pad(Measurement.format(medians[0]), 12, right: true) + pad(Measurement.format(medians[1]), 12, right: true)
                    + pad(String(format: "%+.0f%%", (medians[1] / medians[0] - 1) * 100), 10, right: true))
        }
        let means = inserts.map { $0.reduce(0, +) / Double($0.count) }
        print(
            pad("insert one row: mean of 1,024", 44) + pad(Measurement.format(means[0]), 12, right: true) + pad(Measurement.format(means[1]), 12, right: true)
                + pad(String(format: "%+.0f%%", (means[1] / means[0] - 1) * 100), 10, right: true))
    }

    /// A mailbox's subject for row `i`: a prefix, two of twenty words, a number, and three of twenty Chinese
    /// characters (a run of them, as Chinese is written).
    static func subject(_ i: Int) -> String {
        let words = [
            "meeting", "invoice", "report", "lunch", "travel", "budget", "project", "review", "draft", "update", "schedule", "contract", "offer",
            "party", "ticket", "delivery", "order", "newsletter", "photos", "notes",
        ]
        let hanzi = Array("法師魔使東京都会議資料報告予算計画出張昼食旅行")
        let prefix = ["Re: ", "Fwd: ", "", "", ""][i % 5]
        let han = String([hanzi[i % 20], hanzi[(i / 20) % 20], hanzi[(i / 400) % 20]])
        return "\(prefix)\(words[i % 20]) \(words[(i / 20) % 20]) #\(i) \(han)"
    }

    /// A store of `rows` rows titled ``subject(_:)`` in one section, made once.
    private func wordsTemplate(rows: Int) throws -> String {
        try fixtures.oneSectionTemplate("words-\(rows).sqlite", rows: rows) { NewRow(title: Self.subject($0)) }
    }
}
