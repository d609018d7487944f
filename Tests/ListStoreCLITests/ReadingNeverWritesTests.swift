import Foundation
import ListStore
import StoreShorthands
import Testing

/// Reading commands never change the main database file's bytes — not through the checkpoint SQLite
/// runs when the last connection closes, not by rolling back a hot journal, not by applying someone
/// else's `-wal` file — and a file ListStore refuses is never written by any command.
@Suite struct ReadingNeverWritesTests {
    /// The reading commands, each with the arguments it needs (`backup` writes only its new FILE).
    static let readingCommands: [[String]] = [
        ["show"], ["show", "0"], ["--json", "show"], ["export"], ["export", "out.json"],
        ["check"], ["backup", "copy.sqlite"],
    ]

    /// Feeds `script` to `sqlite3 DATABASE` (the shell, as a person would type it; dot commands
    /// included), requiring success.
    static func shell(_ cli: CLIHarness, _ database: String, _ script: String) throws {
        let run = try CLIHarness.process("/usr/bin/env", ["sqlite3", "-bail", database], in: cli.directory, stdin: Data((script + "\n").utf8))
        try #require(run.status == 0, "sqlite3 failed: \(run.stderr)")
    }

    /// Runs every reading command against `path` and requires that none changed the main file's bytes
    /// (nor, when `companion` is given, that file's bytes); returns the runs.
    @discardableResult
    static func readEverything(_ cli: CLIHarness, _ path: String, companion: String? = nil) throws -> [CLIHarness.Run] {
        let before = try #require(cli.bytes(path))
        let companionBefore = companion.flatMap { cli.bytes($0) }
        var runs: [CLIHarness.Run] = []
        for arguments in readingCommands {
            for leftover in ["out.json", "copy.sqlite"] { try? FileManager.default.removeItem(at: cli.directory.appendingPathComponent(leftover)) }
            let run = try cli.run(["--db", path] + arguments)
            runs.append(run)
            #expect(cli.bytes(path) == before, "`\(arguments.joined(separator: " "))` changed the main file")
            if let companion { #expect(cli.bytes(companion) == companionBefore, "`\(arguments.joined(separator: " "))` changed \(companion)") }
        }
        return runs
    }

    @Test func committedFramesLeftByAKilledWriterAreReadButNeverCheckpointedIntoTheFile() async throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        // A writer that commits and never closes: while it is still connected, its file and -wal are
        // copied — exactly what a writer killed at that moment leaves behind.
        let killed = cli.directory.appendingPathComponent("killed.sqlite").path
        try Self.shell(
            cli, cli.database,
            """
            PRAGMA wal_autocheckpoint = 0;
            UPDATE rows SET title = 'Committed, never checkpointed' WHERE title = 'Argentina';
            .shell cp liststore.sqlite killed.sqlite
            .shell cp liststore.sqlite-wal killed.sqlite-wal
            """)
        try #require(FileManager.default.fileExists(atPath: killed + "-wal"))
        let dumpBefore = try cli.dump(killed)
        #expect(dumpBefore.contains("Committed, never checkpointed"))
        let runs = try Self.readEverything(cli, killed)
        for (arguments, run) in zip(Self.readingCommands, runs) {
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        #expect(runs[0].stdout.contains("2:0  Committed, never checkpointed"), "reads see the committed frames")
        #expect(try cli.dump(killed) == dumpBefore)
        // The library's reading modes, watching included, leave it alone too.
        let bytes = try #require(cli.bytes(killed))
        for mode in [ListStore.AccessMode.readOnly, .inspect] {
            let store = try ListStore.open(at: killed, mode: mode)
            var updates = store.observe().makeAsyncIterator()
            _ = try store.snapshot()
            // The start reads on a background thread, holding the store until it has: wait for it.
            guard case .initial? = try await nextElement(&updates) else {
                Issue.record("no initial state")
                return
            }
        }
        #expect(cli.bytes(killed) == bytes)
        // A write checkpoints as usual once it has committed.
        #expect(try cli.run(["--db", killed, "add", "2", "x"]).status == 0)
        #expect(cli.bytes(killed) != bytes)
        #expect(!FileManager.default.fileExists(atPath: killed + "-wal"))
    }

    @Test func anotherDatabasesWalBesideTheFileIsNeverAppliedToIt() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        let dumpOfOurs = try cli.dump()
        let other = cli.directory.appendingPathComponent("other.sqlite").path
        try Self.shell(
            cli, other,
            """
            PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
            CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada');
            .shell cp other.sqlite-wal liststore.sqlite-wal
            """)
        let runs = try Self.readEverything(cli, cli.database, companion: cli.database + "-wal")
        for run in runs {
            #expect(run.status == 1)
            #expect(run.stderr.contains("-wal file holds another database's pages"), "\(run.stderr)")
        }
        for arguments in [["init"], ["add", "0", "x"], ["repair"], ["import", "--replace", "-"]] {
            let before = try #require(cli.bytes())
            let run = try cli.run(arguments, stdin: Data("{\"sections\":[]}".utf8))
            #expect(run.status == 1, "\(arguments)")
            #expect(cli.bytes() == before, "\(arguments) wrote to the file")
        }
        // Without the stranger, the file is exactly what it was.
        try FileManager.default.removeItem(atPath: cli.database + "-wal")
        try? FileManager.default.removeItem(atPath: cli.database + "-shm")
        #expect(try cli.dump() == dumpOfOurs)
        #expect(try cli.run(["show", "2"]).stdout.contains("2:0  Argentina"))
    }

    @Test func aHotRollbackJournalIsNeverRolledBackByAReadButIsByAWrite() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        let dumpBefore = try cli.dump()
        // A rollback-journal writer whose big transaction has spilled pages into the file, copied
        // with its journal while it is still open: a writer killed at that moment.
        try Self.shell(
            cli, cli.database,
            """
            PRAGMA journal_mode = DELETE; PRAGMA cache_size = 1;
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
              INSERT INTO rows (section_id, position, title) SELECT 1, 1000 + i, printf('%.3000c', 'x') FROM n;
            .shell cp liststore.sqlite hot.sqlite
            .shell cp liststore.sqlite-journal hot.sqlite-journal
            ROLLBACK;
            """)
        let hot = cli.directory.appendingPathComponent("hot.sqlite").path
        try #require(FileManager.default.fileExists(atPath: hot + "-journal"))
        let runs = try Self.readEverything(cli, hot, companion: hot + "-journal")
        for run in runs {
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("error: ") && run.stderr.split(separator: "\n").count == 1)
            #expect(run.stderr.contains("rollback journal"), "\(run.stderr)")
        }
        // A command that may write rolls the interrupted transaction back, as SQLite should.
        #expect(try cli.run(["--db", hot, "init"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: hot + "-journal"))
        #expect(try cli.dump(hot) == dumpBefore)
    }

    @Test func aDamagedPageIsReportedAndLeftAsItWas() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        try #require(try cli.run(["add", "2", "-"], stdin: Data((0..<400).map { "row \($0) " + String(repeating: "y", count: 60) }.joined(separator: "\n").utf8)).status == 0)
        let root = try CLIHarness.process("/usr/bin/env", ["sqlite3", "-readonly", cli.database, "SELECT rootpage FROM sqlite_schema WHERE name = 'rows'"], in: cli.directory)
        let page = try #require(Int(root.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let handle = try #require(FileHandle(forUpdatingAtPath: cli.database))
        try handle.seek(toOffset: UInt64((page - 1) * 4096 + 8))
        handle.write(Data(repeating: 0xA5, count: 200))
        try handle.close()
        let runs = try Self.readEverything(cli, cli.database)
        #expect(runs.allSatisfy { $0.status == 1 && $0.stderr.hasPrefix("error: ") }, "\(runs.map(\.stderr))")
        for arguments in [["init"], ["add", "2", "x"], ["repair"]] {
            let before = try #require(cli.bytes())
            #expect(try cli.run(arguments).status == 1)
            #expect(cli.bytes() == before, "\(arguments) wrote to the file")
        }
    }

    @Test func filesListStoreRefusesAreNeverWrittenByAnyCommand() throws {
        let cli = try CLIHarness()
        let newer = cli.directory.appendingPathComponent("newer.sqlite").path
        let altered = cli.directory.appendingPathComponent("altered.sqlite").path
        let foreign = cli.directory.appendingPathComponent("foreign.sqlite").path
        for path in [newer, altered] { try #require(try cli.run(["--db", path, "demo"]).status == 0) }
        try Self.shell(cli, newer, "PRAGMA user_version = 99")
        try Self.shell(cli, altered, "DROP TRIGGER rows_counted_on_insert")
        try Self.shell(cli, foreign, "PRAGMA journal_mode = WAL; CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')")
        let everyCommand =
            Self.readingCommands + [
                ["init"], ["demo"], ["add", "0", "x"], ["section", "add", "S"], ["delete", "0:0"],
                ["repair"], ["import", "--replace", "-"],
            ]
        for path in [newer, altered, foreign] {
            let before = try #require(cli.bytes(path))
            for arguments in everyCommand {
                for leftover in ["out.json", "copy.sqlite"] { try? FileManager.default.removeItem(at: cli.directory.appendingPathComponent(leftover)) }
                let run = try cli.run(["--db", path] + arguments, stdin: Data("{\"sections\":[]}".utf8))
                #expect(run.status == 1, "\(path) \(arguments)")
                #expect(cli.bytes(path) == before, "\(arguments) wrote to \(path)")
            }
        }
    }
}
