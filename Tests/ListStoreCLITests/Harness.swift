import Foundation
import ListStore
import StoreShorthands
@_exported import TestSupport
import Testing

@testable import ListStoreCLI

/// Runs `liststore` command lines in a fresh temporary directory: in this process through the CLI's
/// entry point (`CLI.run`), or, where a separate process is the point, as the built binary.
final class CLIHarness: Sendable {
    private let temporary: TemporaryDirectory
    var directory: URL { temporary.url }
    var database: String { directory.appendingPathComponent("liststore.sqlite").path }

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    init() throws {
        temporary = try TemporaryDirectory(prefix: "liststore-cli")
    }

    /// The `liststore` executable built next to the test bundle.
    static let binary: URL? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/debug"),
        ]
        return candidates.map { $0.appendingPathComponent("liststore") }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `liststore` with `arguments` in the harness directory; `stdin` is fed from a file. By default
    /// the command runs in this process (``runInProcess(_:stdin:environment:)``: the same result without a
    /// process start-up); `process: true` (or `asUser`, which needs `setpriv`) runs the built binary in a
    /// process of its own — for crashes, signals, other processes, terminals and process memory.
    @discardableResult
    func run(
        _ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:], asUser uid: Int? = nil,
        process: Bool = false
    ) throws -> Run {
        guard process || uid != nil else { return try runInProcess(arguments, stdin: stdin, environment: environment) }
        let binary = try #require(Self.binary, "build the liststore executable first (swift build)")
        if let uid {
            return try Self.process(
                "/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", binary.path] + arguments,
                in: directory, stdin: stdin, environment: environment)
        }
        return try Self.process(binary.path, arguments, in: directory, stdin: stdin, environment: environment)
    }

    /// Runs `liststore` with `arguments` through `CLI.run` in this process, as the binary would run in the
    /// harness directory: relative paths resolve against that directory (``CLIEnvironment/workingDirectory``;
    /// the test process's own working directory is never changed), `LISTSTORE_DB` is cleared before
    /// `environment` is applied, standard input is `stdin` read from a file by the binary's own reader,
    /// standard error is not a terminal, and what the command streams comes before its result on standard
    /// output, progress before the error on standard error — as the binary's `main` writes them. The run
    /// is on a thread of its own, waited for at most `timeout`: a command that hangs fails its test (its
    /// thread cannot be killed and is left to end by itself). One difference remains: a library error that
    /// names the database names it by the resolved path (the harness directory's), not as written.
    func runInProcess(
        _ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:],
        timeout: TimeInterval = processTimeout
    ) throws -> Run {
        let scratch = try TemporaryDirectory(prefix: "liststore-io")
        let inURL = scratch.url.appendingPathComponent("in")
        try stdin.write(to: inURL)
        let input = try FileHandle(forReadingFrom: inURL)  // closed when the run ends, even after a time-out
        let descriptor = input.fileDescriptor
        let output = Locked("")
        let errors = Locked("")
        var cli = CLIEnvironment(
            variables: Self.childEnvironment(environment),
            readStandardInput: { BoundedReader.read(descriptor: descriptor) }, standardErrorIsTerminal: false,
            writeProgress: { text in errors.withLock { $0 += text } },
            writeOutput: { text in output.withLock { $0 += text } })
        cli.workingDirectory = directory.path
        cli.standardInput = descriptor
        // The bytes a process would get in argv: a C string ends at its first NUL.
        let raw = arguments.map { Array($0.utf8.prefix { $0 != 0 }) }
        let result = Locked<CLI.Result?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread { [cli] in
            let ended = CLI.run(rawArguments: raw, environment: cli)
            result.withLock { $0 = ended }
            try? input.close()
            finished.signal()
        }
        thread.stackSize = 8 << 20  // a process's main thread: deep JSON is parsed recursively
        thread.start()
        guard finished.wait(timeout: .now() + timeout) == .success, let ended = result.withLock({ $0 }) else {
            throw TimedOut(command: ["liststore (in process)"] + arguments, seconds: timeout, fate: "was left running")
        }
        return Run(status: ended.status, stdout: output.withLock { $0 } + ended.output, stderr: errors.withLock { $0 } + ended.error)
    }

    /// The environment a run gets: this process's, without `LISTSTORE_DB`, with `overrides` applied.
    static func childEnvironment(_ overrides: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["LISTSTORE_DB"] = nil
        environment["LISTSTORE_LIST"] = nil
        environment.merge(overrides) { $1 }
        return environment
    }

    /// How long one process may run before it is killed and the test fails: generous (a debug build on
    /// a loaded 2-core machine), but finite, so a command that hangs fails the test instead of hanging it.
    static let processTimeout: TimeInterval = 300

    /// A process that was still running when `processTimeout` passed (it was killed).
    struct TimedOut: Error, CustomStringConvertible {
        let command: [String]
        let seconds: TimeInterval
        /// What became of it: a process is killed; a run in this process cannot be, and is left to end.
        var fate = "was killed"
        var description: String { "\(command.joined(separator: " ")) still ran after \(Int(seconds)) s and \(fate)" }
    }

    static func process(
        _ executable: String, _ arguments: [String], in directory: URL?, stdin: Data = Data(),
        environment: [String: String] = [:], timeout: TimeInterval = processTimeout
    ) throws -> Run {
        let scratch = try TemporaryDirectory(prefix: "liststore-io")
        let inURL = scratch.url.appendingPathComponent("in")
        let outURL = scratch.url.appendingPathComponent("out")
        let errURL = scratch.url.appendingPathComponent("err")
        try stdin.write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = childEnvironment(environment)
        let input = try FileHandle(forReadingFrom: inURL)
        let output = try FileHandle(forWritingTo: outURL)
        let error = try FileHandle(forWritingTo: errURL)
        defer {
            try? input.close()
            try? output.close()
            try? error.close()
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TimedOut(command: [executable] + arguments, seconds: timeout)
        }
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
            stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
            stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
    }

    /// `sqlite3 FILE .dump`: the whole content, to compare before and after a command.
    func dump(_ path: String? = nil) throws -> String {
        let run = try Self.process("/usr/bin/env", ["sqlite3", "-readonly", path ?? database, ".dump"], in: directory)
        try #require(run.status == 0, "sqlite3 failed: \(run.stderr)")
        return run.stdout
    }

    func bytes(_ path: String? = nil) -> Data? { FileManager.default.contents(atPath: path ?? database) }

    /// Parses a command's JSON output with Foundation, independently of the CLI's own JSON code.
    static func json(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        return try #require(object as? [String: Any], "not a JSON object: \(text)")
    }
}
