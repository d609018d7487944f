import CBaseline
import Foundation
import ListStore

// liststore-bench: ListStore against a hand-written C program on the same schema, side by side.
//   swift run -c release liststore-bench [--quick | --large] [--repetitions N]
//   swift run -c release liststore-bench --litestream [--quick]   (write cost and replica lag with Litestream)
//   swift run -c release liststore-bench --only observation [--quick | --large]   (only the observation rows)

let arguments = Array(CommandLine.arguments.dropFirst())

// Child mode: one multi-row delete in a fresh process, so its peak memory can be read by the parent.
if arguments.first == "--child-delete", arguments.count == 3, let n = Int(arguments[2]) {
    do {
        let store = try ListStore.open(at: arguments[1])
        let (step, count) = Operation.scattered(n)
        try store.deleteRows(at: (0..<count).map { ListIndexPath(section: 0, row: $0 * step) })
        print(Measurement.peakResidentKiB() ?? -1)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}

// Litestream mode: the cost of a write with `litestream replicate` running, and the lag to its replica.
if arguments.first == "--litestream" {
    do {
        var bench = try LitestreamBench(quick: arguments.contains("--quick"))
        try bench.run()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}

let quick = arguments.contains("--quick")
let large = arguments.contains("--large")
// "observation" is a value only right after --only.
let unknownArgument = arguments.indices.first { index in
    let argument = arguments[index]
    if argument == "observation" { return index == 0 || arguments[index - 1] != "--only" }
    return !["--quick", "--large", "--repetitions", "--only"].contains(argument) && Int(argument) == nil
}.map { arguments[$0] }
if let unknown = unknownArgument {
    FileHandle.standardError.write(Data("error: unknown option \(unknown); use --quick, --large, --repetitions N or --only observation\n".utf8))
    exit(2)
}
let onlyObservation = arguments.contains("--only")
if onlyObservation, arguments.firstIndex(of: "--only").map({ arguments.indices.contains($0 + 1) && arguments[$0 + 1] == "observation" }) != true {
    FileHandle.standardError.write(Data("error: --only takes observation (the one part that can run alone)\n".utf8))
    exit(2)
}
let repetitions =
    arguments.firstIndex(of: "--repetitions").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
    ?? (quick ? 3 : 5)
let sizes = quick ? [100, 1_000] : large ? [1_000, 10_000, 100_000, 1_000_000] : [1_000, 10_000, 100_000]
let (smallest, largest) = (sizes[0], sizes[sizes.count - 1])
let benchDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let cli = benchDirectory.appendingPathComponent("liststore").path

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(1)
}

/// Opens `path` with ListStore, runs `operation` timed, checks the result, closes.
func measureListStore(_ operation: Operation, n: Int, path: String) throws -> Double {
    let store = try ListStore.open(at: path)
    _ = try store.sectionCount()
    let seconds = try Measurement.seconds { try operation.listStore(store, n) }
    if quick, let problem = try store.checkInvariants().first { throw BenchmarkFailure("\(operation.name): \(problem)") }
    guard try store.rowCount(inSection: 0) == operation.rowsAfter(n) else { throw BenchmarkFailure("\(operation.name): wrong row count") }
    return seconds
}

/// The same with the C baseline; ListStore then checks the file the C code left.
func measureBaseline(_ operation: Operation, n: Int, path: String) throws -> Double {
    guard let run = operation.baseline else { return .nan }
    guard let db = baseline_open(path) else { throw BenchmarkFailure("the C baseline could not open \(path)") }
    var count: Int64 = 0
    _ = baseline_section_count(db, &count)
    var code: Int32 = 0
    let seconds = Measurement.seconds { code = run(db, n) }
    baseline_close(db)
    guard code == 0 else { throw BenchmarkFailure("C baseline \(operation.name): SQLite code \(code)") }
    let store = try ListStore.open(at: path, mode: .readOnly)
    if quick, let problem = try store.checkInvariants().first { throw BenchmarkFailure("C baseline \(operation.name): \(problem)") }
    guard try store.rowCount(inSection: 0) == operation.rowsAfter(n) else { throw BenchmarkFailure("C baseline \(operation.name): wrong row count") }
    return seconds
}

struct Result {
    let operation: String
    let n: Int
    let listStore: Double
    let baseline: Double
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return right ? padding + text : text + padding
}

func row(_ result: Result) -> String {
    let value = result.listStore / result.baseline
    // Far below 1, "1/509" (509 times faster) says more than "0.00x".
    let ratio = !result.baseline.isFinite ? "—" : value < 0.1 ? String(format: "1/%.0f", 1 / value) : String(format: "%.2fx", value)
    return pad(result.operation, 26) + pad(String(result.n), 9, right: true) + pad(Measurement.format(result.listStore), 12, right: true)
        + pad(result.baseline.isFinite ? Measurement.format(result.baseline) : "—", 12, right: true) + pad(ratio, 9, right: true)
}

let fixtures: Fixtures
do { fixtures = try Fixtures() } catch { fail("cannot create a temporary directory: \(error)") }
defer { fixtures.remove() }

if !onlyObservation {
    print("liststore-bench: median of \(repetitions) runs, ListStore vs C baseline (raw SQLite API, dense renumbering), same schema and pragmas")
    print(pad("operation", 26) + pad("n", 9, right: true) + pad("ListStore", 12, right: true) + pad("C", 12, right: true) + pad("LS / C", 9, right: true))
    var results: [Result] = []
    do {
        for n in sizes {
            for operation in Operation.all {
                let template = try fixtures.template(rows: operation.fixtureRows(n))
                var ours: [Double] = []
                var theirs: [Double] = []
                for repetition in 0..<repetitions {
                    // Alternate which side runs first, so neither always gets the warmer cache.
                    let order = repetition % 2 == 0 ? [true, false] : [false, true]
                    for isListStore in order {
                        let path = try fixtures.copy(template, to: isListStore ? "work-liststore.sqlite" : "work-c.sqlite")
                        if isListStore { ours.append(try measureListStore(operation, n: n, path: path)) } else { theirs.append(try measureBaseline(operation, n: n, path: path)) }
                    }
                }
                let result = Result(operation: operation.name, n: n, listStore: Measurement.median(ours), baseline: Measurement.median(theirs))
                results.append(result)
                print(row(result))
            }

            // Opening an existing store (migrations checked) and reading the section count.
            let template = try fixtures.template(rows: n)
            var ours: [Double] = []
            var theirs: [Double] = []
            for _ in 0..<repetitions {
                ours.append(try Measurement.seconds { _ = try ListStore.open(at: template).sectionCount() })
                theirs.append(
                    Measurement.seconds {
                        if let db = baseline_open(template) {
                            var count: Int64 = 0
                            _ = baseline_section_count(db, &count)
                            baseline_close(db)
                        }
                    })
            }
            let open = Result(operation: "open + section count", n: n, listStore: Measurement.median(ours), baseline: Measurement.median(theirs))
            results.append(open)
            print(row(open))

            // The whole `liststore add 0 x` process.
            if FileManager.default.isExecutableFile(atPath: cli) {
                var times: [Double] = []
                for _ in 0..<repetitions {
                    let path = try fixtures.copy(template, to: "work-cli.sqlite")
                    let run = Measurement.spawn(cli, ["--db", path, "add", "0", "x"])
                    guard run.status == 0 else { throw BenchmarkFailure("liststore add exited with \(run.status)") }
                    times.append(run.seconds)
                }
                let process = Result(operation: "process: liststore add 0 x", n: n, listStore: Measurement.median(times), baseline: .nan)
                results.append(process)
                print(row(process))
            } else {
                print("(process: liststore add 0 x — skipped: build the CLI next to this binary, e.g. swift build -c release)")
            }
        }

        // Scaling: the time at the largest n over the time at the smallest.
        print("")
        print("scaling, ListStore time at n = \(largest) over n = \(smallest) (1.00 = independent of n):")
        for name in Operation.all.map(\.name) + ["open + section count"] {
            let times = results.filter { $0.operation == name }
            guard let first = times.first, let last = times.last else { continue }
            print("  " + pad(name, 26) + String(format: "%8.2fx", last.listStore / first.listStore))
        }

        // Peak memory of the multi-row delete, in a process of its own.
        let n = largest
        let path = try fixtures.copy(try fixtures.template(rows: n), to: "work-memory.sqlite")
        let report = fixtures.path("memory.txt")
        let child = Measurement.spawn(CommandLine.arguments[0], ["--child-delete", path, String(n)], output: report)
        let peakKiB = (try? String(contentsOfFile: report, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard child.status == 0, let peakKiB, peakKiB > 0 else { throw BenchmarkFailure("the delete child exited with \(child.status)") }
        print("")
        print(String(format: "peak resident memory of a process deleting 1000 scattered rows from n = %d: %.1f MB", n, Double(peakKiB) / 1024))
    } catch {
        fail("\(error)")
    }
}

// Observation: a write with an observer of other connections, and another process's commit noticed.
do {
    try ObservationBench(
        fixtures: fixtures, sizes: sizes, repetitions: repetitions, quick: quick,
        cli: FileManager.default.isExecutableFile(atPath: cli) ? cli : nil
    ).run()
} catch {
    fail("observation: \(error)")
}
