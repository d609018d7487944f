import CBaseline
import Foundation
import ListStore
import StoreShorthands

/// The main table: every operation by ListStore, by the dense C baseline and at the physical limit,
/// side by side on fresh copies of the same fixtures, then the scaling summary, file sizes and the
/// memory of a large delete.
struct MainTable {
    let fixtures: Fixtures
    let sizes: [Int]
    let repetitions: Int
    /// Tiny sizes: check every result.
    let quick: Bool
    /// The `liststore` binary, for the process rows; nil when it was not built next to the benchmark.
    let cli: String?
    /// The `sqlite3` shell, for the process row's comparison; nil when it is not on PATH.
    let shell: String?
    /// The operations measured (every one unless a subset is asked for: `--history-rows`).
    var operations: [Operation] = Operation.all
    /// Whether the memory of a large delete is measured at the end.
    var measuresDeleteMemory = true

    /// Seconds above which a side's figure is stable enough for two runs (see ``measure(_:n:)``).
    static let slowSide = 0.25

    /// One line of the table: medians in seconds (NaN where a side does not run the operation).
    struct Result {
        let operation: String
        let n: Int
        let listStore: Double
        let dense: Double
        let limit: Double
    }

    /// Prints the table and its summaries; returns its lines (for `--chart`).
    @discardableResult
    func run() throws -> [Result] {
        print(
            "liststore-bench: median of \(repetitions) runs; ListStore, the dense C baseline (a plain table renumbered densely, what a peer's user writes)"
        )
        print("and the physical limit (the least SQLite does on that table: one statement per row touched, no renumbering); a fresh copy")
        print("of the fixture for each run; single-row edits timed after one untimed run of the same edit on the same connection, reads after three")
        print(
            pad("operation", 43) + pad("n", 9, right: true) + pad("ListStore", 12, right: true) + pad("C dense", 12, right: true)
                + pad("limit", 12, right: true) + pad("LS / C", 9, right: true) + pad("LS / limit", 11, right: true))
        var results: [Result] = []
        for n in sizes {
            for operation in operations {
                let result = try measure(operation, n: n)
                results.append(result)
                print(line(result))
            }
            for result in [try measureOpen(n: n), try measureProcess(n: n)].compactMap({ $0 }) {
                results.append(result)
                print(line(result))
            }
        }
        if let cli {
            print(
                "(process rows: \(cli), \(Self.linkage(of: cli)))"
            )
        }
        printScaling(results)
        try printFileSizes()
        if measuresDeleteMemory { try printDeleteMemory() }
        return results
    }

    // MARK: - Measuring

    private func measure(_ operation: Operation, n: Int) throws -> Result {
        let target = operation.target(rows: n)
        let ours = try listStoreTemplate(operation, n: n)
        let plain = try fixtures.plainTemplate(rows: n, layout: operation.layout, empty: operation.fixture == .empty)
        var times: (listStore: [Double], dense: [Double], limit: [Double]) = ([], [], [])
        for repetition in 0..<repetitions {
            // Rotate which side runs first, so none always gets the warmer cache.
            for side in (0..<3).map({ ($0 + repetition) % 3 }) {
                switch side {
                case 0:
                    let path = operation.readsOnly ? ours : try fixtures.copy(ours, to: "work-liststore.sqlite")
                    times.listStore.append(try measureListStore(operation, target: target, path: path))
                case 1:
                    // A side that takes seconds (the dense baseline's renumbering at 1,000,000 rows) varies
                    // by a few percent: two runs, without the warm-up (its milliseconds are noise there).
                    let slow = times.dense.count >= 1 && Measurement.median(times.dense) > Self.slowSide
                    if slow && times.dense.count >= 2 { continue }
                    let path = operation.readsOnly ? plain : try fixtures.copy(plain, to: "work-dense.sqlite")
                    times.dense.append(try measureC(operation, operation.dense, dense: true, target: target, path: path, warmUp: !slow))
                default:
                    guard let limit = operation.limit else { continue }
                    let path = try fixtures.copy(plain, to: "work-limit.sqlite")
                    times.limit.append(try measureC(operation, limit, dense: false, target: target, path: path))
                }
            }
        }
        let dense = Measurement.median(times.dense)
        return Result(
            operation: operation.fullName, n: n, listStore: Measurement.median(times.listStore), dense: dense,
            limit: operation.limit == nil ? dense : Measurement.median(times.limit))
    }

    private func listStoreTemplate(_ operation: Operation, n: Int) throws -> String {
        switch operation.fixture {
        case .empty: try fixtures.template(rows: 0)
        case .rows: try fixtures.template(rows: n, layout: operation.layout)
        case .adversarial(let alternating): try fixtures.adversarialTemplate(rows: n, alternating: alternating)
        }
    }

    /// Opens `path` with ListStore, runs `operation` timed, checks the result, closes.
    private func measureListStore(_ operation: Operation, target: Target, path: String) throws -> Double {
        let store = try ListStore.open(at: path, mode: operation.readsOnly ? .readOnly : .readWrite)
        _ = try store.sectionCount()
        var target = target
        if operation.name.hasPrefix("index path") {
            target.middleRowID = try store.row(at: ListIndexPath(section: target.section, row: target.middle)).id.rawValue
        }
        // Counted before the warm-up, so that no read between the warm-up and the timed run (a count of
        // every row, on the C side) evicts the pages the warm-up cached.
        var expected = try store.totalRowCount()
        if let warmUp = operation.warmUpListStore {
            try warmUp(store, target)
            expected += 1
        } else if operation.warmsUp {
            for _ in 0..<operation.warmUps {
                try operation.listStore(store, target)
                expected = operation.rowsAfter(expected, target.n)
            }
        }
        expected = operation.rowsAfter(expected, target.n)
        let seconds = try Measurement.seconds { try operation.listStore(store, target) }
        if quick, let problem = try store.checkInvariants().first { throw BenchmarkFailure("\(operation.fullName): \(problem)") }
        guard try store.totalRowCount() == expected else { throw BenchmarkFailure("\(operation.fullName): wrong row count") }
        return seconds
    }

    /// The same with C code on the plain file, which then checks itself: the row count and, for the
    /// dense baseline in `--quick` runs, that the sections acted on are numbered densely from 0.
    private func measureC(
        _ operation: Operation, _ run: (OpaquePointer, Target) -> Int32, dense: Bool, target: Target, path: String, warmUp: Bool = true
    ) throws -> Double {
        guard let db = baseline_open(path) else { throw BenchmarkFailure("the C baseline could not open \(path)") }
        defer { baseline_close(db) }
        var count: Int64 = 0
        _ = baseline_section_count(db, &count)
        var target = target
        if operation.name.hasPrefix("index path") {
            guard baseline_row_id_at(db, target.sectionID, Int64(target.middle), &target.middleRowID) == 0 else {
                throw BenchmarkFailure("\(operation.fullName): the C file has no middle row")
            }
        }
        var before: Int64 = 0
        _ = baseline_total_rows(db, &before)
        var expected = Int(before)
        if let prepare = operation.warmUpC, warmUp {
            let code = prepare(db, target)
            guard code == 0 else { throw BenchmarkFailure("C \(dense ? "dense" : "limit") \(operation.fullName) (warm-up): SQLite code \(code)") }
            expected += 1
        } else if operation.warmsUp && warmUp {
            for _ in 0..<operation.warmUps {
                let code = run(db, target)
                guard code == 0 else { throw BenchmarkFailure("C \(dense ? "dense" : "limit") \(operation.fullName) (warm-up): SQLite code \(code)") }
                expected = operation.rowsAfter(expected, target.n)
            }
        }
        expected = operation.rowsAfter(expected, target.n)
        var code: Int32 = 0
        let seconds = Measurement.seconds { code = run(db, target) }
        guard code == 0 else { throw BenchmarkFailure("C \(dense ? "dense" : "limit") \(operation.fullName): SQLite code \(code)") }
        var after: Int64 = 0
        _ = baseline_total_rows(db, &after)
        guard after == Int64(expected) else { throw BenchmarkFailure("C \(operation.fullName): wrong row count") }
        if quick && dense {
            for section in Set([target.sectionID, target.otherSectionID]) {
                var rows: Int64 = 0
                var isDense: Int32 = 0
                guard baseline_check_section(db, section, &rows, &isDense) == 0, isDense != 0 else {
                    throw BenchmarkFailure("C dense \(operation.fullName): section \(section - 1) is not numbered densely")
                }
            }
        }
        return seconds
    }

    /// Opening an existing store (migrations and schema checked) and reading the section count.
    private func measureOpen(n: Int) throws -> Result {
        let ours = try fixtures.template(rows: n)
        let plain = try fixtures.plainTemplate(rows: n, layout: .oneSection)
        var times: (listStore: [Double], dense: [Double]) = ([], [])
        for _ in 0..<repetitions {
            times.listStore.append(try Measurement.seconds { _ = try ListStore.open(at: ours).sectionCount() })
            times.dense.append(
                Measurement.seconds {
                    if let db = baseline_open(plain) {
                        var count: Int64 = 0
                        _ = baseline_section_count(db, &count)
                        baseline_close(db)
                    }
                })
        }
        let dense = Measurement.median(times.dense)
        return Result(operation: "open + section count", n: n, listStore: Measurement.median(times.listStore), dense: dense, limit: dense)
    }

    /// The whole `liststore add 0 x` process, against the `sqlite3` shell running the equivalent INSERT
    /// (the row appended to section 0, ListStore's triggers firing) on a copy of the same file.
    private func measureProcess(n: Int) throws -> Result? {
        guard let cli else {
            print("(process: liststore add 0 x — skipped: build the CLI next to this binary, e.g. swift build -c release)")
            return nil
        }
        let template = try fixtures.template(rows: n)
        var times: (listStore: [Double], shell: [Double]) = ([], [])
        // Appended after the section's last row, the gap ListStore leaves; the shell's triggers count it.
        let insert =
            "INSERT INTO rows (section_id, position, title) SELECT id, (SELECT coalesce(max(position), -1048576) + 1048576 FROM rows WHERE section_id = sections.id), 'x' FROM sections WHERE position = 0;"
        // A process's wall time varies with what else the machine runs: more runs than the other rows.
        for _ in 0..<(quick ? repetitions : max(repetitions, 15)) {
            let path = try fixtures.copy(template, to: "work-cli.sqlite")
            let run = Measurement.spawn(cli, ["--db", path, "add", "0", "x"])
            guard run.status == 0 else { throw BenchmarkFailure("liststore add exited with \(run.status)") }
            times.listStore.append(run.seconds)
            if let shell {
                let copy = try fixtures.copy(template, to: "work-shell.sqlite")
                let run = Measurement.spawn(shell, [copy, insert])
                guard run.status == 0 else { throw BenchmarkFailure("sqlite3 exited with \(run.status)") }
                times.shell.append(run.seconds)
            }
        }
        return Result(
            operation: "process: liststore add 0 x", n: n, listStore: Measurement.median(times.listStore),
            dense: shell == nil ? .nan : Measurement.median(times.shell), limit: .nan)
    }

    /// How the executable at `path` was linked, for the process row's note: a dynamically linked Swift
    /// runtime names `libswiftCore.so` among the libraries it loads; a fully static executable (what a
    /// Linux release build of `liststore` is, see Package.swift) has no program interpreter (no ELF
    /// `PT_INTERP` header).
    static func linkage(of path: String) -> String {
        #if os(Linux)
            guard let bytes = FileManager.default.contents(atPath: path) else { return "not readable" }
            if bytes.range(of: Data("libswiftCore.so".utf8)) != nil {
                return "the Swift runtime loaded dynamically: build it with swift build -c release --product liststore, as Docs/CLI.md says"
            }
            return hasProgramInterpreter(bytes) ? "the Swift runtime linked in (--static-swift-stdlib)" : "one fully static executable"
        #else
            return "the system's Swift runtime"  // Apple platforms ship it with the system
        #endif
    }

    /// Whether the 64-bit little-endian ELF file `bytes` asks for a program interpreter (the dynamic loader).
    private static func hasProgramInterpreter(_ bytes: Data) -> Bool {
        let elf = [UInt8](bytes.prefix(64))
        guard elf.count == 64, elf[0..<4] == [0x7F, 0x45, 0x4C, 0x46], elf[4] == 2, elf[5] == 1 else { return true }
        func integer(_ offset: Int, _ width: Int) -> Int {
            (0..<width).reduce(0) { $0 | Int(bytes[bytes.startIndex + offset + $1]) << (8 * $1) }
        }
        let (table, entrySize, entries) = (integer(32, 8), integer(54, 2), integer(56, 2))
        guard table > 0, entrySize >= 4, table <= bytes.count, entries <= (bytes.count - table) / entrySize else { return true }
        return (0..<entries).contains { integer(table + $0 * entrySize, 4) == 3 }  // PT_INTERP
    }

    // MARK: - Summaries

    private func printScaling(_ results: [Result]) {
        guard let smallest = sizes.first, let largest = sizes.last, smallest != largest else { return }
        print("")
        print("scaling, ListStore time at n = \(largest) over n = \(smallest) (1.00 = independent of n):")
        var names: [String] = []
        for result in results where !names.contains(result.operation) { names.append(result.operation) }
        for name in names {
            let times = results.filter { $0.operation == name }
            guard let first = times.first(where: { $0.n == smallest }), let last = times.first(where: { $0.n == largest }) else { continue }
            print("  " + pad(name, 43) + String(format: "%9.2fx", last.listStore / first.listStore))
        }
    }

    private func printFileSizes() throws {
        print("")
        print("file size of the one-section fixture (ListStore's file closed cleanly; the plain table's, no -wal):")
        for n in sizes {
            let ours = fixtures.size(of: try fixtures.template(rows: n))
            let plain = fixtures.size(of: try fixtures.plainTemplate(rows: n, layout: .oneSection))
            print(
                "  n = " + pad(String(n), 9) + pad(String(format: "ListStore %.2f MB", Double(ours) / 1e6), 22)
                    + pad(String(format: "plain %.2f MB", Double(plain) / 1e6), 18) + String(format: "%.2fx", Double(ours) / Double(max(plain, 1))))
        }
    }

    /// Peak memory of the multi-row delete, in a process of its own.
    private func printDeleteMemory() throws {
        guard let n = sizes.last else { return }
        let path = try fixtures.copy(try fixtures.template(rows: n), to: "work-memory.sqlite")
        let report = fixtures.path("memory.txt")
        let child = Measurement.spawn(CommandLine.arguments[0], ["--child-delete", path, String(n)], output: report)
        let peakKiB = (try? String(contentsOfFile: report, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard child.status == 0, let peakKiB, peakKiB > 0 else { throw BenchmarkFailure("the delete child exited with \(child.status)") }
        print("")
        print(String(format: "peak resident memory of a process deleting 1000 scattered rows from n = %d: %.1f MB", n, Double(peakKiB) / 1024))
    }

    private func line(_ result: Result) -> String {
        pad(result.operation, 43) + pad(String(result.n), 9, right: true) + pad(Measurement.format(result.listStore), 12, right: true)
            + pad(result.dense.isFinite ? Measurement.format(result.dense) : "—", 12, right: true)
            + pad(result.limit.isFinite ? Measurement.format(result.limit) : "—", 12, right: true)
            + pad(ratio(result.listStore, result.dense), 9, right: true) + pad(ratio(result.listStore, result.limit), 11, right: true)
    }

    /// `0.92x`; far below 1, "1/509" (509 times faster) says more than "0.00x".
    private func ratio(_ ours: Double, _ theirs: Double) -> String {
        guard theirs.isFinite, ours.isFinite else { return "—" }
        let value = ours / theirs
        return value < 0.1 ? String(format: "1/%.0f", 1 / value) : String(format: "%.2fx", value)
    }
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return right ? padding + text : text + padding
}
