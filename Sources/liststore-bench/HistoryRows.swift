import Foundation

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
}
