import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The migration that rebuilds `liststore_payload_values` without its foreign key into `rows` (schema 11,
/// `0011_payload_values_without_row_key.sql`) commits with the first write: a SIGKILL at any moment of
/// `liststore delete 0:5` on a schema-10 file of 100,000 rows with two indexed fields — 200,000 entries
/// copied into the new table and indexed again, then the row deleted and its entries dropped, in one
/// transaction — leaves the file at schema 10 with every row and entry, or at 11 with the row and its
/// entries gone and every other entry kept (or later, when newer migrations run in the same write); it
/// opens and `check` passes either way.
@Suite(.tags(.slow)) struct PayloadValuesMigrationKillTests {
    static let rows = 100_000
    static let earlier = 10
    /// The schema a migrated file reaches: the latest (0011 and every later migration commit together).
    static let latest = Schema.migrator.latestVersion

    /// A schema-10 file of `rows` rows in one section, fields `c` and `s` indexed, every entry made.
    static func makeFile(_ path: String) throws {
        try ChangeLogMigrationTests.makeFile(path, version: earlier, rows: rows)
        try Connection(path: path, mode: .readWrite).executeScript(
            """
            UPDATE rows SET payload = json_object('c', 'c' || (id % 100), 's', id % 7);
            INSERT INTO liststore_payload_indexes (field) VALUES ('c'), ('s');
            INSERT INTO liststore_payload_values (row_id, field, value) SELECT id, 'c', 'c' || (id % 100) FROM rows;
            INSERT INTO liststore_payload_values (row_id, field, value) SELECT id, 's', id % 7 FROM rows;
            """)
    }

    @Test func aKillDuringTheMigratingFirstWriteLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v\(Self.earlier).sqlite").path
        try Self.makeFile(pristine)
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["delete", "0:5"], seed: 11_011)
        let tally = try kills.run(attempts: 60, enoughKills: 15, needsAfter: true) { attempt, killed in
            let version = try Self.outcome(cli.database)
            if attempt < 0 {
                let found = try cli.run(["--json", "find", "--where", "c=c7", "--limit", "2000"])
                #expect(found.status == 0 && found.stdout.components(separatedBy: "\"id\":").count - 1 == Self.rows / 100, "\(found.stderr)")
            }
            return kills.side(of: version, before: Self.earlier, after: Self.latest, attempt: attempt, killed: killed)
        }
        MigrationKills.expectKillsOnBothSides(tally)
    }

    /// The file's version after a kill, checked whole: its schema exactly its version's; at 10 every row
    /// and entry and the foreign key into `rows`; at 11 row 6 and its two entries gone, every other entry
    /// there, no foreign key into `rows`; `check` clean either way.
    static func outcome(_ path: String) throws -> Int {
        try MigrationKills.checkedVersion(of: path) { db, version in
            let keys = try db.prepare("SELECT \"table\" FROM pragma_foreign_key_list('liststore_payload_values') ORDER BY 1").map { $0.text(0) }
            let rowCount = try db.scalarInt("SELECT count(*) FROM rows")
            let entries = try db.scalarInt("SELECT count(*) FROM liststore_payload_values")
            let right = try db.scalarInt(
                "SELECT count(*) FROM liststore_payload_values v JOIN rows r ON r.id = v.row_id WHERE v.value = json_extract(r.payload, '$.' || v.field)")
            switch version {
            case earlier:
                #expect(rowCount == rows && entries == 2 * rows && right == entries)
                #expect(keys == ["liststore_payload_indexes", "rows"])
            case latest:
                #expect(rowCount == rows - 1 && entries == 2 * (rows - 1) && right == entries)
                #expect(try db.scalarInt("SELECT count(*) FROM rows WHERE id = 6") == 0)
                #expect(keys == ["liststore_payload_indexes"])
            default: break
            }
        }
    }
}
