import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The migration to sparse positions (schema 7) rewrites every row of a file: a SIGKILL at any moment
/// of the first write of a 1,000,000-row schema-6 file leaves it at schema 6 with its rows as they were,
/// or at schema 7 with the write's row added, every row in its order and `check` clean (issue 18).
@Suite struct PositionsMigrationKillTests {
    static let rows = 1_000_000

    @Test func aKillDuringTheMigrationOfAMillionRowsLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v6.sqlite").path
        try ChangeLogMigrationTests.makeFile(pristine, version: 6, rows: Self.rows)
        let pristineBytes = try #require(fileBytes(pristine))
        var random = SeededGenerator(seed: 7_007)
        var outcomes = (before: 0, after: 0)
        var kills = 0
        /// Starts the first write (the migration and one row inserted at index 500,000) on a fresh copy.
        func start() throws -> Process {
            try ChangeLogMigrationTests.startOnFreshCopy(binary, cli.database, pristineBytes, ["add", "0", "middle", "--at", "500000"])
        }
        let timing = Date()
        let whole = try start()
        whole.waitUntilExit()
        let duration = Date().timeIntervalSince(timing)
        try #require(whole.terminationStatus == 0)
        try Self.expectIntact(cli.database, version: Schema.migrator.latestVersion)
        for attempt in 0..<8 where kills < 2 || outcomes.before == 0 {
            let process = try start()
            // The kill lands at a random moment of the first half of the write (later runs find the file in the
            // page cache and run faster than the timed one): this sleep is the point of the test.
            usleep(UInt32(duration * 1e6 * Double.random(in: 0.02...0.5, using: &random)))
            let killed = process.isRunning
            if killed {
                kill(process.processIdentifier, SIGKILL)
                kills += 1
            }
            process.waitUntilExit()
            let version = try Self.expectIntact(cli.database, version: nil)
            if version == 6 { outcomes.before += 1 } else { outcomes.after += 1 }
            #expect(version == 6 || version == Schema.migrator.latestVersion, "attempt \(attempt) (seed 7007, killed: \(killed), the write takes \(duration) s)")
        }
        #expect(kills >= 2, "the kills must land inside the write: \(kills)")
        #expect(outcomes.before > 0, "kills should land before the commit: \(outcomes) (the write takes \(duration) s)")
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
