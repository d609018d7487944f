import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// A `liststore` process whose write took the `-wal` past the checkpoint threshold checkpoints inside
/// that commit (SQLite's automatic checkpoint) and again on close: killed at any moment of that, the
/// file opens sound with the write in it; left to finish, it leaves no `-wal`.
@Suite(.tags(.slow)) struct CheckpointKillTests {
    /// Enough titles (of about 100 bytes) to take the `-wal` past 1,000 frames in one commit.
    static let rows = 50_000

    static func input(_ tag: String) -> Data {
        let padding = String(repeating: "x", count: 90)
        return Data((0..<rows).map { "\(tag) \($0) \(padding)" }.joined(separator: "\n").utf8)
    }

    static func start(_ binary: URL, database: String, stdin: URL) throws -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--db", database, "add", "0", "-"]
        process.standardInput = try FileHandle(forReadingFrom: stdin)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Polls (for at most a minute) until the file at `path` holds `count` rows, or `process` ended;
    /// whether it does. The connection is closed again at once, so that the process stays the last one.
    static func waitForRows(_ count: Int, in path: String, while process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline {
            let seen = try? Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM rows")
            if seen == count { return true }
            usleep(500)
        }
        return false
    }

    @Test func aOneShotProcessLeavesNoWALAfterALargeWrite() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "s"])
        let run = try cli.run(["add", "0", "-"], stdin: Self.input("r"), process: true)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.database + "-wal"))
        #expect(try ListStore.open(at: cli.database).totalRowCount() == Self.rows)
    }

    @Test func killedWhileCheckpointingTheFileOpensSound() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        try cli.run(["section", "add", "s"])
        let stdin = cli.directory.appendingPathComponent("stdin")
        try Self.input("r").write(to: stdin)
        var random = SeededGenerator(seed: 18_001)
        var expected = 0
        var killedAfterCommit = 0
        for step in 0..<10 {
            let process = try Self.start(binary, database: cli.database, stdin: stdin)
            // Once the commit is visible (its checkpoint runs inside it, then on close), a random moment later.
            let committed = Self.waitForRows(expected + Self.rows, in: cli.database, while: process)
            if committed { usleep(UInt32.random(in: 0...5_000, using: &random)) }
            let killed = process.isRunning
            if killed { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let walLeft = FileManager.default.fileExists(atPath: cli.database + "-wal")
            let reopened = try ListStore.open(at: cli.database)
            let problems = try reopened.checkInvariants()
            try #require(problems.isEmpty, "step \(step), killed: \(killed): \(problems)")
            let count = try reopened.totalRowCount()
            #expect(count == expected + Self.rows, "step \(step): \(count) rows, \(expected) before")
            if killed && walLeft { killedAfterCommit += 1 }
            expected = count
        }
        #expect(killedAfterCommit > 0, "no kill landed after a commit, while its checkpoint ran")
        let check = try cli.run(["check"], process: true)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }
}
