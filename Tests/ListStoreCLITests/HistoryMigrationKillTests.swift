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
        let pristineBytes = try #require(fileBytes(pristine))
        var random = SeededGenerator(seed: 8_008)
        var outcomes = (before: 0, after: 0)
        var kills = 0
        func start() throws -> Process {
            try ChangeLogMigrationTests.startOnFreshCopy(binary, cli.database, pristineBytes, ["section", "delete", "0"])
        }
        let timing = Date()
        let whole = try start()
        whole.waitUntilExit()
        let duration = Date().timeIntervalSince(timing)
        try #require(whole.terminationStatus == 0)
        #expect(try Self.outcome(cli.database) == Self.latest)
        // The whole write's outcome can be undone: the section comes back with its ids and order.
        let undo = try cli.run(["undo"])
        #expect(undo.status == 0, "\(undo.stderr)")
        do {
            let store = try ListStore.open(at: cli.database, mode: .readOnly)
            #expect(try store.snapshot().sections.first?.rows.map(\.id.rawValue) == Array(1...Int64(Self.rows)))
        }
        for attempt in 0..<60 where kills < 15 || outcomes.before == 0 || outcomes.after == 0 {
            let process = try start()
            // The kill lands at a random moment of the write: this sleep is the point of the test.
            usleep(UInt32(duration * 1.2 * 1e6 * Double.random(in: 0.05...1, using: &random)))
            let killed = process.isRunning
            if killed {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
            switch try Self.outcome(cli.database) {
            case Self.earlier: outcomes.before += 1
            case Self.latest: outcomes.after += 1
            case let version: Issue.record("attempt \(attempt) (seed 8008, killed: \(killed)): version \(version) is neither before nor after")
            }
        }
        #expect(kills >= 5, "the kills must land inside the write: \(kills)")
        #expect(outcomes.before > 0, "kills should land before the commit: \(outcomes) (the write takes \(duration) s)")
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
