import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands

/// What a copy of a list pays for giving ids of its own range (issue 34, schema 14; `--replicas`): two
/// copies of one store of 1,000,000 rows (10,000 with `--quick`), one the original file (replica 0, whose
/// ids SQLite's AUTOINCREMENT gives) and one a copy (a numbered replica, which reads and notes the last id
/// it gave and the largest id of its range in the table), a one-row insert in the middle of each, then
/// an insert of 1,000 rows, interleaved so that the machine's load falls on both alike.
struct ReplicaBench {
    let fixtures: Fixtures
    let quick: Bool

    func run() throws {
        let n = quick ? 10_000 : 1_000_000
        let template = try fixtures.template(rows: n)
        let original = try fixtures.copy(template, to: "replica-original.sqlite")
        let copy = try fixtures.copy(template, to: "replica-copy.sqlite")
        // `Fixtures.copy` makes each the original file; this one is then claimed for another file, as a
        // copy's claim is, and takes a number of its own at its first write.
        try Connection(path: copy, mode: .readWrite).run("UPDATE liststore_replica SET device = 0, inode = 0")
        let stores = [try ListStore.open(at: original), try ListStore.open(at: copy)]
        for store in stores { _ = try store.insertRow(NewRow(title: "untimed"), intoSection: 0, at: n / 2) }  // makes the -wal
        let numbers = try [original, copy].map { try Connection(path: $0, mode: .readOnly).scalarInt("SELECT number FROM liststore_replica") ?? -1 }
        guard numbers[0] == 0, numbers[1] > 0 else { throw BenchmarkFailure("replica numbers \(numbers): expected 0 and a number") }
        var inserts: [[Double]] = [[], []]
        var bulk: [[Double]] = [[], []]
        for round in 0..<1_024 {
            for (which, store) in stores.enumerated() {
                inserts[which].append(try Measurement.seconds { _ = try store.insertRow(NewRow(title: "row #\(round)"), intoSection: 0, at: n / 2) })
                if round % 32 == 0 {
                    let rows = (0..<1_000).map { NewRow(title: "bulk \(round) \($0)") }
                    bulk[which].append(try Measurement.seconds { _ = try store.insertRows(rows, intoSection: 0, at: n / 2) })
                }
            }
        }
        print("")
        print("replicas: n = \(n); the original file (replica 0) against a copy (replica \(numbers[1])), interleaved")
        print(pad("edit", 44) + pad("original", 12, right: true) + pad("copy", 12, right: true) + pad("cost", 10, right: true))
        for (name, times) in [("insert one row: median of 1,024", inserts), ("insert 1,000 rows: median of 32", bulk)] {
            let medians = times.map { Measurement.median($0) }
            print(
                pad(name, 44) + pad(Measurement.format(medians[0]), 12, right: true) + pad(Measurement.format(medians[1]), 12, right: true)
                    + pad(String(format: "%+.1f%%", (medians[1] / medians[0] - 1) * 100), 10, right: true))
        }
    }
}
