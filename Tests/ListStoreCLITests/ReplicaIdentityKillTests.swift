import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Which replica a file is (schema 14, `0014_replica_identity.sql`) is decided inside the first write:
/// a SIGKILL at any moment of `liststore section add new --at 0` on a file of 60,000 sections — every
/// one shifted for the new section, in one transaction — leaves the file as it was, or with the new
/// section and the replica claimed for this very file: migrated from schema 13 (replica 0), or, on a
/// copy of a file claimed elsewhere, with a new number whose range holds the new section's id. `check`
/// passes either way.
@Suite struct ReplicaIdentityKillTests {
    static let sections = 60_000

    /// A file of `sections` sections (and three rows), at `version`.
    static func makeFile(_ path: String, version: Int) throws {
        try ChangeLogMigrationTests.makeFile(path, version: version, rows: 3)
        try Connection(path: path, mode: .readWrite).executeScript(
            """
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(sections - 1))
            INSERT INTO sections (list_id, position, title) SELECT 1, i, 's' || i FROM n;
            COMMIT;
            """)
    }

    /// The device and inode of the file at `path`, as SQLite stores them.
    static func fileID(_ path: String) throws -> (device: Int64, inode: Int64) {
        var status = stat()
        try #require(stat(path, &status) == 0)
        return (Int64(bitPattern: UInt64(status.st_dev)), Int64(bitPattern: UInt64(status.st_ino)))
    }

    @Test func aKillWhileAnOlderFileIsMigratedLeavesItBeforeOrClaimedAsReplicaZero() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v13.sqlite").path
        try Self.makeFile(pristine, version: 13)
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["section", "add", "new", "--at", "0"],
            seed: 14_014)
        let tally = try kills.run(attempts: 60, enoughKills: 15, needsAfter: true) { attempt, killed in
            let version = try MigrationKills.checkedVersion(of: cli.database) { db, version in
                let added = try Self.newSectionAdded(db)
                #expect(added == (version == Schema.migrator.latestVersion), "version \(version)")
                if added {
                    let file = try Self.fileID(cli.database)
                    #expect(try db.scalarInt("SELECT number FROM liststore_replica") == 0)
                    #expect(try db.scalarInt("SELECT device FROM liststore_replica").map(Int64.init) == file.device)
                    #expect(try db.scalarInt("SELECT inode FROM liststore_replica").map(Int64.init) == file.inode)
                }
            }
            return kills.side(of: version, before: 13, after: Schema.migrator.latestVersion, attempt: attempt, killed: killed)
        }
        MigrationKills.expectKillsOnBothSides(tally)
    }

    @Test func aKillWhileACopyTakesItsNumberLeavesItBeforeOrNumberedWithItsIdInRange() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("original.sqlite").path
        try Self.makeFile(pristine, version: Schema.migrator.latestVersion)
        // Claimed by the original file, as its own first write would have.
        let original = try Self.fileID(pristine)
        try Connection(path: pristine, mode: .readWrite).run(
            "UPDATE liststore_replica SET device = ?1, inode = ?2", [.integer(original.device), .integer(original.inode)])
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["section", "add", "new", "--at", "0"],
            seed: 14_015)
        let tally = try kills.run(attempts: 60, enoughKills: 15, needsAfter: true) { _, _ in
            var outcome = MigrationKills.Outcome.before
            _ = try MigrationKills.checkedVersion(of: cli.database) { db, _ in
                let number = try #require(try db.scalarInt("SELECT number FROM liststore_replica")).int64
                let device = try db.scalarInt("SELECT device FROM liststore_replica").map(Int64.init)
                let inode = try db.scalarInt("SELECT inode FROM liststore_replica").map(Int64.init)
                guard try Self.newSectionAdded(db) else {
                    #expect(number == 0 && device == original.device && inode == original.inode)
                    return
                }
                outcome = .after
                let file = try Self.fileID(cli.database)
                #expect(number > 0 && device == file.device && inode == file.inode)
                let id = try #require(try db.scalarInt("SELECT id FROM sections WHERE title = 'new'")).int64
                #expect(ReplicaIdentity.range(of: number).contains(id))
            }
            return outcome
        }
        MigrationKills.expectKillsOnBothSides(tally)
    }

    /// Whether the write committed: the new section first, every other one after it.
    static func newSectionAdded(_ db: Connection) throws -> Bool {
        let first = try db.scalarText("SELECT title FROM sections WHERE list_id = 1 AND position = 0")
        #expect(try db.scalarInt("SELECT count(*) FROM sections") == sections + (first == "new" ? 1 : 0))
        return first == "new"
    }
}

extension Int {
    fileprivate var int64: Int64 { Int64(self) }
}
