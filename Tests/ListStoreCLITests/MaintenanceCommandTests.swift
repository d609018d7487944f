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
        try shell(cli, "DELETE FROM rows WHERE title = 'Denmark'")
        let check = try cli.run(["check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem: rows of section 2 have positions 0…7"))
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
