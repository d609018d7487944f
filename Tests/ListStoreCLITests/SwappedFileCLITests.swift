import Foundation
import Testing

/// End to end, a backup renamed over the database while `liststore batch -` is inside
/// its transaction. The batch must refuse to commit (one `error:` line, exit 1), and the file at the path
/// must then be exactly the backup — not "database disk image is malformed".
@Suite struct SwappedFileCLITests {
    /// True while another connection holds the write lock on `database` (the sqlite3 shell waits 0 ms).
    static func writeLockIsHeld(_ cli: CLIHarness, _ database: String) throws -> Bool {
        try CLIHarness.process("/usr/bin/env", ["sqlite3", database, "BEGIN IMMEDIATE; ROLLBACK;"], in: cli.directory).status != 0
    }

    /// Runs `batch -` on the harness database, feeding `first`, then (once the batch holds the write
    /// lock) runs `meanwhile`, feeds `second` and ends the input; returns the batch's exit status and
    /// standard error.
    static func batch(_ cli: CLIHarness, first: String, second: String, meanwhile: () throws -> Void) throws -> (status: Int32, stderr: String) {
        let binary = try #require(CLIHarness.binary)
        let errors = cli.directory.appendingPathComponent("batch.err")
        try Data().write(to: errors)
        let input = Pipe()
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--db", cli.database, "batch", "-"]
        process.currentDirectoryURL = cli.directory
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        defer {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        input.fileHandleForWriting.write(Data(first.utf8))
        let deadline = Date().addingTimeInterval(60)
        while try !writeLockIsHeld(cli, cli.database) {
            try #require(Date() < deadline && process.isRunning, "the batch never took the write lock")
            usleep(20_000)
        }
        try meanwhile()
        input.fileHandleForWriting.write(Data(second.utf8))
        try input.fileHandleForWriting.close()
        try #require(exited.wait(timeout: .now() + 120) == .success, "the batch did not end")
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: (try? Data(contentsOf: errors)) ?? Data(), as: UTF8.self))
    }

    @Test func aBackupRenamedOverTheFileDuringABatchIsNeverWritten() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        let backup = cli.directory.appendingPathComponent("backup.sqlite").path
        try #require(try cli.run(["--db", backup, "section", "add", "Restored"]).status == 0)
        try #require(try cli.run(["--db", backup, "add", "0", "from the backup"]).status == 0)
        let backupBytes = try #require(cli.bytes(backup))
        let result = try Self.batch(cli, first: "add 0 one\n", second: "add 0 two\n") {
            try #require(rename(backup, cli.database) == 0)
        }
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("error: ") && result.stderr.contains("was replaced or moved while it was open here"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(cli.bytes() == backupBytes)
        let show = try cli.run(["show"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("from the backup") && !show.stdout.contains("one"), "\(show.stdout)")
        #expect(try cli.run(["check"]).status == 0)
    }

    @Test func withoutTheRenameTheBatchCommits() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        let result = try Self.batch(cli, first: "add 0 one\n", second: "add 0 two\n") {}
        #expect(result.status == 0, "\(result.stderr)")
        let show = try cli.run(["show", "0"]).stdout
        #expect(show.contains("one") && show.contains("two"), "\(show)")
    }

    /// `watch` on a file that a backup is then renamed over: it ends at its next poll, with one
    /// `error:` line saying so and exit 1, instead of watching the old file quietly forever.
    @Test func watchEndsWithAnErrorWhenTheFileIsReplaced() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        let backup = cli.directory.appendingPathComponent("backup.sqlite").path
        try #require(try cli.run(["--db", backup, "section", "add", "Restored"]).status == 0)
        let binary = try #require(CLIHarness.binary)
        let watcher = try BackgroundProcess(binary.path, ["--db", cli.database, "--json", "watch"], in: cli.directory, name: "watch")
        // Ready once it printed the state it starts from.
        try #require(watcher.waitForLines { !$0.isEmpty }.count == 1, "watch never started")
        try #require(rename(backup, cli.database) == 0)
        let status = watcher.waitForExit(timeout: 30)
        #expect(status == 1)
        let errors = watcher.lines(errors: true).filter { !$0.hasPrefix("watching ") }
        #expect(errors.count == 1 && errors[0].hasPrefix("error: stopped watching") && errors[0].contains("was replaced or moved"), "\(errors)")
    }

    @Test func withoutTheReplacementWatchKeepsReporting() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        let binary = try #require(CLIHarness.binary)
        let watcher = try BackgroundProcess(binary.path, ["--db", cli.database, "--json", "watch"], in: cli.directory, name: "watch")
        try #require(watcher.waitForLines { !$0.isEmpty }.count == 1, "watch never started")
        try #require(try cli.run(["add", "0", "later"]).status == 0)
        #expect(watcher.waitForLines { $0.count >= 2 }.count == 2)
        #expect(watcher.isRunning)
    }
}
