import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The migration to sparse positions (schema 7) rewrites every row of a file: a SIGKILL at any moment
/// of the first write of a 1,000,000-row schema-6 file leaves it at schema 6 with its rows as they were,
/// or at schema 7 with the write's row added, every row in its order and `check` clean (issue 18).
@Suite(.tags(.slow)) struct PositionsMigrationKillTests {
    static let rows = 1_000_000

    @Test func aKillDuringTheMigrationOfAMillionRowsLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v6.sqlite").path
        try ChangeLogMigrationTests.makeFile(pristine, version: 6, rows: Self.rows)
        // The first write: the migration and one row inserted at index 500,000.
        var kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["add", "0", "middle", "--at", "500000"],
            seed: 7_007)
        // The first half of the write (later runs find the file in the page cache and run faster than the timed one).
        kills.window = 0.02...0.5
        let tally = try kills.run(attempts: 8, enoughKills: 2) { attempt, killed in
            let version = try Self.expectIntact(cli.database, version: attempt < 0 ? Schema.migrator.latestVersion : nil)
            return kills.side(of: version, before: 6, after: Schema.migrator.latestVersion, attempt: attempt, killed: killed)
        }
        #expect(tally.kills >= 2, "the kills must land inside the write: \(tally.kills)")
        #expect(tally.before > 0, "kills should land before the commit: \(tally) (the write takes \(tally.duration) s)")
    }

    /// Checks the file after a kill and returns its version: version 6 with the rows `r0…` in order, or
    /// version 7 with "middle" at index 500,000 between them, the schema exactly its version's, and at 7
    /// the blocks counting every row and every position a multiple of the gap but the new row's.
    @discardableResult
    static func expectIntact(_ path: String, version expected: Int?) throws -> Int {
        let db = try Connection(path: path, mode: .readWrite)
        let version = try Migrator.version(of: db)
        if let expected { #expect(version == expected) }
        #expect(try Schema.differences(in: db, version: version).isEmpty, "version \(version)")
        var index = 0
        var inOrder = true
        try db.cached("SELECT title FROM rows ORDER BY position").bind([]).forEachRow { row in
            let title = row.text(0)
            let wanted = version >= 7 && index == 500_000 ? "middle" : "r\(version >= 7 && index > 500_000 ? index - 1 : index)"
            if title != wanted { inOrder = false }
            index += 1
        }
        #expect(inOrder, "version \(version): the rows are not in their order")
        #expect(index == rows + (version >= 7 ? 1 : 0), "version \(version): \(index) rows")
        if version >= 7 {
            #expect(try RowPositionState.damaged(db).isEmpty, "the blocks do not count the rows")
            #expect(try db.scalarInt("SELECT count(*) FROM rows WHERE position % 1048576 <> 0") == 1)
        }
        return version
    }
}
