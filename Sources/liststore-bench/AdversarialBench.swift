import Foundation
import ListStore

/// `--adversarial`: the time of every one of 100,000 inserts at one index (and alternating between two
/// neighbours) into a section of n rows — the distribution, not only the median (issue 18: every
/// operation within 3× of its median). Timed two ways: each insert its own write (what an app sees,
/// commits and WAL checkpoints included) and 10,000 inserts per transaction (the positions engine alone).
struct AdversarialBench {
    let fixtures: Fixtures
    let rows: Int
    let inserts: Int

    func run() throws {
        print("adversarial: \(inserts) single-row inserts at index 1 (or at 1 and 2 in turn) into one section of \(rows) rows; every insert timed")
        print(
            pad("pattern", 34) + pad("timed as", 22) + pad("median", 11, right: true) + pad("p99", 11, right: true) + pad("p99.9", 11, right: true)
                + pad("max", 11, right: true) + pad("> 3× median", 13, right: true))
        for alternating in [false, true] {
            for eachOwnWrite in [true, false] {
                let path = try fixtures.copy(try fixtures.template(rows: rows), to: "work-adversarial.sqlite")
                let store = try ListStore.open(at: path)
                var times: [Double] = []
                times.reserveCapacity(inserts)
                func index(_ step: Int) -> Int { alternating && step % 2 == 1 ? 2 : 1 }
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
                let sorted = times.sorted()
                let median = sorted[sorted.count / 2]
                func ratio(_ value: Double) -> String { String(format: "%.1f×", value / median) }
                let p99 = sorted[sorted.count * 99 / 100]
                let p999 = sorted[sorted.count * 999 / 1000]
                let worst = sorted[sorted.count - 1]
                let above = times.filter { $0 > 3 * median }.count
                print(
                    pad(alternating ? "alternating 1 and 2" : "at index 1", 34) + pad(eachOwnWrite ? "each its own write" : "10,000 per write", 22)
                        + pad(Measurement.format(median), 11, right: true) + pad(ratio(p99), 11, right: true) + pad(ratio(p999), 11, right: true)
                        + pad(ratio(worst), 11, right: true) + pad(String(format: "%.2f%%", Double(above) * 100 / Double(times.count)), 13, right: true))
            }
        }
    }
}
