import Foundation
import Testing

/// A process running beside a test (`liststore watch`, `litestream replicate`), its output in files,
/// always killed (SIGKILL) when the value is released so no test leaves one running.
final class BackgroundProcess {
    private let process = Process()
    /// Where its standard output and standard error go.
    let output: URL, errors: URL

    /// Starts `executable` with `arguments`; output goes to `name.out` and `name.err` in `directory`.
    init(_ executable: String, _ arguments: [String], in directory: URL, name: String, environment: [String: String] = [:]) throws {
        output = directory.appendingPathComponent("\(name).out")
        errors = directory.appendingPathComponent("\(name).err")
        try Data().write(to: output)
        try Data().write(to: errors)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env["LISTSTORE_DB"] = nil
        env.merge(environment) { $1 }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
    }

    deinit { kill() }

    /// The process id.
    var pid: Int32 { process.processIdentifier }
    /// True until it exits.
    var isRunning: Bool { process.isRunning }

    /// Sends SIGKILL (if still running) and waits for it to end.
    func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Sends `signal` and waits up to `timeout` for it to exit; then SIGKILL.
    func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 10) {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        kill()
    }

    /// Waits up to `timeout` for it to exit by itself; its status, or nil when it is still running.
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// The complete lines read so far from each file (keyed by `errors`), and where they end.
    private var complete: [Bool: (lines: [String], end: UInt64)] = [:]

    /// Its standard output (or error) so far, as lines (the last one possibly still being written; empty
    /// lines left out). Only what was added since the last call is read and split: `waitForLines` polls,
    /// and a `watch --json` line can be 80 MB.
    func lines(errors fromErrors: Bool = false) -> [String] {
        var (lines, end) = complete[fromErrors] ?? ([], 0)
        guard let handle = try? FileHandle(forReadingFrom: fromErrors ? errors : output) else { return lines }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: end)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else { return lines }
        let bytes = [UInt8](data)
        var start = 0
        var partial: String?
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            while start < buffer.count {
                guard let found = memchr(base + start, 0x0A, buffer.count - start) else {
                    partial = String(decoding: buffer[start...], as: UTF8.self)
                    return
                }
                let newline = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                if newline > start { lines.append(String(decoding: buffer[start..<newline], as: UTF8.self)) }
                start = newline + 1
            }
        }
        complete[fromErrors] = (lines, end + UInt64(start))
        return partial.map { lines + [$0] } ?? lines
    }

    /// Polls until `condition` holds for its output (or error) lines, or `timeout` passes; the last lines seen.
    /// The default is generous (a debug build on a loaded machine): it only costs time when the test fails.
    @discardableResult
    func waitForLines(errors fromErrors: Bool = false, timeout: TimeInterval = 60, until condition: ([String]) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = lines(errors: fromErrors)
        while !condition(seen) && Date() < deadline {
            usleep(20_000)
            seen = lines(errors: fromErrors)
        }
        return seen
    }
}
