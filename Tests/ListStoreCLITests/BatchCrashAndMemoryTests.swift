import Foundation
import Testing

@testable import ListStore

/// `batch` killed at any moment leaves all of it or nothing; its memory does not grow with its input.
@Suite(.tags(.slow)) struct BatchCrashAndMemoryTests {
    /// A batch of adds and deletes; `tag` makes every batch's rows different.
    static func batch(_ tag: Int, lines: Int) -> String {
        (0..<lines).map { line in
            switch line % 10 {
            case 9: "delete 0:0 0:1"
            case 4: "move 0:0 0:3"
            default: "add 0 'k\(tag) \(line)' --at \(line % 7)"
            }
        }.joined(separator: "\n")
    }

    /// An export's text without its `"id":N,` members.
    static func withoutIDs(_ export: String) -> String {
        export.replacing(/"id":[0-9]+,/, with: "")
    }

    @Test func killedBatchesLeaveAllOrNothing() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        try cli.run(["section", "add", "A"])
        try cli.run(["batch"], stdin: Data((0..<2_000).map { "add 0 'r\($0)'" }.joined(separator: "\n").utf8))
        var random = SeededGenerator(seed: 77)
        var outcomes = (before: 0, after: 0)
        var kills = 0
        for step in 0..<8 {
            let input = cli.directory.appendingPathComponent("batch\(step).txt")
            try Data(Self.batch(step, lines: 2_000).utf8).write(to: input)
            let before = Self.withoutIDs(try cli.run(["export"]).stdout)
            // What the batch leads to: the same batch on a copy, run to the end. A copy gives new rows ids of
            // its own range (another replica of the list), so the exports are compared without ids.
            let copy = cli.directory.appendingPathComponent("copy\(step).sqlite").path
            try #require(try cli.run(["backup", copy]).status == 0)
            let started = Date()
            let completed = try cli.run(["--db", copy, "batch", input.path], process: true)  // timed: the kill below hits a process
            try #require(completed.status == 0, "\(completed.stderr)")
            let duration = Date().timeIntervalSince(started)
            let after = Self.withoutIDs(try cli.run(["--db", copy, "export"]).stdout)

            let process = Process()
            process.executableURL = binary
            process.arguments = ["--db", cli.database, "batch", input.path]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32(duration * Double.random(in: 0.1...1.3, using: &random) * 1_000_000))
            let killed = process.isRunning
            if killed {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()

            let reopened = try ListStore.open(at: cli.database)
            #expect(try reopened.checkInvariants().isEmpty)
            let now = Self.withoutIDs(try cli.run(["export"]).stdout)
            if now == before {
                outcomes.before += 1
            } else if now == after {
                outcomes.after += 1
            } else {
                Issue.record("step \(step): the store is neither before nor after the batch (killed: \(killed))")
                return
            }
            #expect(killed || now == after, "a batch that ran to its end committed")
        }
        #expect(kills > 0 && outcomes.before > 0, "some kills land inside the batch: \(outcomes), \(kills) kills")
    }

    /// Peak resident memory of `liststore batch FILE` on FILE with `lines` copies of `line`, in kB: the
    /// child's own `ru_maxrss`, from `wait4` (Foundation's Process reaps its children itself, so this
    /// spawns the binary directly).
    static func peakMemory(_ cli: CLIHarness, line: String, lines: Int) throws -> Int {
        let input = cli.directory.appendingPathComponent("lines.txt")
        try Data().write(to: input)
        let handle = try FileHandle(forWritingTo: input)
        let block = Data(String(repeating: line + "\n", count: 1_000).utf8)
        for _ in 0..<(lines / 1_000) { handle.write(block) }
        try handle.close()
        let arguments = [try #require(CLIHarness.binary).path, "--db", cli.database, "batch", input.path]
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        try #require(posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0)
        var status: Int32 = 0
        var usage = rusage()
        try #require(wait4(pid, &status, 0, &usage) == pid)
        try #require(status == 0, "batch exited with status \(status)")
        return usage.ru_maxrss
    }

    /// Input is streamed: 100,000 lines of 1 KB (100 MB) take no more memory than 10,000 (10 MB). The
    /// lines rename a section to the title it has, edits that change nothing, so what is measured is
    /// the reading, splitting, parsing and applying of lines, not a change set.
    @Test func memoryDoesNotGrowWithTheInput() throws {
        let cli = try CLIHarness()
        let title = String(repeating: "t", count: 1_000)
        try cli.run(["section", "add", title])
        let small = try Self.peakMemory(cli, line: "section rename 0 \(title)", lines: 10_000)
        let large = try Self.peakMemory(cli, line: "section rename 0 \(title)", lines: 100_000)
        #expect(Double(large) < Double(small) * 1.5 + 10_000, "peak memory \(small) kB for 10,000 lines, \(large) kB for 100,000")
    }

    /// A batch of 100,000 inserts in memory independent of its length (without --json, the batch runs as
    /// an untracked write transaction: no change set is built), but for the writer's page cache, which
    /// keeps up to ``ListStore/writerPageCacheKiB`` of the pages a large write touched.
    @Test func memoryDoesNotGrowWithTheNumberOfInserts() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "A"])
        let small = try Self.peakMemory(cli, line: "add 0 x", lines: 10_000)
        let large = try Self.peakMemory(cli, line: "add 0 x", lines: 100_000)
        let cache = Double(ListStore.writerPageCacheKiB)
        #expect(Double(large) < Double(small) * 1.5 + 10_000 + cache, "peak memory \(small) kB for 10,000 lines, \(large) kB for 100,000")
    }
}
