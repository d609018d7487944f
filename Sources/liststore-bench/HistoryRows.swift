import CBaseline
import Foundation
import ListStore
import StoreShorthands

/// `--history-rows [--large]`: the main table's rows that the undo history costs — the bulk insert
/// (and the file it leaves), one-row inserts, moves and deletes, and the `liststore add 0 x` process —
/// at n = 100,000 (and 1,000,000 with `--large`), against the physical limit as in the main table.
struct HistoryRows {
    let large: Bool
    let repetitions: Int

    static let names: Set<String> = [
        "bulk insert n rows", "insert at head", "insert in middle", "delete one in middle", "move head to tail", "move n/4 to 3n/4",
    ]

    func run() throws {
        let fixtures = try Fixtures(adversarialInserts: 0)
        defer { fixtures.remove() }
        let cli = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("liststore").path
        let shell = ProcessInfo.processInfo.environment["PATH"].flatMap { path in
            path.split(separator: ":").map { "\($0)/sqlite3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        var table = MainTable(
            fixtures: fixtures, sizes: large ? [100_000, 1_000_000] : [100_000], repetitions: repetitions, quick: false,
            cli: FileManager.default.isExecutableFile(atPath: cli) ? cli : nil, shell: shell)
        table.operations = Operation.all.filter { Self.names.contains($0.name) && $0.layout == .oneSection }
        table.measuresDeleteMemory = false
        try table.run()
    }

    /// `--loop edits`: one-row inserts, moves and deletes in the middle of one section, in turn, `count`
    /// of them on one open store (on a copy of the fixture), and the limit's insert, move and delete on a
    /// copy of the plain file; each timed alone.
    static func editLoop(fixtures: Fixtures, ours: String, plain: String, rows: Int, count: Int) throws -> (listStore: [Double], limit: [Double]) {
        let store = try ListStore.open(at: try fixtures.copy(ours, to: "work-edits.sqlite"))
        let plainPath = try fixtures.copy(plain, to: "work-edits-plain.sqlite")
        guard let db = baseline_open(plainPath) else { throw BenchmarkFailure("cannot open \(plainPath)") }
        defer { baseline_close(db) }
        let middle = rows / 2
        _ = try store.insertRow("warm", intoSection: 0, at: middle)
        _ = limit_insert_one(db, 1)
        var ours: [Double] = []
        var theirs: [Double] = []
        for step in 0..<count {
            switch step % 3 {
            case 0:
                ours.append(try Measurement.seconds { _ = try store.insertRow("new row", intoSection: 0, at: middle) })
                theirs.append(Measurement.seconds { _ = limit_insert_one(db, 1) })
            case 1:
                let (from, to) = (ListIndexPath(section: 0, row: rows / 4), ListIndexPath(section: 0, row: 3 * rows / 4))
                ours.append(try Measurement.seconds { _ = try store.moveRow(from: from, to: to) })
                theirs.append(Measurement.seconds { _ = limit_move_one(db, 1, Int64(rows / 4), 1) })
            default:
                ours.append(try Measurement.seconds { _ = try store.deleteRows(at: [ListIndexPath(section: 0, row: middle)]) })
                theirs.append(Measurement.seconds { _ = limit_delete_at(db, 1, Int64(middle)) })
            }
        }
        return (ours, theirs)
    }
}
