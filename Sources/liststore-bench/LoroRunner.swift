import Foundation

/// Loro's side of ``MergeBench``: `Benchmarks/loro_merge.py` run by `python3`, with PyPI's `loro` found
/// in `.build/tools/loro-VERSION` (where `.ci/run` installs the pinned version) or on `$PYTHONPATH`.
/// Throws, rather than let a figure be missing or made up, when the script or `loro` cannot be found.
struct LoroRunner {
    let script: String
    let environment: [String: String]
    /// The version of `loro` the script imported.
    let version: String

    /// The script's `key value` lines.
    struct Figures {
        let fields: [String: String]
        /// A figure: NaN when missing.
        subscript(key: String) -> Double { fields[key].flatMap { Double($0) } ?? .nan }
        /// A count, size or id: -1 when missing.
        func int(_ key: String) -> Int { fields[key].flatMap { Int($0) } ?? -1 }
        func text(_ key: String) -> String { fields[key] ?? "?" }
    }

    init() throws {
        // The package's root: the first folder holding Benchmarks/loro_merge.py above the binary or the current folder.
        let starts = [URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath(), URL(fileURLWithPath: FileManager.default.currentDirectoryPath + "/.")]
        let roots = starts.flatMap { start in
            sequence(first: start.deletingLastPathComponent()) { $0.path == "/" ? nil : $0.deletingLastPathComponent() }
        }
        guard let root = roots.first(where: { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Benchmarks/loro_merge.py").path) }) else {
            throw BenchmarkFailure("Benchmarks/loro_merge.py not found above \(CommandLine.arguments[0]) or the current folder: run from the package")
        }
        script = root.appendingPathComponent("Benchmarks/loro_merge.py").path
        var environment = ProcessInfo.processInfo.environment
        let tools = root.appendingPathComponent(".build/tools/loro-\(MergeBench.loroVersion)").path
        if FileManager.default.fileExists(atPath: tools) {
            environment["PYTHONPATH"] = ([tools] + [environment["PYTHONPATH"]].compactMap { $0 }).joined(separator: ":")
        }
        self.environment = environment
        let (status, output) = try Self.python([script, "--check"], environment: environment)
        guard status == 0, let line = output.first, line.hasPrefix("loro ") else {
            throw BenchmarkFailure(
                "Loro cannot be run, so there is no Loro figure: \(output.joined(separator: " ")) (exit \(status)); .ci/run installs it: "
                    + "python3 -m pip install --target .build/tools/loro-\(MergeBench.loroVersion) loro==\(MergeBench.loroVersion)")
        }
        version = String(line.dropFirst("loro ".count))
    }

    /// Runs the script for `rows` elements and the counts of `mix`, with Loro's own seed; the peers' ids
    /// (A's, B's) are drawn from it unless given.
    func run(rows: Int, mix: EditMix, peers: [String] = []) throws -> Figures {
        let counts = [rows, MergeBench.sections, mix.singleInserts, mix.runs, mix.movesWithin, mix.movesAcross, mix.titles, mix.deletes, Int(EditMix.seed) + 1]
        let (status, output) = try Self.python([script] + counts.map(String.init) + peers, environment: environment)
        var fields: [String: String] = [:]
        for line in output {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        // Exit 1 with every figure: the docs differ after the import (the caller says so).
        guard status == 0 || (status == 1 && fields["converged"] == "no"), fields["merge_seconds"] != nil else {
            throw BenchmarkFailure("\(script) exited with \(status): \(output.joined(separator: "; "))")
        }
        return Figures(fields: fields)
    }

    /// Runs `python3` with `arguments`; its exit status and the lines it printed (its errors go to ours).
    static func python(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, lines: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
    }
}
