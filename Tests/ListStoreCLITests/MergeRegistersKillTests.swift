import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Schema 15's order keys, stamps and tombstones (`0015_merge_registers.sql`) are added inside the first
/// write, which gives every row, section and list of the file a key from its position: a SIGKILL at any
/// moment of `liststore add 0 x --at 0` on a schema-14 file of 100,000 rows leaves the file as it was (schema
/// 14, no new row), or migrated with every element keyed in the order of its positions and the new row first.
@Suite struct MergeRegistersKillTests {
    static let rows = 100_000

    @Test func aKillWhileAFileGetsItsOrderKeysLeavesItBeforeOrEveryElementKeyedInOrder() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v14.sqlite").path
        try ChangeLogMigrationTests.makeFile(pristine, version: 14, rows: Self.rows)
        try Connection(path: pristine, mode: .readWrite).run("INSERT INTO sections (position, title) VALUES (1, 'second'), (2, 'third')")
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["add", "0", "x", "--at", "0"], seed: 15_015)
        let tally = try kills.run(attempts: 60, enoughKills: 15, needsAfter: true) { attempt, killed in
            let version = try MigrationKills.checkedVersion(of: cli.database) { db, version in
                let first = try db.scalarText("SELECT title FROM rows WHERE section_id = 1 ORDER BY position LIMIT 1")
                #expect(try db.scalarInt("SELECT count(*) FROM rows") == Self.rows + (first == "x" ? 1 : 0))
                guard version == Schema.migrator.latestVersion else {
                    #expect(first == "r0", "version \(version)")
                    return
                }
                #expect(first == "x")
                for (table, container) in [("rows", "section_id"), ("sections", "list_id"), ("lists", "'all'")] {
                    #expect(try db.scalarInt("SELECT count(*) FROM \(table) WHERE order_key IS NULL") == 0, "\(table)")
                    let outOfOrder = try db.scalarInt(
                        """
                        SELECT count(*) FROM (SELECT order_key, lag(order_key) OVER (PARTITION BY \(container) ORDER BY position) AS previous
                                              FROM \(table)) WHERE previous >= order_key
                        """)
                    #expect(outOfOrder == 0, "\(table)")
                }
            }
            return kills.side(of: version, before: 14, after: Schema.migrator.latestVersion, attempt: attempt, killed: killed)
        }
        MigrationKills.expectKillsOnBothSides(tally)
    }
}
