import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// Migration 0008 (several lists) rebuilds `sections` and parks every row, block and page on its
/// section's negated id inside the first write of a schema-7 file: a SIGKILL at any moment of that write
/// leaves the file at schema 7 as it was, or at the latest schema (8, or later when newer migrations run in the same write) with the write's row added and every row in the
/// default list, and `check` passes either way.
@Suite struct ListsMigrationKillTests {
    static let rows = 200_000
    /// The schema a migrated file reaches: the latest (0008 and every later migration commit together).
    static let latest = Schema.migrator.latestVersion

    @Test func aKillDuringTheMigrationToListsLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v7.sqlite").path
        try ChangeLogMigrationTests.makeFile(pristine, version: 7, rows: Self.rows)
        var kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["add", "0", "middle", "--at", "100000"],
            seed: 8_008)
        kills.window = 0.05...0.5  // the first half of the write
        let tally = try kills.run(attempts: 8, enoughKills: 2) { attempt, killed in
            let version = try Self.expectIntact(cli.database)
            let check = try cli.run(["check"])
            #expect(check.status == 0, "attempt \(attempt): \(check.stdout) \(check.stderr)")
            return kills.side(of: version, before: 7, after: Self.latest, attempt: attempt, killed: killed)
        }
        #expect(tally.kills >= 2, "the kills must land inside the write: \(tally.kills)")
        #expect(tally.before > 0, "kills should land before the commit: \(tally) (the write takes \(tally.duration) s)")
    }

    /// The file's version after a kill, with every row there in its order (and "middle" at 100,000 at
    /// the latest version), all in the default list, no foreign key broken and the schema exactly its version's.
    static func expectIntact(_ path: String) throws -> Int {
        let db = try Connection(path: path, mode: .readWrite)
        let version = try Migrator.version(of: db)
        #expect(try Schema.differences(in: db, version: version).isEmpty, "version \(version)")
        #expect(try db.scalarInt("SELECT count(*) FROM pragma_foreign_key_check") == 0)
        var index = 0
        var inOrder = true
        try db.cached("SELECT title FROM rows ORDER BY position").bind([]).forEachRow { row in
            let wanted = version == Self.latest && index == 100_000 ? "middle" : "r\(version == Self.latest && index > 100_000 ? index - 1 : index)"
            if row.text(0) != wanted { inOrder = false }
            index += 1
        }
        #expect(inOrder, "version \(version): the rows are not in their order")
        #expect(index == rows + (version == Self.latest ? 1 : 0), "version \(version): \(index) rows")
        #expect(try RowPositionState.damaged(db).isEmpty, "the blocks do not count the rows")
        if version == Self.latest {
            #expect(try db.scalarInt("SELECT count(*) FROM list_rows WHERE list_id = 1 AND row_index IS NOT NULL") == rows + 1)
            #expect(try ListDamage.problems(db).isEmpty)
        }
        return version
    }
}
