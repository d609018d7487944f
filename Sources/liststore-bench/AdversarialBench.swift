import CBaseline
import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands

/// `--adversarial`: 100,000 inserts at one index (and alternating between two neighbours) into a section
/// of n rows, two ways: each insert its own write (what an app sees, commits included) and 10,000 inserts
/// per transaction (the positions engine alone).
///
/// **Rows written** (the target, issue 32 item 3): for every insert, the rows of `rows`, `row_blocks` and
/// `row_pages` it inserted, updated or deleted, counted statement by statement (each INSERT, UPDATE and
/// DELETE the writer connection ran, with `sqlite3_changes64` at its end: ``StatementRecorder``'s
/// profiling; the writer runs with triggers off, so every write is one of its own statements). For each
/// insert made as its own write, the counts of all tables must add up to the writer's
/// `sqlite3_total_changes64` difference, or the benchmark fails (a write the count missed). The most any
/// insert writes must stay within ``rowsWrittenBound``, or the benchmark fails.
///
/// **Time**, as well: every insert timed, each pattern `runs` times on fresh copies of the same fixture,
/// against the physical limit (the same number of INSERTs into the plain table at one spot of its index,
/// nothing renumbered: `limit_hot_spot` in `Sources/CBaseline/baseline.c`). The i-th insert does the same
/// work in every run, so "least of N" (each insert's least time over the runs) keeps what the insert
/// costs and drops most of what the machine added meanwhile. For ListStore's own writes, the commits that
/// ran SQLite's automatic checkpoint (those after which the main file was written: in WAL mode only a
/// checkpoint writes it) are set against the others: what running the checkpoint inside a commit costs.
struct AdversarialBench {
    let fixtures: Fixtures
    let rows: Int
    let inserts: Int
    /// How many times each pattern is timed (5; 2 with `--quick`).
    let runs: Int

    /// The most rows of `rows`, `row_blocks` and `row_pages` that one single-row insert at a hot spot may
    /// write, from the positions engine (`Sources/ListStore/Positions`; the writer's triggers are off, so
    /// these are all its own statements):
    /// - 3: the row's INSERT, and its block's and page's counts (`RowBlocks.count`);
    /// - 4: a block split (the block's count and the new block: `RowBlocks.split(blockAt:count:…)`) and the
    ///   page split it may cause (the page's count and the new page: `splitPage`); rows never move in a split;
    /// - 27: at most one refill before the insert (`SectionRows.refill`): the neighbour and at most
    ///   `RowSpacing.refillRows` (8) rows past it, 9 rows, and the starts of the blocks among them, each
    ///   with the page starting there (`shiftStarts`: 2 rows each). Every such block's first row is one of
    ///   the shifted rows, so there are at most 9: 9 + 18.
    /// A hot spot takes no other path: the room is refilled before it runs out, so no block is respaced
    /// (which rewrites up to a block, 128 rows) and no section rebuilt.
    static let rowsWrittenBound = 3 + 4 + 9 + 2 * 9

    private enum Side {
        case listStore(alternating: Bool)
        case limit

        var name: String {
            switch self {
            case .listStore(let alternating): alternating ? "ListStore, alternating 1 and 2" : "ListStore, at index 1"
            case .limit: "limit, at one spot"
            }
        }
    }

    /// One timed run of a pattern: each insert's seconds and, for ListStore's own writes, whether its
    /// commit wrote the main file (ran a checkpoint).
    private struct TimedRun {
        var seconds: [Double]
        var checkpointed: [Bool]
    }

    /// The positions tables, whose writes the bound is about.
    private static let positionTables: Set<String> = ["rows", "row_blocks", "row_pages"]

    func run() throws {
        try countRowsWritten()
        try timeInserts()
    }

    // MARK: Rows written

    private func countRowsWritten() throws {
        print(
            "adversarial: \(inserts) single-row inserts at index 1 (or at 1 and 2 in turn) into one section of \(rows) rows; "
                + "rows written per insert to rows, row_blocks and row_pages (inserted + updated + deleted, every statement counted), bound \(Self.rowsWrittenBound)")
        print(
            pad("side, pattern", 32) + pad("written as", 20) + pad("median", 8, right: true) + pad("p99", 6, right: true) + pad("max", 6, right: true)
                + pad("mean", 7, right: true) + pad("inserts at max", 16, right: true) + pad("other tables", 14, right: true) + "  bound")
        var exceeded: [String] = []
        for eachOwnWrite in [true, false] {
            for alternating in [false, true] {
                let (positions, other) = try rowsWritten(alternating: alternating, eachOwnWrite: eachOwnWrite)
                let sorted = positions.sorted()
                let worst = sorted.last ?? 0
                let mean = Double(positions.reduce(0, +)) / Double(max(1, positions.count))
                let otherRange = other.isEmpty ? "" : "\(other.min() ?? 0)–\(other.max() ?? 0)"
                let verdict = worst <= Self.rowsWrittenBound ? "held" : "EXCEEDED"
                print(
                    pad(Side.listStore(alternating: alternating).name, 32) + pad(eachOwnWrite ? "each its own write" : "10,000 per write", 20)
                        + pad("\(sorted[sorted.count / 2])", 8, right: true) + pad("\(sorted[sorted.count * 99 / 100])", 6, right: true)
                        + pad("\(worst)", 6, right: true) + pad(String(format: "%.2f", mean), 7, right: true)
                        + pad("\(positions.filter { $0 == worst }.count)", 16, right: true) + pad(otherRange, 14, right: true) + "  " + verdict)
                if worst > Self.rowsWrittenBound {
                    let steps = positions.indices.filter { positions[$0] > Self.rowsWrittenBound }
                    exceeded.append(
                        "\(Side.listStore(alternating: alternating).name), \(eachOwnWrite ? "each its own write" : "10,000 per write"): "
                            + "\(steps.count) inserts above \(Self.rowsWrittenBound) (#\(steps.prefix(5).map(String.init).joined(separator: ", #")))")
                }
            }
        }
        print("(\"other tables\": what each insert also wrote elsewhere, least–most: the section's count; as its own write, the history and change log too)")
        if !exceeded.isEmpty {
            throw BenchmarkFailure("rows written per insert above the bound of \(Self.rowsWrittenBound): " + exceeded.joined(separator: "; "))
        }
    }

    /// For each insert (the untimed first one left out), the rows it wrote to the positions tables and to
    /// the others, on a fresh copy of the fixture, every statement of the writer profiled.
    private func rowsWritten(alternating: Bool, eachOwnWrite: Bool) throws -> (positions: [Int], other: [Int]) {
        // A folder of its own: only the connections opened there are profiled.
        let folder = fixtures.path("work-counted")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = try fixtures.copy(try fixtures.template(rows: rows), to: "work-counted/adversarial.sqlite")
        StatementRecorder.start(folder: folder, profiling: true)
        defer { StatementRecorder.stop(folder: folder) }
        let store = try ListStore.open(at: path)
        func index(_ step: Int) -> Int { alternating && step % 2 == 1 ? 2 : 1 }
        var positions: [Int] = []
        var other: [Int] = []
        positions.reserveCapacity(inserts + 1)
        other.reserveCapacity(inserts + 1)
        func tally() {
            var (inPositions, elsewhere) = (0, 0)
            for statement in StatementRecorder.takeProfiled(folder: folder) {
                guard let table = Self.writtenTable(statement.sql) else { continue }
                if Self.positionTables.contains(table) { inPositions += statement.changes } else { elsewhere += statement.changes }
            }
            positions.append(inPositions)
            other.append(elsewhere)
        }
        if eachOwnWrite {
            for step in 0...inserts {
                _ = StatementRecorder.takeProfiled(folder: folder)
                let before = try store.writerTotalChanges()
                _ = try store.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step))
                let total = try store.writerTotalChanges() - before
                tally()
                guard let written = positions.last, let elsewhere = other.last, written + elsewhere == total else {
                    throw BenchmarkFailure(
                        "insert #\(step): the statements counted \(positions.last ?? 0) + \(other.last ?? 0) rows written, sqlite3_total_changes64 \(total)")
                }
            }
        } else {
            var made = 0
            while made <= inserts {
                let chunk = min(10_000, inserts + 1 - made)
                try store.write(tracksChanges: false) { transaction in
                    for step in made..<(made + chunk) {
                        _ = StatementRecorder.takeProfiled(folder: folder)
                        _ = try transaction.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step))
                        tally()
                    }
                }
                made += chunk
            }
        }
        guard try store.checkInvariants().isEmpty else { throw BenchmarkFailure("the counted inserts left problems") }
        return (Array(positions.dropFirst()), Array(other.dropFirst()))
    }

    /// The table an INSERT, UPDATE or DELETE writes (lowercased, without quotes or schema), or nil for
    /// any other statement.
    static func writtenTable(_ sql: String) -> String? {
        let words = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" }).map { $0.lowercased() }
        guard let first = words.first else { return nil }
        let at: Int?
        switch first {
        case "insert", "replace": at = words.firstIndex(of: "into").map { $0 + 1 }
        case "update": at = words.count > 1 && words[1] == "or" ? 3 : 1
        case "delete": at = 2
        default: at = nil
        }
        guard let at, words.indices.contains(at) else { return nil }
        let name = words[at].split(separator: ".").last.map(String.init) ?? words[at]
        return name.trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
    }

    // MARK: Time

    private func timeInserts() throws {
        print(
            "\nadversarial, timed: every insert timed, \(runs) runs on fresh copies; \"least of \(runs)\": each insert's least time over the runs")
        print(
            pad("side, pattern", 32) + pad("timed as", 20) + pad("over", 12) + pad("median", 11, right: true) + pad("p99", 9, right: true)
                + pad("p99.9", 9, right: true) + pad("max", 9, right: true) + pad("> 3× median", 13, right: true))
        var checkpointLines: [String] = []
        var slowest: [(String, [Double])] = []
        for eachOwnWrite in [true, false] {
            for side in [Side.listStore(alternating: false), .listStore(alternating: true), .limit] {
                var timed: [TimedRun] = []
                for _ in 0..<runs { timed.append(try times(side, eachOwnWrite: eachOwnWrite)) }
                let least = (0..<inserts).map { step in timed.reduce(Double.infinity) { Swift.min($0, $1.seconds[step]) } }
                for (over, times) in [("one run", timed.first?.seconds ?? []), ("least of \(runs)", least)] {
                    print(
                        pad(side.name, 32) + pad(eachOwnWrite ? "each its own write" : "10,000 per write", 20) + pad(over, 12)
                            + Self.distribution(times))
                }
                if eachOwnWrite, case .listStore = side { checkpointLines.append(Self.checkpointCost(side.name, timed)) }
                slowest.append((side.name + ", " + (eachOwnWrite ? "each its own write" : "10,000 per write"), least))
            }
        }
        print(
            "commits that ran SQLite's automatic checkpoint (the main file written), each its own write, over all \(runs) runs; "
                + "ratios to the median of the other commits (neither checkpointing nor right after one):")
        for line in checkpointLines { print("  " + line) }
        print("inserts whose least of \(runs) is above 3× its median (numbered from 0):")
        for (name, least) in slowest { print("  \(name): \(Self.slowestSteps(least))") }
    }

    /// The timed inserts (numbered from 0) whose least time is above 3× the median, the slowest first (at most 12):
    /// where what is left of the tail falls.
    private static func slowestSteps(_ least: [Double]) -> String {
        let median = least.sorted()[least.count / 2]
        let above = least.indices.filter { least[$0] > 3 * median }.sorted { least[$0] > least[$1] }
        guard !above.isEmpty else { return "none" }
        return above.prefix(12).map { "#\($0) \(String(format: "%.1f×", least[$0] / median))" }.joined(separator: ", ")
            + (above.count > 12 ? ", … (\(above.count) in all)" : "")
    }

    /// The checkpointing commits against the others: how many a run, their median and most, the commit
    /// right after each (which starts the `-wal` again from its beginning, syncing its new header first),
    /// and the slowest commit.
    private static func checkpointCost(_ name: String, _ timed: [TimedRun]) -> String {
        var checkpointing: [Double] = []
        var next: [Double] = []
        var usual: [Double] = []
        for run in timed {
            for step in run.seconds.indices {
                if run.checkpointed[step] {
                    checkpointing.append(run.seconds[step])
                } else if step > 0, run.checkpointed[step - 1] {
                    next.append(run.seconds[step])
                } else {
                    usual.append(run.seconds[step])
                }
            }
        }
        let usualMedian = Measurement.median(usual)
        let slowest = (checkpointing + next + usual).max() ?? .nan
        let perRun = Double(checkpointing.count) / Double(max(1, timed.count))
        func ratio(_ value: Double) -> String { String(format: "%.1f×", value / usualMedian) }
        let sorted = usual.sorted()
        let usualTail = sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, sorted.count * 999 / 1000)]
        let others =
            "the other commits' median \(Measurement.format(usualMedian)), p99.9 \(Measurement.format(usualTail)) (\(ratio(usualTail))); "
            + "slowest commit \(String(format: "%.2f ms", slowest * 1e3)) (\(ratio(slowest)))"
        guard !checkpointing.isEmpty else { return "\(name): none; " + others }
        return "\(name): \(String(format: "%.0f", perRun)) a run (1 commit in \(String(format: "%.0f", Double(timed.first?.seconds.count ?? 0) / max(1, perRun)))), "
            + "median \(Measurement.format(Measurement.median(checkpointing))) (\(ratio(Measurement.median(checkpointing)))), "
            + "max \(Measurement.format(checkpointing.max() ?? .nan)) (\(ratio(checkpointing.max() ?? .nan))); "
            + "the commit after each, median \(Measurement.format(Measurement.median(next))) (\(ratio(Measurement.median(next)))); " + others
    }

    /// Median, p99, p99.9 and max (as multiples of the median), and the share above 3× the median.
    private static func distribution(_ times: [Double]) -> String {
        let sorted = times.sorted()
        guard let worst = sorted.last else { return "" }
        let median = sorted[sorted.count / 2]
        func ratio(_ value: Double) -> String { String(format: "%.1f×", value / median) }
        let above = times.filter { $0 > 3 * median }.count
        return pad(Measurement.format(median), 11, right: true) + pad(ratio(sorted[sorted.count * 99 / 100]), 9, right: true)
            + pad(ratio(sorted[sorted.count * 999 / 1000]), 9, right: true) + pad(ratio(worst), 9, right: true)
            + pad(String(format: "%.2f%%", Double(above) * 100 / Double(times.count)), 13, right: true)
    }

    /// The main file's modification time and size: in WAL mode only a checkpoint writes it.
    private static func mainFileStamp(_ path: String) -> [Int64] {
        var info = stat()
        guard stat(path, &info) == 0 else { return [] }
        #if canImport(Darwin)
            return [Int64(info.st_mtimespec.tv_sec), Int64(info.st_mtimespec.tv_nsec), Int64(info.st_size)]
        #else
            return [Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_size)]
        #endif
    }

    /// Each insert's seconds, in order, on a fresh copy of the side's fixture. One more insert runs first,
    /// untimed, as the main table's single-row edits do: the connection's first insert prepares its statements.
    private func times(_ side: Side, eachOwnWrite: Bool) throws -> TimedRun {
        switch side {
        case .limit:
            let path = try fixtures.copy(try fixtures.plainTemplate(rows: rows, layout: .oneSection), to: "work-adversarial-plain.sqlite")
            guard let db = baseline_open(path) else { throw BenchmarkFailure("the C baseline could not open \(path)") }
            defer { baseline_close(db) }
            var seconds = [Double](repeating: 0, count: inserts + 1)
            let code = seconds.withUnsafeMutableBufferPointer { buffer in
                limit_hot_spot(db, 1, Int64(inserts + 1), eachOwnWrite ? 1 : 10_000, buffer.baseAddress)
            }
            guard code == 0 else { throw BenchmarkFailure("the limit's hot-spot inserts failed: SQLite code \(code)") }
            return TimedRun(seconds: Array(seconds.dropFirst()), checkpointed: Array(repeating: false, count: inserts))
        case .listStore(let alternating):
            let path = try fixtures.copy(try fixtures.template(rows: rows), to: "work-adversarial.sqlite")
            let store = try ListStore.open(at: path)
            var times: [Double] = []
            var checkpointed: [Bool] = []
            times.reserveCapacity(inserts + 1)
            checkpointed.reserveCapacity(inserts + 1)
            func index(_ step: Int) -> Int { alternating && step % 2 == 1 ? 2 : 1 }
            let inserts = self.inserts + 1
            if eachOwnWrite {
                var stamp = Self.mainFileStamp(path)
                for step in 0..<inserts {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try store.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step))
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                    let now = Self.mainFileStamp(path)
                    checkpointed.append(now != stamp)
                    stamp = now
                }
            } else {
                var made = 0
                while made < inserts {
                    let chunk = min(10_000, inserts - made)
                    try store.write(tracksChanges: false) { transaction in
                        for step in made..<(made + chunk) {
                            let start = DispatchTime.now().uptimeNanoseconds
                            _ = try transaction.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step))
                            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                            checkpointed.append(false)
                        }
                    }
                    made += chunk
                }
            }
            guard try store.checkInvariants().isEmpty else { throw BenchmarkFailure("the adversarial inserts left problems") }
            return TimedRun(seconds: Array(times.dropFirst()), checkpointed: Array(checkpointed.dropFirst()))
        }
    }
}
