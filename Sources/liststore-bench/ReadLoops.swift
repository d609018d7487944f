import CBaseline
import Foundation
import ListStore
import StoreShorthands

/// More `--loop` reads (ProfileLoop.swift): `read-end` (50 rows at n-50), `index-path-sections` (the
/// middle id of the middle section of n rows over 1,000 sections), and `read-after-commit-both` /
/// `index-path-after-commit-both` — each read the first after another connection's commit, on both
/// sides: the limit's plain file gets a commit (one appended row) by a second connection before each of
/// its reads too, so both pay for SQLite dropping its page cache when another connection committed.
struct ReadLoops {
    let fixtures: Fixtures
    let name: String
    let rows: Int
    let count: Int

    static let names = ["read-end", "index-path-sections", "read-after-commit-both", "index-path-after-commit-both"]

    /// Each side's timings, in seconds.
    func run() throws -> (listStore: [Double], limit: [Double]) {
        let layout: Layout = name == "index-path-sections" ? .manySections : .oneSection
        let sections = layout.sectionCount(rows: rows)
        let target = Target(n: rows, rowsPerSection: rows / sections, section: sections / 2, otherSection: sections / 4)
        let afterCommit = name.hasSuffix("-both")
        let ours = try fixtures.template(rows: rows, layout: layout)
        let plain = try fixtures.plainTemplate(rows: rows, layout: layout)
        let oursPath = afterCommit ? try fixtures.copy(ours, to: "work-loop.sqlite") : ours
        let plainPath = afterCommit ? try fixtures.copy(plain, to: "work-loop-plain.sqlite") : plain
        let store = try ListStore.open(at: oursPath, mode: afterCommit ? .readWrite : .readOnly)
        let writer = afterCommit ? try ListStore.open(at: oursPath) : nil
        guard let db = baseline_open(plainPath) else { throw BenchmarkFailure("cannot open \(plainPath)") }
        defer { baseline_close(db) }
        let plainWriter = afterCommit ? baseline_open(plainPath) : nil
        defer { if let plainWriter { baseline_close(plainWriter) } }
        let start = name.hasPrefix("read-end") ? max(0, target.rowsPerSection - 50) : target.middle
        let id = try store.row(at: ListIndexPath(section: target.section, row: target.middle)).id
        var plainID: Int64 = 0
        _ = baseline_row_id_at(db, target.sectionID, Int64(target.middle), &plainID)
        let pageRead = name.hasPrefix("read")
        var listStore: [Double] = []
        var limit: [Double] = []
        for step in 0..<count {
            if let writer, let plainWriter {
                _ = try writer.insertRow("w\(step)", intoSection: target.section)  // appended: the rows read stay put
                _ = limit_insert_one(plainWriter, target.sectionID)
            }
            if pageRead {
                var read: Int32 = 0
                listStore.append(try Measurement.seconds { _ = try store.rows(inSection: target.section, range: start..<start + 50) })
                limit.append(Measurement.seconds { _ = baseline_read_page(db, target.sectionID, Int64(start), 50, &read) })
            } else {
                var section: Int64 = 0
                var row: Int64 = 0
                listStore.append(try Measurement.seconds { _ = try store.indexPath(of: id) })
                limit.append(Measurement.seconds { _ = baseline_index_path(db, plainID, &section, &row) })
            }
        }
        return (listStore, limit)
    }
}
