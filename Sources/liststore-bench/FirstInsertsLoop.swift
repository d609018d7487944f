import Foundation
import ListStore

/// `--loop first-inserts [ROWS] [COUNT] [RUNS]`: `--adversarial`'s "each its own write" line at index 1
/// cut to its first COUNT inserts, RUNS runs on fresh copies of a section of ROWS rows, and for each insert
/// among the 12 whose least time over the runs is the longest, what its fastest run spent: the inserting
/// thread's CPU time, its page faults and its context switches (`getrusage(RUSAGE_THREAD)`). An insert slow
/// by the clock but not by CPU time waited (for the disk, a lock, the core); one slow by CPU time too did
/// more work, or touched memory it had not touched before (its minor faults say how much). Each run's time
/// says whether that commit also checkpointed on the committing thread ("caught up") or started the
/// `-wal` again from its beginning ("restarted").
/// `LISTSTORE_BENCH_ALTERNATING=1` inserts at 1 and 2 in turn; `LISTSTORE_BENCH_PER_WRITE=N` times N inserts per write instead (`--adversarial`'s "10,000 per write").
struct FirstInsertsLoop {
    let fixtures: Fixtures
    let rows: Int
    let inserts: Int
    let runs: Int

    private struct Sample {
        var wall = 0.0
        var cpu = 0.0
        var minorFaults = 0
        var majorFaults = 0
        var voluntarySwitches = 0
        var involuntarySwitches = 0
        var commit: AdversarialBench.Commit = []
    }

    private static func usage() -> rusage {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD (1), which Glibc only declares under _GNU_SOURCE
        return usage
    }

    func run() throws {
        let alternating = ProcessInfo.processInfo.environment["LISTSTORE_BENCH_ALTERNATING"] == "1"
        func index(_ step: Int) -> Int { alternating && step % 2 == 1 ? 2 : 1 }
        let perWrite = ProcessInfo.processInfo.environment["LISTSTORE_BENCH_PER_WRITE"].flatMap { Int($0) } ?? 1
        let template = try fixtures.template(rows: rows)
        var timed: [[Sample]] = []
        for _ in 0..<runs {
            let path = try fixtures.copy(template, to: "work-first-inserts.sqlite")
            let store = try ListStore.open(at: path)
            var samples: [Sample] = []
            samples.reserveCapacity(inserts)
            // Step -1 runs first, untimed, as in --adversarial: the connection's first insert prepares its statements.
            func measure(_ step: Int, _ insert: () throws -> Void) rethrows {
                let counters = store.checkpointCounters
                let before = Self.usage()
                let started = HotSpotLoop.threadSeconds()
                let start = DispatchTime.now().uptimeNanoseconds
                try insert()
                let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                let cpu = HotSpotLoop.threadSeconds() - started
                let after = Self.usage()
                guard step >= 0 else { return }
                let commit = AdversarialBench.Commit(from: counters, to: store.checkpointCounters)
                samples.append(
                    Sample(
                        wall: wall,
                        cpu: cpu,
                        minorFaults: after.ru_minflt - before.ru_minflt, majorFaults: after.ru_majflt - before.ru_majflt,
                        voluntarySwitches: after.ru_nvcsw - before.ru_nvcsw, involuntarySwitches: after.ru_nivcsw - before.ru_nivcsw, commit: commit))
            }
            var made = -1
            while made < inserts {
                if perWrite == 1 {
                    try measure(made) { _ = try store.insertRow(NewRow(title: "squeezed \(made)"), intoSection: 0, at: index(made)) }
                    made += 1
                    continue
                }
                let chunk = min(perWrite, inserts - made)
                try store.writeUntracked { transaction in
                    for step in made..<(made + chunk) {
                        try measure(step) { _ = try transaction.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index(step)) }
                    }
                }
                made += chunk
            }
            timed.append(samples)
        }
        let fastestRun = (0..<inserts).map { step in timed.indices.min { timed[$0][step].wall < timed[$1][step].wall } ?? 0 }
        let least = (0..<inserts).map { timed[fastestRun[$0]][$0].wall }
        let median = least.sorted()[inserts / 2]
        let faults = timed[0].map(\.minorFaults).sorted()
        print(
            "first \(inserts) inserts at \(alternating ? "1 and 2 in turn" : "index 1") into \(rows) rows, \(perWrite) per write, \(runs) runs: median \(Measurement.format(median)) (least of \(runs)); "
                + "the median insert faults \(faults[inserts / 2]) times")
        let tenth = max(1, inserts / 10)
        let tenths = stride(from: 0, to: inserts - tenth + 1, by: tenth).map { start in Measurement.format(least[start..<(start + tenth)].sorted()[tenth / 2]) }
        print("  the median of each tenth: " + tenths.joined(separator: ", "))
        let slow = (0..<inserts).sorted { least[$0] > least[$1] }.prefix(12).sorted()
        print("  \((0..<inserts).filter { least[$0] > 3 * median }.count) above 3×; the 12 slowest:")
        for step in slow {
            let fastest = timed[fastestRun[step]][step]
            print(
                "  #\(step) \(String(format: "%.1f×", least[step] / median)): CPU \(Measurement.format(fastest.cpu)), faults \(fastest.minorFaults) minor "
                    + "\(fastest.majorFaults) major, switches \(fastest.voluntarySwitches) voluntary \(fastest.involuntarySwitches) involuntary; the runs: "
                    + timed.map { run in
                        let commit = run[step].commit
                        let notes = (commit.contains(.caughtUp) ? " caught up" : "") + (commit.contains(.restarted) ? " restarted" : "")
                        return "\(Measurement.format(run[step].wall)) (\(run[step].minorFaults)f \(run[step].voluntarySwitches)v\(notes))"
                    }.joined(separator: " "))
        }
    }
}
