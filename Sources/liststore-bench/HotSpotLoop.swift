import Foundation
import ListStore
import StoreShorthands

/// `--loop hot-spot [ROWS] [COUNT]`: `--adversarial`'s "10,000 per write" lines (COUNT single-row
/// inserts at index 1, or at 1 and 2 in turn, into one section of ROWS rows), each insert timed by the
/// CPU time of the inserting thread as well as by the clock. On a machine shared with other work, the
/// clock counts the time another process had the core; the thread's CPU time counts only the insert's
/// own work (SQLite's included), which is what bounding the positions engine's worst case is about.
struct HotSpotLoop {
    let fixtures: Fixtures
    let rows: Int
    let inserts: Int

    /// The CPU time the calling thread has used, in seconds.
    static func threadSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    func run() throws {
        print("hot spot: \(inserts) single-row inserts at index 1 (or at 1 and 2 in turn) into one section of \(rows) rows, 10,000 per write")
        print(
            pad("pattern", 24) + pad("timed by", 18) + pad("median", 11, right: true) + pad("p99", 11, right: true) + pad("p99.9", 11, right: true)
                + pad("max", 11, right: true) + pad("> 3× median", 13, right: true))
        for alternating in [false, true] {
            let path = try fixtures.copy(try fixtures.template(rows: rows), to: "work-hot-spot.sqlite")
            let store = try ListStore.open(at: path)
            var cpu: [Double] = []
            var wall: [Double] = []
            cpu.reserveCapacity(inserts)
            wall.reserveCapacity(inserts)
            var made = 0
            while made < inserts {
                let chunk = min(10_000, inserts - made)
                try store.write(tracksChanges: false) { transaction in
                    for step in made..<(made + chunk) {
                        let index = alternating && step % 2 == 1 ? 2 : 1
                        let start = DispatchTime.now().uptimeNanoseconds
                        let started = Self.threadSeconds()
                        _ = try transaction.insertRow(NewRow(title: "squeezed \(step)"), intoSection: 0, at: index)
                        cpu.append(Self.threadSeconds() - started)
                        wall.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                    }
                }
                made += chunk
            }
            guard try store.checkInvariants().isEmpty else { throw BenchmarkFailure("the hot-spot inserts left problems") }
            for (name, times) in [("thread CPU time", cpu), ("clock", wall)] {
                let sorted = times.sorted()
                let median = sorted[sorted.count / 2]
                func ratio(_ value: Double) -> String { String(format: "%.1f×", value / median) }
                let above = times.filter { $0 > 3 * median }.count
                print(
                    pad(alternating ? "alternating 1 and 2" : "at index 1", 24) + pad(name, 18) + pad(Measurement.format(median), 11, right: true)
                        + pad(ratio(sorted[sorted.count * 99 / 100]), 11, right: true) + pad(ratio(sorted[sorted.count * 999 / 1000]), 11, right: true)
                        + pad(ratio(sorted[sorted.count - 1]), 11, right: true)
                        + pad(String(format: "%.2f%%", Double(above) * 100 / Double(times.count)), 13, right: true))
            }
        }
    }
}
