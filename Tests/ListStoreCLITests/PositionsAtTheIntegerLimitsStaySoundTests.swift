import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Positions anywhere the schema allows, up to the integer limits, stay sound: ListStore's own edits stay
/// inside ±2^61, reads show every row (an uncounted one without an index), and migration and `repair`
/// cope. Each test's comment tells the failure it found before the fix (sparse positions, schema 7);
/// a control beside it passes on any version.
@Suite struct PositionsAtTheIntegerLimitsStaySoundTests {
    static func sqlite(_ cli: CLIHarness, _ statements: String) throws -> String {
        let run = try CLIHarness.process("/usr/bin/env", ["sqlite3", cli.database, statements], in: cli.directory)
        try #require(run.status == 0, "sqlite3 failed: \(run.stderr)")
        return run.stdout
    }

    /// One row at -2^61+1 and 127 rows just below +2^61, all within what `check` accepts: the append
    /// fills the section's only block (129 > 128), whose split is "crowded" and packs the lower half
    /// starting at the working range's lower bound, -2^61 itself — a position ListStore says it never
    /// writes. Every later edit then refuses (positionsDamaged) and `check` reports damage.
    @Test func crowdedSplitNearTheLowerLimitNeverWritesMinus2To61() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        _ = try Self.sqlite(
            cli,
            """
            INSERT INTO rows (section_id, position, title) VALUES (1, -2305843009213693951, 'low');
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 126)
            INSERT INTO rows (section_id, position, title) SELECT 1, 2305843009213693951 - 200 + i, 'r' || i FROM n;
            """)
        #expect(try cli.run(["check"]).status == 0)
        #expect(try cli.run(["add", "0", "x"]).status == 0)
        let check = try cli.run(["check"])
        #expect(check.status == 0, "ListStore's own edit left positions check rejects: \(check.stdout)\(check.stderr)")
        let minimum = try Self.sqlite(cli, "SELECT min(position) FROM rows").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(minimum != "-2305843009213693952")
        #expect(try cli.run(["add", "0", "y"]).status == 0)
    }

    /// Control: the same rows without the one near -2^61: the split writes nothing outside ±2^61.
    @Test func crowdedSplitAwayFromTheLimitsStaysSound() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        _ = try Self.sqlite(
            cli,
            """
            INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'low');
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 126)
            INSERT INTO rows (section_id, position, title) SELECT 1, 2305843009213693951 - 200 + i, 'r' || i FROM n;
            """)
        #expect(try cli.run(["add", "0", "x"]).status == 0)
        #expect(try cli.run(["check"]).status == 0)
        #expect(try cli.run(["add", "0", "y"]).status == 0)
    }

    /// A row inserted by hand at position 2^63-1 (allowed by the schema, counted by the triggers) is
    /// shown by `show` but missing from `list_rows`: the view's last block/page end is 2^63-1, exclusive.
    @Test func listRowsShowsARowAtInt64Max() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        try cli.run(["add", "0", "a", "b"])
        _ = try Self.sqlite(cli, "INSERT INTO rows (section_id, position, title) VALUES (1, 9223372036854775807, 'MAX')")
        let shown = try cli.run(["show"]).stdout
        #expect(shown.contains("MAX"))
        let viewed = try Self.sqlite(cli, "SELECT count(*) FROM list_rows").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(viewed == "3", "list_rows shows \(viewed) rows, show shows 3")
    }

    /// A schema-6 file whose positions were edited by hand to values 2^61 apart (or near 2^63): the
    /// migration's parking step (position + 2^61) collides or overflows, so the migration fails with a raw
    /// SQLite error on every write — `repair` included — while `check` calls the file sound. The file
    /// can never be opened for writing by this version.
    @Test(arguments: ["2305843009213693952", "9223372036854775807", "-2305843009213693952"])
    func migrationOfHandEditedFarPositions(position: String) throws {
        let cli = try CLIHarness()
        try ChangeLogMigrationTests.makeFile(cli.database, version: 6, rows: 2)
        _ = try Self.sqlite(cli, "UPDATE rows SET position = \(position) WHERE id = 2")
        let check = try cli.run(["check"])
        let add = try cli.run(["add", "0", "x"])
        #expect(add.status == 0 || check.status != 0, "check said \(check.stdout) but add failed: \(add.stderr)")
        let repair = try cli.run(["repair"])
        #expect(repair.status == 0, "repair: \(repair.stderr)")
        #expect(try cli.run(["add", "0", "y"]).status == 0)
        #expect(try cli.run(["check"]).status == 0)
    }

    /// Control: the same file with a hand-made gap of ordinary size migrates and edits fine.
    @Test func migrationOfHandEditedGap() throws {
        let cli = try CLIHarness()
        try ChangeLogMigrationTests.makeFile(cli.database, version: 6, rows: 2)
        _ = try Self.sqlite(cli, "UPDATE rows SET position = 1000 WHERE id = 2")
        #expect(try cli.run(["add", "0", "x"]).status == 0)
        #expect(try cli.run(["check"]).status == 0)
    }

    /// A count moved by hand from one block to another (sum unchanged): the row its block no longer
    /// counts is printed by `show` as `0:-9223372036854775808` and by `show --json` with the path
    /// [0, -9223372036854775808] — TheFile.md says "a row its block does not count has no index at all:
    /// reads show none". A JSON consumer indexing with it traps.
    @Test func anUncountedRowIsShownWithoutAnIndex() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        try cli.run(["add", "0", "-"], stdin: Data((0..<300).map { "r\($0)" }.joined(separator: "\n").utf8))
        _ = try Self.sqlite(
            cli,
            """
            UPDATE row_blocks SET row_count = row_count + 1 WHERE start = (SELECT start FROM row_blocks ORDER BY start LIMIT 1 OFFSET 1);
            UPDATE row_blocks SET row_count = row_count - 1 WHERE start = (SELECT start FROM row_blocks ORDER BY start LIMIT 1 OFFSET 2);
            """)
        #expect(try cli.run(["check"]).status == 1)
        let shown = try cli.run(["show"])
        #expect(!shown.stdout.contains("-9223372036854775808"), "show prints the sentinel as an index")
        let json = try cli.run(["show", "--json"])
        #expect(!json.stdout.contains("-9223372036854775808"), "show --json gives a path with Int64.min")
        #expect(shown.stdout.contains("0:?") && json.stdout.contains("\"path\":[0,null]"), "the row is listed, without an index")
    }

    /// Control: without the hand edit no path is negative.
    @Test func countedRowsHaveTheirIndexes() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        try cli.run(["add", "0", "-"], stdin: Data((0..<300).map { "r\($0)" }.joined(separator: "\n").utf8))
        #expect(!(try cli.run(["show", "--json"]).stdout.contains("-9223372036854775808")))
    }

    /// Rows at both 2^63-1 and -2^63 (hand edits): `check` says "`liststore repair` fixes it", but repair
    /// refuses ("the database file is damaged … restore a backup or recover it with sqlite3 .recover"):
    /// its parking range needs room above the highest or below the lowest position, though almost the
    /// whole integer range between them is free.
    @Test func repairOfRowsAtBothEndsOfTheIntegers() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        try cli.run(["add", "0", "a", "b"])
        _ = try Self.sqlite(cli, "INSERT INTO rows (section_id, position, title) VALUES (1, 9223372036854775807, 'MAX'), (1, -9223372036854775808, 'MIN')")
        #expect(try cli.run(["check"]).stdout.contains("repair` fixes it"))
        let repair = try cli.run(["repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(try cli.run(["check"]).status == 0)
    }

    /// Control: a row at 2^63-1 alone is repaired.
    @Test func repairOfARowAtTheTop() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        try cli.run(["add", "0", "a", "b"])
        _ = try Self.sqlite(cli, "INSERT INTO rows (section_id, position, title) VALUES (1, 9223372036854775807, 'MAX')")
        #expect(try cli.run(["repair"]).status == 0)
        #expect(try cli.run(["check"]).status == 0)
    }
}
