import Foundation
import Testing

/// Other programs' objects in the same file (ANALYZE's statistics, Litestream's tables, an app's own
/// tables, views and indexes) are tolerated by every command; objects that could change ListStore's
/// data or break its writes are refused, naming the object, with the file left byte-for-byte as it was.
@Suite struct ForeignObjectsTests {
    static func shell(_ cli: CLIHarness, _ sql: String, db: String? = nil) throws {
        let run = try CLIHarness.process("/usr/bin/env", ["sqlite3", db ?? cli.database, sql], in: cli.directory)
        try #require(run.status == 0, "sqlite3: \(run.stderr)")
    }

    static func query(_ cli: CLIHarness, _ sql: String, db: String? = nil) throws -> String {
        let run = try CLIHarness.process("/usr/bin/env", ["sqlite3", "-readonly", db ?? cli.database, sql], in: cli.directory)
        try #require(run.status == 0, "sqlite3: \(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What other tools leave in a ListStore file, made as they make it.
    static let othersObjects = """
        ANALYZE;
        PRAGMA optimize;
        CREATE TABLE IF NOT EXISTS _litestream_seq (id INTEGER PRIMARY KEY, seq INTEGER);
        CREATE TABLE IF NOT EXISTS _litestream_lock (id INTEGER);
        INSERT INTO _litestream_seq VALUES (1, 7);
        CREATE TABLE notes (id INTEGER PRIMARY KEY, row_id INTEGER NOT NULL REFERENCES rows (id) ON DELETE CASCADE, body TEXT NOT NULL UNIQUE);
        CREATE INDEX notes_by_row ON notes (row_id);
        CREATE UNIQUE INDEX notes_by_lower_body ON notes (lower(body));
        CREATE TRIGGER notes_stamped AFTER INSERT ON notes BEGIN UPDATE notes SET body = body || '!' WHERE id = NEW.id; END;
        CREATE VIEW countries AS SELECT row_index, title FROM list_rows WHERE section_title = 'Countries';
        CREATE INDEX rows_by_title ON rows (title);
        INSERT INTO notes (row_id, body) SELECT id, 'about ' || title FROM rows WHERE title = 'Argentina';
        """

    static let othersNames = [
        "_litestream_lock", "_litestream_seq", "countries", "notes", "notes_by_lower_body", "notes_by_row",
        "notes_stamped", "rows_by_title", "sqlite_stat1",
    ]

    @Test func everyCommandWorksBesideOtherToolsObjects() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        try Self.shell(cli, Self.othersObjects)
        #expect(try Int(Self.query(cli, "SELECT count(*) FROM sqlite_stat1")) ?? 0 > 0)
        #expect(try Self.query(cli, "SELECT body FROM notes") == "about Argentina!")
        @discardableResult func expectSuccess(_ arguments: [String], _ sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIHarness.Run {
            let run = try cli.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.stderr.isEmpty, "\(arguments): \(run.stderr)", sourceLocation: sourceLocation)
            return run
        }

        #expect(try expectSuccess(["show"]).stdout.contains("2:0  Argentina"))
        #expect(try expectSuccess(["show", "2"]).stdout.contains("Argentina"))
        try expectSuccess(["add", "2", "Uruguay", "Chile", "--at", "1"])
        try expectSuccess(["add", "--every-section", "tail"])
        try expectSuccess(["edit", "2:1", "--title", "República Oriental del Uruguay", "--payload", "{\"capital\":\"Montevideo\"}"])
        try expectSuccess(["move", "2:2", "0:0"])
        try expectSuccess(["section", "add", "Extra", "--at", "0"])
        try expectSuccess(["section", "move", "0", "3"])
        // The app's note points at Argentina's row: deleting that row deletes the note (ON DELETE CASCADE).
        #expect(try expectSuccess(["delete", "2:0", "2:3"]).stdout.hasPrefix("deleted 2 rows"))
        #expect(try Self.query(cli, "SELECT count(*) FROM notes") == "0")
        try expectSuccess(["export", "lists.json"])
        try expectSuccess(["--db", "copy.sqlite", "import", "lists.json"])
        try expectSuccess(["import", "lists.json", "--replace"])
        #expect(try expectSuccess(["check"]).stdout.hasPrefix("ok: "))
        #expect(try CLIHarness.json(try expectSuccess(["--json", "check"]).stdout)["ok"] as? Bool == true)
        #expect(try expectSuccess(["repair"]).stdout.hasPrefix("nothing to repair"))
        try expectSuccess(["backup", "backup.sqlite"])
        #expect(try expectSuccess(["--db", "backup.sqlite", "export"]).stdout == (try expectSuccess(["export"]).stdout))
        #expect(try expectSuccess(["--db", "backup.sqlite", "check"]).stdout.hasPrefix("ok: "))

        // watch: started, sees one edit by another process, ends by itself.
        let binary = try #require(CLIHarness.binary)
        let watcher = try BackgroundProcess(binary.path, ["--db", cli.database, "--json", "watch", "--count", "1"], in: cli.directory, name: "watch")
        #expect(watcher.waitForLines(errors: true, timeout: 60) { !$0.isEmpty }.first?.hasPrefix("watching ") == true)
        try expectSuccess(["add", "0", "seen by watch"])
        #expect(watcher.waitForExit(timeout: 60) == 0)
        // --json watch prints the state it starts from first (the show --json document), then the change.
        let lines = watcher.lines()
        #expect(try lines.first.map { try CLIHarness.json($0)["sections"] != nil } == true)
        let changes = try #require(lines.dropFirst().first.map { try CLIHarness.json($0) }?["changes"] as? [String: Any])
        // The one row added, in section 0 (a missing or mistyped "inserted" fails too).
        let inserted = ((changes["rows"] as? [String: Any])?["inserted"] as? [[String: Any]])?.map { $0["path"] as? [Int] }
        #expect(inserted?.count == 1 && inserted?.first??.first == 0, "\(changes)")

        // Everything the other tools made is still there, in the file and in the backup.
        let others = "SELECT name FROM sqlite_schema WHERE name IN (\(Self.othersNames.map { "'\($0)'" }.joined(separator: ","))) ORDER BY name"
        #expect(try Self.query(cli, others).split(separator: "\n").map(String.init) == Self.othersNames)
        #expect(try Self.query(cli, others, db: cli.directory.appendingPathComponent("backup.sqlite").path).split(separator: "\n").map(String.init) == Self.othersNames)
        #expect(try Self.query(cli, "SELECT seq FROM _litestream_seq") == "7")
    }

    struct Refused: CustomTestStringConvertible, Sendable {
        let sql: String
        /// How the object is named in the error.
        let object: String
        var testDescription: String { object }
    }

    static let refused: [Refused] = [
        Refused(sql: "CREATE TRIGGER audit AFTER UPDATE ON rows BEGIN SELECT 1; END", object: "trigger audit"),
        Refused(sql: "CREATE TRIGGER renumber BEFORE DELETE ON sections BEGIN SELECT 1; END", object: "trigger renumber"),
        Refused(
            sql: """
                CREATE TABLE inbox (title TEXT);
                CREATE TRIGGER inbox_to_list AFTER INSERT ON inbox BEGIN INSERT INTO "rows" (section_id, position, title) VALUES (1, 100, NEW.title); END
                """, object: "trigger inbox_to_list"),
        Refused(sql: "CREATE UNIQUE INDEX one_title ON rows (title)", object: "index one_title"),
        Refused(sql: "CREATE INDEX by_length ON rows (length(title))", object: "index by_length"),
        Refused(sql: "CREATE INDEX with_payload ON rows (title) WHERE payload IS NOT NULL", object: "index with_payload"),
        Refused(sql: "CREATE TABLE pins (row_id INTEGER REFERENCES rows (id))", object: "table pins"),
        Refused(sql: "DROP VIEW list_rows; CREATE VIEW list_rows AS SELECT title FROM rows", object: "view list_rows"),
        Refused(sql: "DROP TRIGGER rows_counted_on_delete", object: "trigger rows_counted_on_delete"),
    ]

    @Test(arguments: refused)
    func objectsThatCouldChangeOrBreakListStoreAreRefusedUntouched(_ refused: Refused) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "Letters"])
        try cli.run(["add", "0", "a", "b", "c"])
        try Self.shell(cli, refused.sql)
        #expect(!FileManager.default.fileExists(atPath: cli.database + "-wal"))
        let before = try #require(cli.bytes())
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).sorted()
        for arguments in [
            ["show"], ["add", "0", "x"], ["delete", "0:0"], ["move", "0:0", "0:1"], ["section", "add", "y"],
            ["export", "out.json"], ["repair"], ["backup", "copy.sqlite"], ["watch", "--count", "1"], ["--json", "show"],
        ] {
            let run = try cli.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("error: the schema of "), "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("(\(refused.object) "), "\(arguments): \(run.stderr)")
        }
        let check = try cli.run(["check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem: schema: \(refused.object) "), "\(check.stdout)")
        #expect(cli.bytes() == before)
        // Nothing new in the folder but SQLite's empty -wal and -shm, which a read-only connection
        // creates and may not remove (the next writer does).
        let sidecars: Set<String> = ["liststore.sqlite-wal", "liststore.sqlite-shm"]
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).filter { !sidecars.contains($0) }.sorted() == files)
        #expect((try? FileManager.default.attributesOfItem(atPath: cli.database + "-wal")[.size] as? Int) ?? 0 == 0)
    }
}
