import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Schemas 15 and 16, added inside the first write. Schema 15's order keys, stamps and tombstones (`0015_merge_registers.sql`) are added inside the first
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

    /// Schema 16 (`0016_merge_cursors.sql`): the stamps of the last change and their indexes, the merge
    /// cursors, the triggers that take the key of an element another program moves. A SIGKILL at any moment
    /// of the first write to a schema-15 file of 100,000 rows leaves it at 15 without the new row, or at 16
    /// with it, the only row changed since (the others' stamp 0) and found by the index.
    @Test func aKillWhileAFileGetsItsChangeStampsLeavesItBeforeOrMigratedWithOnlyTheNewRowChanged() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v15.sqlite").path
        try ChangeLogMigrationTests.makeFile(pristine, version: 15, rows: Self.rows)
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["add", "0", "x", "--at", "0"], seed: 16_016)
        let tally = try kills.run(attempts: 60, enoughKills: 15, needsAfter: true) { attempt, killed in
            let version = try MigrationKills.checkedVersion(of: cli.database) { db, version in
                let first = try db.scalarText("SELECT title FROM rows WHERE section_id = 1 ORDER BY position LIMIT 1")
                #expect(try db.scalarInt("SELECT count(*) FROM rows") == Self.rows + (first == "x" ? 1 : 0))
                guard version == Schema.migrator.latestVersion else {
                    #expect(first == "r0", "version \(version)")
                    return
                }
                #expect(first == "x")
                let changed = try db.cached("SELECT title FROM rows INDEXED BY rows_by_changed_stamp WHERE changed_stamp > 0").bind([]).map { $0.text(0) }
                #expect(changed == ["x"])
                #expect(try db.scalarInt("SELECT count(*) FROM liststore_merged") == 0)
            }
            return kills.side(of: version, before: 15, after: Schema.migrator.latestVersion, attempt: attempt, killed: killed)
        }
        MigrationKills.expectKillsOnBothSides(tally)
    }
}
