import Foundation
import Testing
@_exported import TestSupport

/// Runs the built `liststore` binary as a subprocess in a fresh temporary directory.
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

    /// Runs `liststore` with `arguments` in the harness directory; `stdin` is fed from a file.
    @discardableResult
    func run(_ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:], asUser uid: Int? = nil) throws -> Run {
        let binary = try #require(Self.binary, "build the liststore executable first (swift build)")
        if let uid {
            return try Self.process("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", binary.path] + arguments,
                                    in: directory, stdin: stdin, environment: environment)
        }
        return try Self.process(binary.path, arguments, in: directory, stdin: stdin, environment: environment)
    }

    /// How long one process may run before it is killed and the test fails: generous (a debug build on
    /// a loaded 2-core machine), but finite, so a command that hangs fails the test instead of hanging it.
    static let processTimeout: TimeInterval = 300

    /// A process that was still running when `processTimeout` passed (it was killed).
    struct TimedOut: Error, CustomStringConvertible {
        let command: [String]
        let seconds: TimeInterval
        var description: String { "\(command.joined(separator: " ")) still ran after \(Int(seconds)) s and was killed" }
    }

    static func process(_ executable: String, _ arguments: [String], in directory: URL?, stdin: Data = Data(),
                        environment: [String: String] = [:], timeout: TimeInterval = processTimeout) throws -> Run {
        let scratch = try TemporaryDirectory(prefix: "liststore-io")
        let inURL = scratch.url.appendingPathComponent("in"), outURL = scratch.url.appendingPathComponent("out"), errURL = scratch.url.appendingPathComponent("err")
        try stdin.write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var env = ProcessInfo.processInfo.environment
        env["LISTSTORE_DB"] = nil
        env.merge(environment) { $1 }
        process.environment = env
        let input = try FileHandle(forReadingFrom: inURL), output = try FileHandle(forWritingTo: outURL), error = try FileHandle(forWritingTo: errURL)
        defer { try? input.close(); try? output.close(); try? error.close() }
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
        return Run(status: process.terminationStatus,
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

