import Foundation
import ListStore
import StoreShorthands
import Testing

/// Full disks, file size limits and odd standard outputs for the tests of `backup`, `export` and
/// output writing: a small tmpfs, `ulimit -f` in a child shell, the binary with a given standard output.
enum FileSystemFaults {
    /// A tmpfs of `kilobytes` mounted on a new folder `name` inside `directory`; unmount it (with
    /// ``unmount(_:)``) before the directory goes.
    static func mountTmpfs(in directory: URL, name: String = "small", kilobytes: Int) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let run = try CLIHarness.process("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path], in: nil, timeout: 60)
        try #require(run.status == 0, "mount -t tmpfs failed: \(run.stderr)")
        return path
    }

    static func unmount(_ path: String) {
        _ = try? CLIHarness.process("/bin/umount", [path], in: nil, timeout: 60)
    }

    /// Whether this process may mount a tmpfs (root, outside a restricted container): tried once.
    static let canMountTmpfs: Bool = {
        guard getuid() == 0, let directory = try? TemporaryDirectory(prefix: "tmpfs-probe"),
            let path = try? mountTmpfs(in: directory.url, kilobytes: 64)
        else { return false }
        unmount(path)
        return true
    }()

    /// Runs the binary in `directory` from `/bin/sh` with a file size limit of `blocks` × 512 bytes
    /// (`ulimit -f`, which `dash` counts in 512-byte blocks), `exec`-ing it so the signal, if any, is its own.
    static func runLimited(blocks: Int, _ arguments: [String], in directory: URL) throws -> CLIHarness.Run {
        let binary = try #require(CLIHarness.binary, "build the liststore executable first (swift build)")
        return try CLIHarness.process("/bin/sh", ["-c", "ulimit -f \(blocks) && exec \"$0\" \"$@\"", binary.path] + arguments, in: directory)
    }

    /// Runs the binary in `directory` with standard output on `output` (a device, a pipe); standard
    /// error is read back. Bounded by ``CLIHarness/processTimeout``.
    static func run(_ arguments: [String], in directory: URL, output: FileHandle) throws -> (reason: Process.TerminationReason, status: Int32, stderr: String) {
        let binary = try #require(CLIHarness.binary, "build the liststore executable first (swift build)")
        let scratch = try TemporaryDirectory(prefix: "liststore-stderr")
        let errorURL = scratch.url.appendingPathComponent("err")
        try Data().write(to: errorURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer { try? error.close() }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["LISTSTORE_DB"] = nil
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + CLIHarness.processTimeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw CLIHarness.TimedOut(command: arguments, seconds: CLIHarness.processTimeout)
        }
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus, String(decoding: (try? Data(contentsOf: errorURL)) ?? Data(), as: UTF8.self))
    }

    /// Every name in `folder`, hidden ones included, sorted.
    static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// A store at `path` with `sections` sections of `rows` rows with 40-character titles: about 60 bytes
    /// of database and of export per row.
    static func makeStore(at path: String, sections: Int = 3, rows: Int = 1_000) throws {
        let store = try ListStore.open(at: path)
        try store.write { tx in
            for section in 0..<sections {
                try tx.insertSection(title: "section \(section)")
                _ = try tx.insertRows((0..<rows).map { "row \($0) " + String(repeating: "x", count: 40) }, intoSection: section)
            }
        }
    }
}
