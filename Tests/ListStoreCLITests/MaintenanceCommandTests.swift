import Foundation
import Testing

/// `check`, `repair` and `backup` as users run them.
@Suite struct MaintenanceCommandTests {
    func shell(_ cli: CLIHarness, _ sql: String) throws {
        let run = try CLIHarness.process("/usr/bin/env", ["sqlite3", cli.database, sql], in: cli.directory)
        try #require(run.status == 0, "\(run.stderr)")
    }

    @Test func checkFindsHandDamageAndRepairFixesIt() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        #expect(try cli.run(["check"]).stdout.hasPrefix("ok: "))
        // A row deleted by hand is a legitimate edit (the triggers count it)...
        try shell(cli, "DELETE FROM rows WHERE title = 'Denmark'")
        #expect(try cli.run(["check"]).stdout.hasPrefix("ok: "))
        // ...but taking it off the section's count by hand as well counts it twice.
        try shell(cli, "UPDATE sections SET row_count = row_count - 1 WHERE position = 2")
        let check = try cli.run(["check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem: section 2 records 6 rows but has 7"), "\(check.stdout)")
        #expect(check.stderr.hasPrefix("error: 1 problem found"))
        let refused = try cli.run(["add", "2", "x"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("run `liststore repair`"))
        let json = try CLIHarness.json(try cli.run(["--json", "check"]).stdout)
        #expect(json["ok"] as? Bool == false)

        let repair = try cli.run(["repair"])
        #expect(repair.status == 0)
        #expect(repair.stdout.hasPrefix("repaired: section 2: renumbered 7 rows"))
        #expect(try cli.run(["check"]).status == 0)
        #expect(try cli.run(["repair"]).stdout.hasPrefix("nothing to repair"))
        #expect(try cli.run(["add", "2", "x"]).status == 0)
    }

    @Test func checkReportsAnAlteredSchemaThatOtherCommandsRefuse() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        try shell(cli, "CREATE TRIGGER sneaky AFTER INSERT ON rows BEGIN DELETE FROM rows; END")
        let before = try #require(cli.bytes())
        let show = try cli.run(["show"])
        #expect(show.status == 1)
        #expect(show.stderr.contains("was changed outside ListStore (trigger sneaky is not part of ListStore's schema and fires on changes to rows)"))
        #expect(try cli.run(["add", "0", "x"]).status == 1)
        let check = try cli.run(["check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem: schema: trigger sneaky is not part of ListStore's schema"))
        #expect(cli.bytes() == before)
    }

    @Test func backupWritesAConsistentCopyAndNeverOverwrites() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let backup = try cli.run(["backup", "copy.sqlite"])
        #expect(backup.status == 0)
        #expect(backup.stdout == "backed up 3 sections, 24 rows to copy.sqlite\n")
        #expect(try cli.run(["--db", "copy.sqlite", "export"]).stdout == (try cli.run(["export"]).stdout))
        let again = try cli.run(["backup", "copy.sqlite"])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
        #expect(try cli.run(["backup", "x.sqlite", "--db", "missing.sqlite"]).status == 1)
    }
}

/// `check` on a damaged change log, and its SQL for ids at 2^63 − 1, as users run them.
@Suite struct ChangeLogCheckTests {
    func shell(_ cli: CLIHarness, _ sql: String) throws -> CLIHarness.Run {
        try CLIHarness.process("/usr/bin/env", ["sqlite3", cli.database, sql], in: cli.directory)
    }

    @Test(arguments: ["none", "gap", "forged", "stuck"])
    func checkReportsADamagedChangeLogAndRepairFixesIt(damage: String) throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        for title in ["x", "y", "z"] { try cli.run(["add", "0", title]) }
        let sql: String
        switch damage {
        case "gap": sql = "DELETE FROM liststore_log WHERE seq = (SELECT max(seq) - 1 FROM liststore_log)"
        case "forged":
            sql =
                #"BEGIN; UPDATE liststore_state SET writing = 1; INSERT INTO liststore_log (kind, events) VALUES ('edits', '[{"rowsInserted":{"ids":[[1,4000000000000000000]],"section":1,"sectionIndex":0,"at":0}}]'); UPDATE liststore_state SET writing = 0; COMMIT"#
        case "stuck": sql = "UPDATE liststore_state SET writing = 1"
        default: sql = "UPDATE rows SET title = 'by hand' WHERE id = 1"  // without the attack
        }
        let edited = try shell(cli, sql)
        try #require(edited.status == 0, "\(edited.stderr)")
        let check = try cli.run(["check"])
        guard damage != "none" else {
            #expect(check.status == 0 && check.stdout.hasPrefix("ok: "), "\(check.stdout)\(check.stderr)")
            return
        }
        #expect(check.status == 1)
        let expected = ["gap": "change log entries #", "forged": "cannot be trusted", "stuck": "writing = 1"][damage] ?? "?"
        #expect(check.stdout.contains(expected) && check.stdout.contains("`liststore repair` fixes it"), "\(check.stdout)")
        #expect(check.stderr.hasPrefix("error: 1 problem found; run `liststore repair` to fix it"), "\(check.stderr)")
        let repair = try cli.run(["repair"])
        #expect(repair.status == 0)
        #expect(repair.stdout.contains("repaired: change log:"), "\(repair.stdout)")
        #expect(try cli.run(["check"]).status == 0)
    }

    /// The SQL `check` gives for an id at 2^63 − 1 works when that is the only row or section — run in the
    /// `sqlite3` shell exactly as printed — and after `repair` the store takes new rows and sections again.
    @Test(arguments: ["rows", "sections"])
    func theSuggestedSQLForTheLargestIdWorksWhenItIsTheOnlyOne(table: String) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        try cli.run(["add", "0", "only"])
        let move =
            table == "rows"
            ? "UPDATE rows SET id = 9223372036854775807"
            : "UPDATE sections SET id = 9223372036854775807; UPDATE rows SET section_id = 9223372036854775807"
        let edited = try shell(cli, move)
        try #require(edited.status == 0, "\(edited.stderr)")
        let check = try cli.run(["check"])
        #expect(check.status == 1)
        let line = try #require(check.stdout.split(separator: "\n").first { $0.contains("largest possible id") }, "\(check.stdout)")
        let fix = try #require(line.range(of: "fix: ").map { String(line[$0.upperBound...]) }, "\(line)")
        #expect(fix.hasSuffix("(gives it a free id), then run `liststore repair`"), "\(fix)")
        let sql = try #require(fix.range(of: " (gives it a free id)").map { String(fix[..<$0.lowerBound]) }, "\(fix)")
        let run = try shell(cli, sql)
        #expect(run.status == 0, "the suggested SQL failed: \(sql): \(run.stderr)")
        try cli.run(["repair"])
        let after = try cli.run(["check"])
        #expect(after.status == 0, "\(after.stdout)")
        #expect(try cli.run(["add", "0", "more"]).status == 0)
        #expect(try cli.run(["section", "add", "T"]).status == 0)
        #expect(try cli.run(["show"]).stdout.contains("only"))
    }
}
