import CBaseline
import Foundation
import ListStore
import StoreShorthands

/// `--loop NAME [ROWS] [COUNT]`: one operation repeated on one open store (and the physical limit's
/// query on the plain file), for a profiler (`perf record`, `valgrind --tool=callgrind`) or a quick
/// look at one row of the table: prints the median of each side. NAME is `read` (50 rows at n/2),
/// `index-path` (of the middle row's id), `delete` (1,000 scattered rows, on a copy each time, warm:
/// the file's pages read once before the timed delete), `insert` (one row in the middle), or
/// `read-after-commit` / `index-path-after-commit` (each read the first after another connection's
/// commit); `empty` (a read transaction that reads nothing) and `count` (a section's checked count) time
/// a read's fixed costs; ReadLoops.swift has more reads. `LISTSTORE_BENCH_KEEP=PREFIX` keeps copies of the two fixtures at PREFIX.*, `LISTSTORE_BENCH_REUSE=PREFIX` uses them instead of building;
/// `LISTSTORE_BENCH_CPU=1` prints each delete's wall and CPU time.
struct ProfileLoop {
    let fixtures: Fixtures
    let name: String
    let rows: Int
    let count: Int

    /// This process's CPU time so far (user and system), in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
            getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
            getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// `--loop bulk`: ROWS rows inserted in one call into an empty store, and the C bulk insert into an
    /// empty plain file, in turn, each on a fresh copy; the store and the plain file closed
    /// untimed.
    private func bulkLoop() throws {
        let ours = try fixtures.template(rows: 0)
        let plain = try fixtures.plainTemplate(rows: 0, layout: .oneSection, empty: true)
        var listStore: [Double] = []
        var limit: [Double] = []
        for _ in 0..<count {
            do {
                let store = try ListStore.open(at: try fixtures.copy(ours, to: "work-bulk.sqlite"))
                _ = try store.sectionCount()
                let rows = (0..<self.rows).map { NewRow(title: "row \($0)") }
                listStore.append(try Measurement.seconds { _ = try store.insertRows(rows, intoSection: 0) })
            }
            let plainPath = try fixtures.copy(plain, to: "work-bulk-plain.sqlite")
            guard let db = baseline_open(plainPath) else { throw BenchmarkFailure("cannot open \(plainPath)") }
            defer { baseline_close(db) }
            limit.append(Measurement.seconds { _ = baseline_bulk_insert(db, 1, Int32(rows)) })
        }
        print(
            String(
                format: "bulk insert of %d rows, median of %d: ListStore %.1f ms, limit %.1f ms, %.2fx", rows, count,
                Measurement.median(listStore) * 1e3, Measurement.median(limit) * 1e3, Measurement.median(listStore) / Measurement.median(limit)))
    }

    /// One timed read on each side: a page of 50 rows at `middle` (`pageRead`), else the index path of
    /// the middle row (`id` in ListStore's file, `plainID` in the plain one).
    static func timeRead(
        pageRead: Bool, _ store: ListStore, _ db: OpaquePointer, middle: Int, id: RowID, plainID: Int64
    ) throws -> (listStore: Double, limit: Double) {
        if pageRead {
            var read: Int32 = 0
            return (
                try Measurement.seconds { _ = try store.rows(inSection: 0, range: middle..<middle + 50) },
                Measurement.seconds { _ = baseline_read_page(db, 1, Int64(middle), 50, &read) }
            )
        }
        var section: Int64 = 0
        var row: Int64 = 0
        return (
            try Measurement.seconds { _ = try store.indexPath(of: id) },
            Measurement.seconds { _ = baseline_index_path(db, plainID, &section, &row) }
        )
    }

    func run() throws {
        if name == "bulk" { return try bulkLoop() }
        // LISTSTORE_BENCH_REUSE=PREFIX: fixtures an earlier run kept (LISTSTORE_BENCH_KEEP), not built again
        // (for a run under valgrind, where building a million rows would take minutes).
        let reused = ProcessInfo.processInfo.environment["LISTSTORE_BENCH_REUSE"]
        let ours = try reused.map { $0 + ".liststore.sqlite" } ?? fixtures.template(rows: rows)
        let plain = try reused.map { $0 + ".plain.sqlite" } ?? fixtures.plainTemplate(rows: rows, layout: .oneSection)
        let middle = rows / 2
        if let keep = ProcessInfo.processInfo.environment["LISTSTORE_BENCH_KEEP"] {  // the fixtures, to look at by hand
            try? FileManager.default.copyItem(atPath: ours, toPath: keep + ".liststore.sqlite")
            try? FileManager.default.copyItem(atPath: plain, toPath: keep + ".plain.sqlite")
        }
        var listStore: [Double] = []
        var limit: [Double] = []
        switch name {
        case "read", "index-path", "empty", "count":
            let store = try ListStore.open(at: ours, mode: .readOnly)
            guard let db = baseline_open(plain) else { throw BenchmarkFailure("cannot open \(plain)") }
            defer { baseline_close(db) }
            let id = try store.row(at: ListIndexPath(section: 0, row: middle)).id
            var plainID: Int64 = 0
            _ = baseline_row_id_at(db, 1, Int64(middle), &plainID)
            for _ in 0..<count {
                if name == "empty" {
                    listStore.append(try Measurement.seconds { _ = try store.read { _ in 0 } })
                    limit.append(
                        Measurement.seconds {
                            var sections: Int64 = 0
                            _ = baseline_section_count(db, &sections)
                        })
                } else if name == "count" {
                    listStore.append(try Measurement.seconds { _ = try store.rowCount(inSection: 0) })
                    limit.append(
                        Measurement.seconds {
                            var sections: Int64 = 0
                            _ = baseline_section_count(db, &sections)
                        })
                } else {
                    let (ours, theirs) = try Self.timeRead(pageRead: name == "read", store, db, middle: middle, id: id, plainID: plainID)
                    listStore.append(ours)
                    limit.append(theirs)
                }
            }
        case "delete", "insert":
            for _ in 0..<count {
                let path = try fixtures.copy(ours, to: "work-loop.sqlite")
                let store = try ListStore.open(at: path)
                let (step, scattered) = Operation.scattered(rows)
                let paths = (0..<scattered).map { ListIndexPath(section: 0, row: $0 * step) }
                if name == "delete" {
                    _ = try store.read { reader in try paths.map { try reader.row(at: $0) } }  // warm: the pages the delete visits
                    _ = try store.insertRow("warm", intoSection: 0, at: rows - 1)  // the -wal created before timing
                    let cpu = Self.cpuSeconds()
                    let wall = try Measurement.seconds { _ = try store.deleteRows(at: paths) }
                    listStore.append(wall)
                    if ProcessInfo.processInfo.environment["LISTSTORE_BENCH_CPU"] != nil {
                        let walPages = ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0) / 4_120
                        print(String(format: "  wall %.1f ms, cpu %.1f ms, -wal %d frames", wall * 1e3, (Self.cpuSeconds() - cpu) * 1e3, walPages))
                    }
                } else {
                    _ = try store.insertRow("warm", intoSection: 0, at: middle)
                    listStore.append(try Measurement.seconds { _ = try store.insertRow("new row", intoSection: 0, at: middle) })
                }
                let plainPath = try fixtures.copy(plain, to: "work-loop-plain.sqlite")
                guard let db = baseline_open(plainPath) else { throw BenchmarkFailure("cannot open \(plainPath)") }
                defer { baseline_close(db) }
                if name == "delete" {
                    var id: Int64 = 0
                    for index in 0..<scattered { _ = baseline_row_id_at(db, 1, Int64(index * step), &id) }
                    _ = limit_insert_one(db, 1)
                    limit.append(Measurement.seconds { _ = limit_delete_every(db, 1, Int32(step), Int32(scattered)) })
                } else {
                    _ = limit_insert_one(db, 1)
                    limit.append(Measurement.seconds { _ = limit_insert_one(db, 1) })
                }
            }
        case "read-after-commit", "index-path-after-commit":
            // Each read the first after another connection's commit: what the read connection
            // remembered of the pages and blocks is dropped and read again.
            let path = try fixtures.copy(ours, to: "work-loop.sqlite")
            let store = try ListStore.open(at: path)
            let writer = try ListStore.open(at: path)
            guard let db = baseline_open(plain) else { throw BenchmarkFailure("cannot open \(plain)") }
            defer { baseline_close(db) }
            let id = try store.row(at: ListIndexPath(section: 0, row: middle)).id
            var plainID: Int64 = 0
            _ = baseline_row_id_at(db, 1, Int64(middle), &plainID)
            for step in 0..<count {
                _ = try writer.insertRow("w\(step)", intoSection: 0, at: rows)  // appended: the middle stays put
                let (ours, theirs) = try Self.timeRead(pageRead: name == "read-after-commit", store, db, middle: middle, id: id, plainID: plainID)
                listStore.append(ours)
                limit.append(theirs)
            }
        case "edits":
            (listStore, limit) = try HistoryRows.editLoop(fixtures: fixtures, ours: ours, plain: plain, rows: rows, count: count)
        case _ where ReadLoops.names.contains(name):
            (listStore, limit) = try ReadLoops(fixtures: fixtures, name: name, rows: rows, count: count).run()
        default:
            throw BenchmarkFailure(
                "--loop takes read, index-path, read-after-commit, index-path-after-commit, delete, insert, bulk, edits or " + ReadLoops.names.joined(separator: ", "))
        }
        let ours50 = Measurement.median(listStore)
        let limit50 = Measurement.median(limit)
        print(
            "\(name) at n = \(rows), median of \(count): ListStore \(Measurement.format(ours50)), limit \(Measurement.format(limit50)), "
                + String(format: "%.2fx", ours50 / limit50))
    }
}
