import Foundation

/// Wall-clock timing and medians.
enum Measurement {
    /// Seconds `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// This process's peak resident memory in KiB (`VmHWM`). Unlike `ru_maxrss`, it is not inflated by
    /// the memory of a parent that spawned this process with vfork.
    static func peakResidentKiB() -> Int? {
        #if os(Linux)
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
            else { return nil }
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        #else
            var usage = rusage()
            guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
            return Int(usage.ru_maxrss) / 1024  // bytes on Apple platforms
        #endif
    }

    /// `0.42 ms`, `1.30 s`, …
    static func format(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "n/a" }
        if seconds < 1e-3 { return String(format: "%.1f µs", seconds * 1e6) }
        if seconds < 1 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.2f s", seconds)
    }

    /// Runs `executable` with `arguments` (standard output to `output`), waits, and returns its exit
    /// status and the seconds it took.
    static func spawn(_ executable: String, _ arguments: [String], output: String = "/dev/null") -> (status: Int32, seconds: Double) {
        var pid: pid_t = 0
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t?
        #else
            var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var usage = rusage()
        var status: Int32 = 0
        let seconds = Measurement.seconds {
            guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
                status = -1
                return
            }
            wait4(pid, &status, 0, &usage)
        }
        _ = usage
        let exitStatus: Int32 = status == -1 ? -1 : (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (exitStatus, seconds)
    }
}
