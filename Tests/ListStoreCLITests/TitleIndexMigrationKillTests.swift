import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The migration that lets the stale-row notes serve the index of titles (schema 13,
/// `0013_title_index_notes.sql`) and the building of that index are one write: a SIGKILL at any moment of
/// `liststore index add --titles` on a schema-12 file of 40,000 rows — the file migrated, every title's
/// words written, the index merged, in one transaction — leaves the file at schema 12 as it was, without
/// the index, or at 13 with every row's words in it and nothing noted; `check` passes either way, and
/// `find` finds rows by their words.
@Suite struct TitleIndexMigrationKillTests {
    static let rows = 40_000
    static let earlier = 12
    static let latest = Schema.migrator.latestVersion

    @Test func aKillWhileMigratingAndBuildingTheIndexLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v\(Self.earlier).sqlite").path
        try ChangeLogMigrationTests.makeFile(pristine, version: Self.earlier, rows: Self.rows)
        try Connection(path: pristine, mode: .readWrite).executeScript("UPDATE rows SET title = 'Café n° ' || id || ' 法師'")
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["index", "add", "--titles"], seed: 13_013)
        let tally = try kills.run(attempts: 60, enoughKills: 15) { attempt, killed in
            let version = try Self.outcome(cli.database)
            if attempt < 0 {
                let found = try cli.run(["--json", "find", "CAFE 師", "--limit", "1"])
                #expect(found.status == 0 && found.stdout.contains("\"total\":\(Self.rows)"), "\(found.stdout) \(found.stderr)")
            }
            return kills.side(of: version, before: Self.earlier, after: Self.latest, attempt: attempt, killed: killed)
        }
        #expect(tally.kills >= 5, "the kills must land inside the write: \(tally.kills)")
        #expect(tally.before > 0, "kills should land before the commit: \(tally) (the write takes \(tally.duration) s)")
    }

    /// The file's version after a kill, checked whole: its schema exactly its version's (the index is no
    /// part of it), every row there, and at 13 the index there with every row's words, none noted.
    static func outcome(_ path: String) throws -> Int {
        try MigrationKills.checkedVersion(of: path) { (db: Connection, version: Int) throws in
            #expect(try db.scalarInt("SELECT count(*) FROM rows") == rows)
            let indexed = try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'liststore_title_words'") == 1
            #expect(indexed == (version == latest), "version \(version)")
            if indexed {
                #expect(try db.scalarInt("SELECT count(*) FROM liststore_title_words WHERE liststore_title_words MATCH '\"cafe\" \"師\"'") == rows)
                #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0)
            }
        }
    }
}
