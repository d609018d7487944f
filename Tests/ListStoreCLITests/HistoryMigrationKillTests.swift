import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The migration to the undo history (schema 9, `0009_history.sql`) commits with the first write: a
/// SIGKILL at any moment of a first write that deletes a 20,000-row section of a schema-8 file — whose
/// rows the history copies into `liststore_history_rows` in the same transaction — leaves the file at
/// the schema before with every row, or at the latest with the section deleted and a history entry that brings it
/// back (`liststore undo`, ids and order restored), never in between.
@Suite struct HistoryMigrationKillTests {
    static let rows = 20_000
    /// The schema the first write migrates to (the latest, past the history's 9) and the one before the history.
    static let latest = Schema.migrator.latestVersion
    static let earlier = 8

    @Test func aKillDuringTheMigratingFirstWriteLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v\(Self.earlier).sqlite").path
        try ChangeLogMigrationTests.makeFile(pristine, version: Self.earlier, rows: Self.rows)
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["section", "delete", "0"], seed: 8_008)
        let tally = try kills.run(attempts: 60, enoughKills: 15) { attempt, killed in
            let version = try Self.outcome(cli.database)
            if attempt < 0 {
                // The whole write's outcome can be undone: the section comes back with its ids and order.
                let undo = try cli.run(["undo"])
                #expect(undo.status == 0, "\(undo.stderr)")
                let store = try ListStore.open(at: cli.database, mode: .readOnly)
                #expect(try store.snapshot().sections.first?.rows.map(\.id.rawValue) == Array(1...Int64(Self.rows)))
            }
            return kills.side(of: version, before: Self.earlier, after: Self.latest, attempt: attempt, killed: killed)
        }
        #expect(tally.kills >= 5, "the kills must land inside the write: \(tally.kills)")
        #expect(tally.before > 0, "kills should land before the commit: \(tally) (the write takes \(tally.duration) s)")
    }

    /// The file's version after a kill, checked whole: at 8, no history and every row; at the latest, no rows, and
    /// one history entry by `cli` keeping all of them, in order; `check` clean either way.
    static func outcome(_ path: String) throws -> Int {
        let (version, _) = try outcomeOfFile(path)
        #expect(try ListStore.open(at: path, mode: .inspect).checkInvariants().isEmpty)
        return version
    }

    private static func outcomeOfFile(_ path: String) throws -> (Int, Int) {
        let db = try Connection(path: path, mode: .readWrite)
        let version = try Migrator.version(of: db)
        #expect(try Schema.differences(in: db, version: version).isEmpty, "version \(version)")
        let rowCount = try db.scalarInt("SELECT count(*) FROM rows") ?? -1
        switch version {
        case earlier:
            #expect(rowCount == rows)
        case latest:
            #expect(rowCount == 0)
            #expect(try db.scalarInt("SELECT count(*) FROM liststore_history WHERE author = 'cli' AND kind = 'do' AND state = 'done'") == 1)
            #expect(try db.scalarInt("SELECT count(*) FROM liststore_history_rows WHERE ord = row_id - 1") == rows)
        default:
            break
        }
        return (version, rowCount)
    }
}
