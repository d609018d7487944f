import Foundation
import Testing

/// SIGKILL during the first write to a version-3 file, which runs migration 0004 (the file identity) in
/// the same transaction: the file is always either still at version 3, without an identity and without
/// the edit, or at the current version with its identity and the edit — never in between.
@Suite struct IdentityMigrationCrashTests {
    static let rowCount = 20_000, added = 5_000

    /// A closed version-3 file made by the sqlite3 shell from the migration files, as ListStore 3 left it.
    static func makeVersion3File(_ cli: CLIHarness) throws -> Data {
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations")
        var script = "PRAGMA journal_mode = WAL; PRAGMA application_id = 1281979252;\n"
        for file in ["0001_create_lists.sql", "0002_row_base_and_counts.sql", "0003_change_log.sql"] {
            script += try String(contentsOf: migrations.appendingPathComponent(file), encoding: .utf8) + "\n"
        }
        script += """
            PRAGMA user_version = 3;
            UPDATE liststore_state SET writing = 1;
            INSERT INTO sections (position, title) VALUES (0, 'big');
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < \(rowCount))
            INSERT INTO rows (section_id, position, title) SELECT 1, i, 'r' || i FROM n;
            UPDATE liststore_state SET writing = 0;
            """
        let made = try CLIHarness.process("/usr/bin/env", ["sqlite3", "-bail", cli.database], in: cli.directory, stdin: Data(script.utf8))
        try #require(made.status == 0, "\(made.stderr)")
        try #require(!FileManager.default.fileExists(atPath: cli.database + "-wal"))
        return try #require(cli.bytes())
    }

    /// `PRAGMA user_version`, the number of rows and whether the identity is there, as the sqlite3 shell reads them.
    static func state(_ cli: CLIHarness) throws -> String {
        let run = try CLIHarness.process(
            "/usr/bin/env",
            [
                "sqlite3", "-readonly", cli.database,
                "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM rows), (SELECT count(*) FROM sqlite_sequence WHERE name = 'liststore_file_identity')",
            ],
            in: cli.directory)
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aKilledMigratingWriteLeavesVersion3OrTheMigratedEditedFile() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let version3 = try Self.makeVersion3File(cli)
        let before = "3|\(Self.rowCount)|0"
        // The current version (later migrations run in the same transaction as 0004).
        let versionLine = try cli.run(["--version"]).stdout
        let latest = try #require(versionLine.split(separator: " ").last.map { $0.filter(\.isNumber) }, "\(versionLine)")
        let after = "\(latest)|\(Self.rowCount + Self.added)|1"
        let input = cli.directory.appendingPathComponent("titles")
        try Data((0..<Self.added).map { "t\($0)" }.joined(separator: "\n").utf8).write(to: input)
        var random = SeededGenerator(seed: 4_004)
        var outcomes = (before: 0, after: 0)
        var kills = 0
        var step = 0
        // Step 0 runs to the end, unkilled: how long a whole write takes here sets the range the kills land
        // in; every write that ends before its kill sets it again, so the range follows the machine's load.
        var duration = 0.0
        while kills < 12 && step < 100 {
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cli.database + suffix) }
            try version3.write(to: URL(fileURLWithPath: cli.database))
            let process = Process()
            process.executableURL = binary
            process.arguments = ["--db", cli.database, "add", "0", "-"]
            let stdin = try FileHandle(forReadingFrom: input)
            defer { try? stdin.close() }
            process.standardInput = stdin
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let started = Date()
            try process.run()
            var killed = false
            if step > 0 {
                // The kill lands at a random moment: this wait is the point of the test, not a wait for a
                // condition; it ends early (within a millisecond) when the write ends first.
                let killAt = started.addingTimeInterval(duration * Double.random(in: 0.05...1.2, using: &random))
                while process.isRunning && Date() < killAt { usleep(1_000) }
                killed = process.isRunning
                if killed { kill(process.processIdentifier, SIGKILL) }
            }
            process.waitUntilExit()
            if !killed { duration = Date().timeIntervalSince(started) }
            if killed { kills += 1 }
            let state = try Self.state(cli)
            let context = "seed \(random.seed), step \(step), killed: \(killed)"
            if state == before {
                outcomes.before += 1
            } else if state == after {
                outcomes.after += 1
            } else {
                Issue.record("\(context): neither version 3 as it was nor migrated and edited: \(state)")
                return
            }
            let check = try cli.run(["check"])
            #expect(check.status == 0, "\(context): \(check.stdout)\(check.stderr)")
            step += 1
        }
        #expect(kills == 12, "only \(kills) of \(step) writes were still running when killed")
        #expect(outcomes.before > 0 && outcomes.after > 0, "kills should land both before and after the commit: \(outcomes)")
    }
}
