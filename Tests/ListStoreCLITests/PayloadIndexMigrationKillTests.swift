import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The migration to payload-field indexes (schema 10, `0010_payload_indexes.sql`) commits with the first
/// write: a SIGKILL at any moment of `liststore index add city` on a schema-9 file of 20,000 rows — the
/// migration and the index's 20,000 entries in one transaction — leaves the file at schema 9 with every
/// row and no index tables, or at schema 10 with every row indexed, never in between.
@Suite struct PayloadIndexMigrationKillTests {
    static let rows = 20_000
    static let earlier = 9
    static let latest = Schema.migrator.latestVersion

    @Test func aKillDuringTheMigratingFirstWriteLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v\(Self.earlier).sqlite").path
        try ChangeLogMigrationTests.makeFile(pristine, version: Self.earlier, rows: Self.rows)
        try Connection(path: pristine, mode: .readWrite).executeScript("UPDATE rows SET payload = json_object('city', 'c' || (id % 100))")
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["index", "add", "city"], seed: 10_010)
        let tally = try kills.run(attempts: 60, enoughKills: 15) { attempt, killed in
            let version = try Self.outcome(cli.database)
            if attempt < 0 {
                let found = try cli.run(["--json", "find", "--where", "city=c7", "--limit", "1000"])
                #expect(found.status == 0 && found.stdout.components(separatedBy: "\"id\":").count - 1 == Self.rows / 100, "\(found.stderr)")
            }
            return kills.side(of: version, before: Self.earlier, after: Self.latest, attempt: attempt, killed: killed)
        }
        #expect(tally.kills >= 5, "the kills must land inside the write: \(tally.kills)")
        #expect(tally.before > 0, "kills should land before the commit: \(tally) (the write takes \(tally.duration) s)")
    }

    /// The file's version after a kill, checked whole: its schema exactly its version's, every row there,
    /// at 10 every row indexed, and `check` clean.
    static func outcome(_ path: String) throws -> Int {
        let db = try Connection(path: path, mode: .readWrite)
        let version = try Migrator.version(of: db)
        #expect(try Schema.differences(in: db, version: version).isEmpty, "version \(version)")
        #expect(try db.scalarInt("SELECT count(*) FROM rows") == rows)
        if version == latest {
            #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_indexes WHERE field = 'city'") == 1)
            #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_values WHERE value = 'c' || (row_id % 100)") == rows)
        }
        #expect(try ListStore.open(at: path, mode: .inspect).checkInvariants().isEmpty)
        return version
    }
}
