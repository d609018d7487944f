import CBaseline
import Foundation
import ListStore
import StoreShorthands

// liststore-bench: ListStore against hand-written C programs on a plain table (the dense baseline and the physical limit), side by side.
//   swift run -c release liststore-bench [--quick | --large] [--repetitions N] [--chart FILE.svg]
//       (--chart: also draws the main table's insert in middle against n, log–log, as an SVG: Chart.swift)
//   swift run -c release liststore-bench --litestream [--quick]   (write cost and replica lag with Litestream)
//   swift run -c release liststore-bench --only observation|search [--quick | --large]   (only those rows)
//   swift run -c release liststore-bench --search [--quick] [--repetitions N]   (only the index of titles against the scan: TitleWordsBench.swift)
//   swift run -c release liststore-bench --merge [--quick]   (10,000 edits of a copy merged into 1,000,000 rows, beside Loro, and through segments: MergeBench.swift)
//   swift run -c release liststore-bench --replicas [--quick]   (a copy of a list, which gives ids of its own range, against the original: ReplicaBench.swift)
//   swift run -c release liststore-bench --adversarial [--quick | --large]   (100,000 inserts at one index: rows written by each, bounded; each timed, 5 runs)
//   swift run -c release liststore-bench --loop hot-spot [ROWS] [COUNT]   (the same inserts, each by its thread's CPU time too)
//   swift run -c release liststore-bench --loop hot-spot-trace [ROWS] [COUNT]   (each its own write, every statement's time; the slow inserts' statements)
//   swift run -c release liststore-bench --loop read|index-path|delete|insert [ROWS] [COUNT]   (one operation repeated, for a profiler)
//   swift run -c release liststore-bench --loop table-reads [ROWS] [COUNT]   (the main table's read rows alone, COUNT runs each)
//   swift run -c release liststore-bench --history-rows [--large]   (only the rows the undo history costs: bulk insert, one-row edits, process, file size)

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

// Child mode: one merge in a fresh process, timed, with its peak memory (MergeBench.swift).
if arguments.first == "--child-merge", arguments.count == 3 {
    do {
        try MergeBench.child(arguments[1], peer: arguments[2])
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}

// Child mode: one sync through a folder of segments in a fresh process, timed, with its peak memory (MergeSegments.swift).
if arguments.first == "--child-sync", arguments.count == 3 {
    do {
        try MergeBench.childSync(arguments[1], folder: arguments[2])
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}

if arguments.first == "--merge" {
    // Another copy's edits merged, beside Loro importing the same kinds of edits (MergeBench.swift).
    do {
        let fixtures = try Fixtures(adversarialInserts: 0)
        defer { fixtures.remove() }
        try MergeBench(fixtures: fixtures, quick: arguments.contains("--quick")).run()
    } catch {
        FileHandle.standardError.write(Data("error: merge: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
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

if arguments.first == "--replicas" {
    // What a copy of a list (a numbered replica) pays per edit against the original file (ReplicaBench.swift).
    do {
        let fixtures = try Fixtures(adversarialInserts: 0)
        defer { fixtures.remove() }
        try ReplicaBench(fixtures: fixtures, quick: arguments.contains("--quick")).run()
    } catch {
        FileHandle.standardError.write(Data("error: replicas: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if arguments.first == "--adversarial" {
    // 100,000 inserts at one index (AdversarialBench.swift): the rows each writes, which must stay within
    // a bound (exit 1 otherwise), and the distribution of their times; n = 1,000,000 with --large.
    do {
        let quickRun = arguments.contains("--quick")
        let fixtures = try Fixtures(adversarialInserts: 0)
        defer { fixtures.remove() }
        try AdversarialBench(
            fixtures: fixtures, rows: quickRun ? 1_000 : arguments.contains("--large") ? 1_000_000 : 100_000,
            inserts: quickRun ? 2_000 : 100_000, runs: quickRun ? 2 : 5
        ).run()
    } catch {
        FileHandle.standardError.write(Data("error: adversarial: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if arguments.first == "--history-rows" {
    // The rows the undo history costs (HistoryRows.swift): n = 100,000, and 1,000,000 with --large.
    do { try HistoryRows(large: arguments.contains("--large"), repetitions: 5).run() } catch {
        FileHandle.standardError.write(Data("error: history rows: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if arguments.first == "--loop", arguments.count >= 2 {
    // One operation repeated, for a profiler (ProfileLoop.swift).
    do {
        let fixtures = try Fixtures(adversarialInserts: 0)
        defer { fixtures.remove() }
        if arguments[1] == "hot-spot" {  // HotSpotLoop.swift
            try HotSpotLoop(
                fixtures: fixtures, rows: arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000,
                inserts: arguments.count > 3 ? Int(arguments[3]) ?? 100_000 : 100_000
            ).run()
        } else if arguments[1] == "hot-spot-trace" {  // HotSpotTrace.swift
            try HotSpotTrace(
                fixtures: fixtures, rows: arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000,
                inserts: arguments.count > 3 ? Int(arguments[3]) ?? 100_000 : 100_000
            ).run()
        } else if arguments[1] == "table-reads" {
            // The main table's read rows alone, measured as the main table measures them (a store opened
            // for each timed run, three untimed reads first): at n = 1,000 … ROWS, COUNT runs each.
            var table = MainTable(
                fixtures: fixtures, sizes: [1_000, 10_000, 100_000, 1_000_000].filter { $0 <= (arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000) },
                repetitions: arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5, quick: false, cli: nil, shell: nil)
            table.operations = Operation.all.filter(\.readsOnly)
            table.measuresDeleteMemory = false
            try table.run()
        } else {
            try ProfileLoop(
                fixtures: fixtures, name: arguments[1], rows: arguments.count > 2 ? Int(arguments[2]) ?? 1_000_000 : 1_000_000,
                count: arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200
            ).run()
        }
    } catch {
        FileHandle.standardError.write(Data("error: loop: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

let quick = arguments.contains("--quick")
let large = arguments.contains("--large")
// "observation" and "search" are values only right after --only; any value right after --chart is its file.
let unknownArgument = arguments.indices.first { index in
    let argument = arguments[index]
    if index > 0 && arguments[index - 1] == "--chart" { return false }
    if argument == "observation" || argument == "search" { return index == 0 || arguments[index - 1] != "--only" }
    return !["--quick", "--large", "--repetitions", "--only", "--chart", "--search"].contains(argument) && Int(argument) == nil
}.map { arguments[$0] }
if let unknown = unknownArgument {
    FileHandle.standardError.write(
        Data("error: unknown option \(unknown); use --quick, --large, --repetitions N, --chart FILE.svg or --only observation|search\n".utf8))
    exit(2)
}
let chartPath = arguments.firstIndex(of: "--chart").map { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : "" }
if chartPath == "" || chartPath?.hasPrefix("--") == true {
    FileHandle.standardError.write(Data("error: --chart takes the SVG file to write, e.g. --chart chart.svg\n".utf8))
    exit(2)
}
let onlyPart =
    arguments.contains("--search") ? "titles" : arguments.firstIndex(of: "--only").map { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : "" }
if let onlyPart, onlyPart != "observation", onlyPart != "search", onlyPart != "titles" {
    FileHandle.standardError.write(Data("error: --only takes observation or search (the parts that can run alone)\n".utf8))
    exit(2)
}
if chartPath != nil, onlyPart != nil {
    FileHandle.standardError.write(Data("error: --chart draws the main table's rows, which --only leaves out\n".utf8))
    exit(2)
}
let onlyObservation = onlyPart == "observation"
let onlySearch = onlyPart == "search"
let onlyTitles = onlyPart == "titles"
let repetitions =
    arguments.firstIndex(of: "--repetitions").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
    ?? (quick ? 3 : 5)
let sizes = quick ? [100, 1_000] : large ? [1_000, 10_000, 100_000, 1_000_000] : [1_000, 10_000, 100_000]
let benchDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let cli = benchDirectory.appendingPathComponent("liststore").path

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(1)
}

let fixtures: Fixtures
do { fixtures = try Fixtures(adversarialInserts: quick ? 1_000 : 100_000) } catch { fail("cannot create a temporary directory: \(error)") }
defer { fixtures.remove() }

if onlyPart == nil {
    let shell = ProcessInfo.processInfo.environment["PATH"].flatMap { path in
        path.split(separator: ":").map { "\($0)/sqlite3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    let loadBefore = Chart.loadAverage()
    do {
        let results = try MainTable(
            fixtures: fixtures, sizes: sizes, repetitions: repetitions, quick: quick,
            cli: FileManager.default.isExecutableFile(atPath: cli) ? cli : nil, shell: shell
        ).run()
        if let chartPath {
            // The chart of the table just printed (Chart.swift), written before the other parts run.
            var command = ["liststore-bench"] + arguments
            if let index = command.firstIndex(of: "--chart") { command.removeSubrange(index...index + 1) }
            let svg = Chart.svg(
                title: "Insert one row in the middle of a section of n rows",
                subtitle: "median of \(repetitions) runs at each n, fresh copies of the same fixture; log–log scales; lower is better",
                note: Chart.note(command: command.joined(separator: " "), loadBefore: loadBefore),
                series: Chart.series(from: results))
            try svg.write(toFile: chartPath, atomically: true, encoding: .utf8)
            print("\nchart: \(chartPath) (\(Chart.operation) against n: ListStore, C dense, limit)")
        }
    } catch {
        fail("\(error)")
    }
}

// Observation: a write with an observer of other connections, and another process's commit noticed.
if !onlySearch && !onlyTitles {
    do {
        try ObservationBench(
            fixtures: fixtures, sizes: sizes, repetitions: repetitions, quick: quick,
            cli: FileManager.default.isExecutableFile(atPath: cli) ? cli : nil
        ).run()
    } catch {
        fail("observation: \(error)")
    }
}

// Search: findRows by title and by payload field (SearchBench.swift).
if !onlyObservation && !onlyTitles {
    do { try SearchBench(fixtures: fixtures, repetitions: repetitions, quick: quick).run() } catch { fail("search: \(error)") }
}

// The index of titles against the scan (TitleWordsBench.swift).
if !onlyObservation {
    do { try TitleWordsBench(fixtures: fixtures, repetitions: repetitions, quick: quick).run() } catch { fail("title words: \(error)") }
}
