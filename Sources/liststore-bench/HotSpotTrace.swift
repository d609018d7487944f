import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands

/// `--loop hot-spot-trace [ROWS] [COUNT]`: `--adversarial`'s "each its own write" lines (COUNT inserts
/// at index 1, then at 1 and 2 in turn, into one section of ROWS rows, three runs on fresh copies),
/// with every statement each insert ran and its time by SQLite's own clock (`SQLITE_TRACE_PROFILE`,
/// through `StatementRecorder`'s profiling, which only this loop turns on). For each insert whose least
/// time over the runs is above 3× the median, prints what its fastest run ran that the median insert
/// does not: statements that took far longer than they usually do, statements other connections
/// ran meanwhile, and the time outside statements (the longest stretch, and
/// what followed it). `LISTSTORE_BENCH_PER_WRITE=N` times N inserts per write instead;
/// `LISTSTORE_BENCH_TIMELINE=1` prints every statement of each slow insert, with when it began;
/// `LISTSTORE_BENCH_STEPS=31,1591` prints those inserts instead of the slow ones.
struct HotSpotTrace {
    let fixtures: Fixtures
    let rows: Int
    let inserts: Int
    let runs = 3

    private struct Step {
        /// (statement number, nanoseconds, ran on another connection than the writer)
        var statements: [(sql: Int32, nanoseconds: Int64, other: Bool, endedAt: UInt64, rows: Int)]
        var start: UInt64
        var seconds: Double
    }

    private final class Names {
        var numbers: [String: Int32] = [:]
        var texts: [String] = []
        func number(_ sql: String) -> Int32 {
            if let number = numbers[sql] { return number }
            let number = Int32(texts.count)
            numbers[sql] = number
            texts.append(sql)
            return number
        }
    }

    func run() throws {
        let perWrite = ProcessInfo.processInfo.environment["LISTSTORE_BENCH_PER_WRITE"].flatMap { Int($0) } ?? 1
        let names = Names()
        let template = try fixtures.template(rows: rows)
        for alternating in [false, true] {
            var timed: [[Step]] = []
            for _ in 0..<runs { timed.append(try times(alternating: alternating, perWrite: perWrite, template: template, names)) }
            let least = (0..<inserts).map { step in timed.indices.min { timed[$0][step].seconds < timed[$1][step].seconds } ?? 0 }
            let seconds = (0..<inserts).map { timed[least[$0]][$0].seconds }
            let median = seconds.sorted()[inserts / 2]
            // Each statement's usual time, and the usual number of statements, over the first run.
            var usual: [Int32: [Int64]] = [:]
            for step in timed[0] { for entry in step.statements where !entry.other { usual[entry.sql, default: []].append(entry.nanoseconds) } }
            let usualTime = usual.mapValues { $0.sorted()[$0.count / 2] }
            let counts = timed[0].map { $0.statements.filter { !$0.other }.count }.sorted()
            let inStatements = timed[0].map { Double($0.statements.filter { !$0.other }.reduce(0) { $0 + $1.nanoseconds }) / 1e9 }.sorted()
            print(
                "\(alternating ? "alternating 1 and 2" : "at index 1"), \(perWrite) per write: median \(Measurement.format(median)) (least of \(runs)); "
                    + "the median insert runs \(counts[inserts / 2]) statements taking \(Measurement.format(inStatements[inserts / 2]))")
            let chosen = ProcessInfo.processInfo.environment["LISTSTORE_BENCH_STEPS"].map { $0.split(separator: ",").compactMap { Int($0) }.filter { $0 < inserts } }
            let slow = chosen ?? (0..<inserts).filter { seconds[$0] > 3 * median }.sorted { seconds[$0] > seconds[$1] }
            print("  \(slow.count) above 3×")
            for step in slow.prefix(40) {
                let fastest = timed[least[step]][step]
                let own = fastest.statements.filter { !$0.other }
                let ownTime = Double(own.reduce(0) { $0 + $1.nanoseconds }) / 1e9
                let others = fastest.statements.filter(\.other)
                print(
                    "  #\(step) \(String(format: "%.1f×", seconds[step] / median)) \(Measurement.format(fastest.seconds)): \(own.count) statements, "
                        + "\(Measurement.format(ownTime)) in them, \(Measurement.format(fastest.seconds - ownTime)) outside; the runs: "
                        + timed.map { Measurement.format($0[step].seconds) }.joined(separator: " "))
                if ProcessInfo.processInfo.environment["LISTSTORE_BENCH_TIMELINE"] != nil {
                    for entry in fastest.statements {
                        let began = Double(Int64(entry.endedAt) - entry.nanoseconds - Int64(fastest.start)) / 1e3
                        print(
                            "      at \(String(format: "%7.1f", began)) µs \(String(format: "%7.1f", Double(entry.nanoseconds) / 1e3)) µs \(entry.other ? "other " : "")"
                                + Self.short(names.texts[Int(entry.sql)]))
                    }
                }
                for entry in own {
                    let typical = usualTime[entry.sql] ?? 0
                    guard entry.nanoseconds > 20_000, entry.nanoseconds > 3 * typical else { continue }
                    print(
                        "      \(String(format: "%7.1f", Double(entry.nanoseconds) / 1e3)) µs (usually \(String(format: "%.1f", Double(typical) / 1e3))), \(entry.rows) rows "
                            + Self.short(names.texts[Int(entry.sql)]))
                }
                // The longest stretch between two of the writer's statements (or before the first, after the last).
                var previousEnd = fastest.start
                var gap: (nanoseconds: UInt64, before: String) = (0, "")
                for entry in own {
                    let began = entry.endedAt &- UInt64(entry.nanoseconds)
                    if began > previousEnd, began - previousEnd > gap.nanoseconds { gap = (began - previousEnd, names.texts[Int(entry.sql)]) }
                    previousEnd = entry.endedAt
                }
                let end = fastest.start + UInt64(fastest.seconds * 1e9)
                if end > previousEnd, end - previousEnd > gap.nanoseconds { gap = (end - previousEnd, "(the call's return)") }
                print("      longest stretch outside statements \(String(format: "%.1f", Double(gap.nanoseconds) / 1e3)) µs, before " + Self.short(gap.before))
                for entry in others {
                    let at = Double(Int64(entry.endedAt) - Int64(fastest.start)) / 1e3
                    print(
                        "      other connection \(String(format: "%7.1f", Double(entry.nanoseconds) / 1e3)) µs, ended at \(String(format: "%.1f", at)) µs "
                            + Self.short(names.texts[Int(entry.sql)]))
                }
            }
        }
    }

    private static func short(_ sql: String) -> String {
        let flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return flat.count > 150 ? String(flat.prefix(150)) + "…" : flat
    }

    private func times(alternating: Bool, perWrite: Int, template: String, _ names: Names) throws -> [Step] {
        let folder = fixtures.directory.path
        let path = try fixtures.copy(template, to: "work-hot-spot-trace.sqlite")
        StatementRecorder.start(folder: folder, profiling: true)
        defer { StatementRecorder.stop(folder: folder) }
        let store = try ListStore.open(at: path)
        var steps: [Step] = []
        steps.reserveCapacity(inserts)
        func index(_ step: Int) -> Int { alternating && step % 2 == 1 ? 2 : 1 }
        // One untimed insert first, as --adversarial: the connection's first insert prepares its statements.
        _ = try store.insertRow(NewRow(title: "squeezed first"), intoSection: 0, at: 1)
        var writer: UInt?
        for entry in StatementRecorder.takeProfiled(folder: folder) where entry.sql.hasPrefix("INSERT INTO rows") { writer = entry.connection }
        func note(_ start: UInt64) {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let entries = StatementRecorder.takeProfiled(folder: folder)
            steps.append(
                Step(statements: entries.map { (names.number($0.sql), $0.nanoseconds, $0.connection != writer, $0.endedAt, $0.rows) }, start: start, seconds: seconds))
        }
        if perWrite == 1 {
            for step in 0..<inserts {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try store.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step))
                note(start)
            }
        } else {
            var made = 0
            while made < inserts {
                let chunk = min(perWrite, inserts - made)
                try store.write(tracksChanges: false) { transaction in
                    for step in made..<(made + chunk) {
                        let start = DispatchTime.now().uptimeNanoseconds
                        _ = try transaction.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step))
                        note(start)
                    }
                }
                made += chunk
            }
        }
        return steps
    }
}
