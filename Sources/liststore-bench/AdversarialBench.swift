import CBaseline
import Foundation
import ListStore

/// `--adversarial`: the time of every one of 100,000 inserts at one index (and alternating between two
/// neighbours) into a section of n rows — the distribution, not only the median (issue 18: every
/// operation within 3× of its median). Timed two ways: each insert its own write (what an app sees,
/// commits included) and 10,000 inserts per transaction (the positions engine alone), each against the
/// physical limit: the same number of INSERTs into the plain table at one spot of its index, nothing
/// renumbered (`limit_hot_spot` in `Sources/CBaseline/baseline.c`).
///
/// Every pattern runs `runs` times, each on a fresh copy of the same fixture. The i-th insert does the
/// same work in every run (the same rows, ids, keys, blocks and B-tree pages), while what the machine
/// does meanwhile — another process on the core, an interrupt, the disk — falls on other inserts each
/// time. So the table gives two distributions: one run's, and each insert's least time over the runs,
/// which keeps what the insert itself costs (the positions engine's room-making and SQLite's page
/// splits alike) and drops most of what the machine added.
struct AdversarialBench {
    let fixtures: Fixtures
    let rows: Int
    let inserts: Int
    /// How many times each pattern runs (5; 2 with `--quick`): the more runs, the likelier that one of them
    /// finds the machine quiet for any given insert.
    let runs: Int

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

    func run() throws {
        print(
            "adversarial: \(inserts) single-row inserts at index 1 (or at 1 and 2 in turn) into one section of \(rows) rows, every insert timed, "
                + "\(runs) runs on fresh copies; \"least of \(runs)\": each insert's least time over the runs")
        print(
            pad("side, pattern", 32) + pad("timed as", 20) + pad("over", 12) + pad("median", 11, right: true) + pad("p99", 9, right: true)
                + pad("p99.9", 9, right: true) + pad("max", 9, right: true) + pad("> 3× median", 13, right: true))
        var slowest: [(String, [Double])] = []
        for eachOwnWrite in [true, false] {
            for side in [Side.listStore(alternating: false), .listStore(alternating: true), .limit] {
                var timed: [[Double]] = []
                for _ in 0..<runs { timed.append(try times(side, eachOwnWrite: eachOwnWrite)) }
                let least = (0..<inserts).map { step in timed.reduce(Double.infinity) { Swift.min($0, $1[step]) } }
                for (over, times) in [("one run", timed.first ?? []), ("least of \(runs)", least)] {
                    print(
                        pad(side.name, 32) + pad(eachOwnWrite ? "each its own write" : "10,000 per write", 20) + pad(over, 12)
                            + Self.distribution(times))
                }
                slowest.append((side.name + ", " + (eachOwnWrite ? "each its own write" : "10,000 per write"), least))
            }
        }
        print("inserts whose least of \(runs) is above 3× its median:")
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

    /// Each insert's seconds, in order, on a fresh copy of the side's fixture. One more insert runs first,
    /// untimed, as the main table's single-row edits do: the connection's first insert prepares its statements.
    private func times(_ side: Side, eachOwnWrite: Bool) throws -> [Double] {
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
            return Array(seconds.dropFirst())
        case .listStore(let alternating):
            let path = try fixtures.copy(try fixtures.template(rows: rows), to: "work-adversarial.sqlite")
            let store = try ListStore.open(at: path)
            var times: [Double] = []
            times.reserveCapacity(inserts + 1)
            func index(_ step: Int) -> Int { alternating && step % 2 == 1 ? 2 : 1 }
            let inserts = self.inserts + 1
            if eachOwnWrite {
                for step in 0..<inserts {
                    let start = DispatchTime.now().uptimeNanoseconds
                    _ = try store.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step))
                    times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                }
            } else {
                var made = 0
                while made < inserts {
                    let chunk = min(10_000, inserts - made)
                    try store.writeUntracked { transaction in
                        for step in made..<(made + chunk) {
                            let start = DispatchTime.now().uptimeNanoseconds
                            _ = try transaction.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step))
                            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                        }
                    }
                    made += chunk
                }
            }
            guard try store.checkInvariants().isEmpty else { throw BenchmarkFailure("the adversarial inserts left problems") }
            return Array(times.dropFirst())
        }
    }
}
