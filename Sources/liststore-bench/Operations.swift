import CBaseline
import ListStore

/// One benchmarked operation, done by ListStore and by the C baseline on a section of `n` rows.
struct Operation: Sendable {
    let name: String
    /// Rows in the fixture the operation starts from.
    let fixtureRows: @Sendable (Int) -> Int
    let listStore: @Sendable (ListStore, Int) throws -> Void
    /// Returns an SQLite result code (0 = ok).
    let baseline: (@Sendable (OpaquePointer, Int) -> Int32)?
    /// Rows the section must have afterwards (checked for both implementations).
    let rowsAfter: @Sendable (Int) -> Int

    static let sectionID: Int64 = 1

    /// The rows a multi-row delete removes from a section of `n`: every n/1000-th, at most 1,000.
    static func scattered(_ n: Int) -> (step: Int, count: Int) {
        let step = max(1, n / 1_000)
        return (step, min(1_000, (n + step - 1) / step))
    }

    static let all: [Operation] = [
        Operation(
            name: "bulk insert n rows", fixtureRows: { _ in 0 },
            listStore: { store, n in try store.insertRows((0..<n).map { NewRow(title: "row \($0)") }, intoSection: 0) },
            baseline: { db, n in baseline_bulk_insert(db, sectionID, Int32(n)) }, rowsAfter: { $0 }),
        Operation(
            name: "append one row", fixtureRows: { $0 },
            listStore: { store, _ in try store.insertRow("new row", intoSection: 0) },
            baseline: { db, _ in baseline_insert_at(db, sectionID, -1) }, rowsAfter: { $0 + 1 }),
        Operation(
            name: "insert at head", fixtureRows: { $0 },
            listStore: { store, _ in try store.insertRow("new row", intoSection: 0, at: 0) },
            baseline: { db, _ in baseline_insert_at(db, sectionID, 0) }, rowsAfter: { $0 + 1 }),
        Operation(
            name: "insert in middle", fixtureRows: { $0 },
            listStore: { store, n in try store.insertRow("new row", intoSection: 0, at: n / 2) },
            baseline: { db, n in baseline_insert_at(db, sectionID, Int32(n / 2)) }, rowsAfter: { $0 + 1 }),
        Operation(
            name: "delete 1000 scattered", fixtureRows: { $0 },
            listStore: { store, n in
                let (step, count) = scattered(n)
                try store.deleteRows(at: (0..<count).map { ListIndexPath(section: 0, row: $0 * step) })
            },
            baseline: { db, n in
                let (step, count) = scattered(n)
                return baseline_delete_every(db, sectionID, Int32(step), Int32(count))
            },
            rowsAfter: { $0 - scattered($0).count }),
        Operation(
            name: "move head to tail", fixtureRows: { $0 },
            listStore: { store, n in try store.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: n - 1)) },
            baseline: { db, n in baseline_move(db, sectionID, 0, Int32(n - 1)) }, rowsAfter: { $0 }),
        Operation(
            name: "read 50 rows at n/2", fixtureRows: { $0 },
            listStore: { store, n in
                let rows = try store.rows(inSection: 0, range: n / 2..<n / 2 + 50)
                guard rows.count == min(50, n - n / 2) else { throw BenchmarkFailure("read \(rows.count) rows") }
            },
            baseline: { db, n in
                var read: Int32 = 0
                let code = baseline_read_page(db, sectionID, Int32(n / 2), 50, &read)
                return code == 0 && Int(read) != min(50, n - n / 2) ? -1 : code
            }, rowsAfter: { $0 }),
    ]
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
