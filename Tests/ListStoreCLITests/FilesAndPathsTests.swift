import Foundation
import ListStore
import StoreShorthands
import Testing

/// Several processes creating one file, paths that SQLite could read as something else, files that
/// are not files, `watch` where it cannot see changes, and a failed first edit of an older file.
@Suite struct FilesAndPathsTests {
    @Test func sixProcessesCreatingTheSameNewFileAllSucceed() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        for round in 0..<20 {
            let path = cli.directory.appendingPathComponent("race\(round).sqlite").path
            // Half of them run `init`, half make the file by their first write.
            let commands: [[String]] = (0..<6).map { $0 % 2 == 0 ? ["init"] : ["section", "add", "s\($0)"] }
            let results = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: commands.count) { index in
                let outcome: String
                do {
                    let run = try CLIHarness.process(binary.path, ["--db", path] + commands[index], in: cli.directory)
                    outcome = run.status == 0 ? "" : "\(commands[index]): \(run.stderr)"
                } catch {
                    outcome = "\(commands[index]): \(error)"
                }
                results.withLock { $0.append(outcome) }
            }
            let failures = results.withLock { $0 }.filter { !$0.isEmpty }
            #expect(failures.isEmpty, "round \(round): \(failures)")
            let show = try cli.run(["--db", path, "--json", "show"])
            #expect(show.status == 0)
            let sections = try CLIHarness.json(show.stdout)["sections"] as? [Any]
            #expect(sections?.count == 3, "round \(round): every first write is kept")
        }
    }

    @Test func aFileURIIsAPlainFileNameForReadsAndWritesAlike() throws {
        let cli = try CLIHarness()
        for (arguments, environment) in [
            (["--db", "file:x.sqlite"], [String: String]()), ([], ["LISTSTORE_DB": "file:x.sqlite"]),
            (["--db", "file:y.sqlite?mode=memory"], [:]),
        ] {
            let name = arguments.last ?? environment["LISTSTORE_DB"] ?? ""
            let created = try cli.run(arguments + ["section", "add", "Kept"], environment: environment, process: true)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent(name).path), "\(name) is the file written")
            let shown = try cli.run(arguments + ["show"], environment: environment, process: true)
            #expect(shown.status == 0 && shown.stdout.contains("Kept"), "\(name) is the file read: \(shown.stderr)")
            #expect(try cli.run(arguments + ["section", "add", "Also kept"], environment: environment, process: true).status == 0)
            #expect(try cli.run(arguments + ["show"], environment: environment, process: true).stdout.contains("Also kept"))
            try? FileManager.default.removeItem(at: cli.directory.appendingPathComponent(name))
        }
        let contents = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path)
        #expect(!contents.contains("x.sqlite") && !contents.contains("y.sqlite"), "nothing was written to the URI's file: \(contents)")
    }

    @Test func memoryIsRefusedBecauseNothingWouldBeSaved() throws {
        let cli = try CLIHarness()
        for environment in [[:], ["LISTSTORE_DB": ":memory:"]] as [[String: String]] {
            let db = environment.isEmpty ? ["--db", ":memory:"] : []
            for arguments in [["init"], ["section", "add", "S"], ["show"], ["check"], ["watch"]] {
                let run = try cli.run(db + arguments, environment: environment)
                #expect(run.status == 1, "\(arguments)")
                #expect(run.stderr.hasPrefix("error: :memory: is SQLite's in-memory database"), "\(arguments): \(run.stderr)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).isEmpty)
    }

    @Test func devicesAndFIFOsAreRefusedBeforeSQLiteOpensThem() throws {
        let cli = try CLIHarness()
        let fifo = cli.directory.appendingPathComponent("pipe").path
        try #require(mkfifo(fifo, 0o644) == 0)
        let journalBeside = FileManager.default.fileExists(atPath: "/dev/null-journal")
        for (path, kind) in [("/dev/null", "character device"), (fifo, "FIFO")] {
            for arguments in [["init"], ["section", "add", "S"], ["show"], ["export"]] {
                let run = try cli.run(["--db", path] + arguments)
                #expect(run.status == 1, "\(path) \(arguments)")
                #expect(run.stderr.contains("cannot use \(path) as a database: it is a \(kind)"), "\(run.stderr)")
            }
        }
        #expect(FileManager.default.fileExists(atPath: "/dev/null-journal") == journalBeside, "no journal was created beside /dev/null")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path) == ["pipe"])
    }

    @Test func watchSaysSoWhenItCanOnlyReadAFixedSnapshot() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        let binary = try #require(CLIHarness.binary)
        // Root ignores permissions, so run as an unprivileged user where we are root; the folder is
        // read-only for that user and no -wal exists, so SQLite can only read the file as a snapshot.
        let user: Int? = getuid() == 0 ? 65534 : nil
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cli.directory.path)
        if user == nil { try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: cli.directory.path) }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cli.directory.path) }
        let command = [binary.path, "--db", cli.database, "watch"]
        let arguments = user.map { ["120", "/usr/bin/setpriv", "--reuid=\($0)", "--regid=\($0)", "--clear-groups"] + command } ?? ["120"] + command
        // `timeout` turns a watch that waits forever into a failure (status 124) instead of a hung test;
        // 120 s, not 20, so a slow start on a loaded machine is not taken for waiting forever.
        let run = try CLIHarness.process("/usr/bin/timeout", arguments, in: cli.directory)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("error: cannot watch \(cli.database): it can only be read as a fixed snapshot"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1)
        let show = try cli.run(["show", "2"], asUser: user)
        #expect(show.status == 0 && show.stdout.contains("2:0  Argentina"), "reading the snapshot still works: \(show.stderr)")
    }

    @Test func aFailedFirstEditOfAVersion1FileLeavesItByteForByte() throws {
        let cli = try CLIHarness()
        let migrations = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations")
        let version1 = try String(contentsOf: migrations.appendingPathComponent("0001_create_lists.sql"), encoding: .utf8)
        // The file exactly as the previous version wrote it, made by the sqlite3 shell.
        let script =
            "PRAGMA journal_mode = WAL; PRAGMA application_id = 1281979252;\n" + version1 + """

                PRAGMA user_version = 1;
                INSERT INTO sections (position, title) VALUES (0, 'Roles');
                INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'Barbarian'), (1, 1, 'Wizard');
                """
        let made = try CLIHarness.process("/usr/bin/env", ["sqlite3", "-bail", cli.database], in: cli.directory, stdin: Data(script.utf8))
        try #require(made.status == 0, "\(made.stderr)")
        let before = try #require(cli.bytes())
        for arguments in [["add", "5", "x"], ["delete", "0:7"], ["move", "0:0", "3:0"], ["edit", "0:0", "--payload", "{bad"], ["section", "delete", "4"]] {
            let run = try cli.run(arguments)
            #expect(run.status != 0, "\(arguments)")
            #expect(cli.bytes() == before, "`\(arguments.joined(separator: " "))` changed the file")
        }
        let version = try CLIHarness.process("/usr/bin/env", ["sqlite3", "-readonly", cli.database, "PRAGMA user_version"], in: cli.directory)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        // The first edit that succeeds migrates and edits in one go.
        let added = try cli.run(["add", "0", "Ranger"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try cli.run(["show"]).stdout.contains("0:2  Ranger"))
        #expect(try cli.run(["check"]).status == 0)
    }
}
