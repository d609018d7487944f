import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Files of every earlier version keep opening and migrate, and a SIGKILL during the migration to the
/// latest version (6, change-log record format 2; before it 5, the hardened change log), which commits
/// with the first write, leaves the file at the version and content before or after, never in between.
@Suite struct ChangeLogMigrationTests {
    /// A closed file of schema `version`, as that version's ListStore left it, with one section of `rows` rows.
    static func makeFile(_ path: String, version: Int, rows: Int) throws {
        let db = try Connection(path: path, mode: .readWriteCreate)
        try Migrator(migrations: Array(Schema.migrations.prefix(version)), applicationID: Schema.applicationID).migrate(db)
        try db.transaction(.immediate) {
            try db.run("INSERT INTO sections (position, title) VALUES (0, 'S')")
            let insert = try db.cached("INSERT INTO rows (section_id, position, title) VALUES (1, ?1, ?2)")
            for index in 0..<rows { try insert.bind([.int(index), .text("r\(index)")]).run() }
        }
    }

    @Test(arguments: Array(1..<ListStore.schemaVersion))
    func filesOfEarlierVersionsOpenAndMigrate(version: Int) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v\(version).sqlite")
        try Self.makeFile(path, version: version, rows: 3)
        if (3..<5).contains(version) { try Connection(path: path, mode: .readWrite).executeScript("DELETE FROM liststore_state") }  // allowed before the hardening (5)
        let store = try ListStore.open(at: path)
        #expect(try store.snapshot().sections.map { $0.rows.map(\.title) } == [["r0", "r1", "r2"]])
        #expect(try store.fileSchemaVersion() == Schema.migrator.latestVersion)
        #expect(try store.checkInvariants().isEmpty)
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT writing FROM liststore_state WHERE id = 1") == 0)
        // What the hardened change log adds works on the migrated file: a hand id change reaches observers.
        var updates = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        _ = try #require(try await nextElement(&updates))
        try Connection(path: path, mode: .readWrite).executeScript("UPDATE rows SET id = 100 WHERE id = 1")
        try store.deliverChangesFromOtherConnections()
        guard case .reset(let state) = try #require(try await nextElement(&updates)) else {
            Issue.record("no reset")
            return
        }
        #expect(state.sections[0].rows.map(\.id.rawValue) == [100, 2, 3])
    }

    /// Writes `pristine` over `database` (its `-wal`, `-shm` and `-journal` removed) and starts `binary`
    /// with `--db database` and `arguments`, its output discarded: a first write to be killed.
    static func startOnFreshCopy(
        _ binary: URL, _ database: String, _ pristine: Data, _ arguments: [String], standardInput: FileHandle? = nil
    ) throws -> Process {
        for suffix in ["-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        try pristine.write(to: URL(fileURLWithPath: database))
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--db", database] + arguments
        if let standardInput { process.standardInput = standardInput }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The version, rows and schema of the file at `path`, read after a kill (a reader rolls back a
    /// hot journal first); the schema must be exactly its version's.
    static func outcome(_ path: String) throws -> (version: Int, rows: Int) {
        let db = try Connection(path: path, mode: .readWrite)
        let version = try Migrator.version(of: db)
        let differences = try Schema.differences(in: db, version: version)
        #expect(differences.isEmpty, "version \(version): \(differences)")
        return (version, try db.scalarInt("SELECT count(*) FROM rows") ?? -1)
    }

    @Test func aKillDuringTheMigrationLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let earlier = Schema.migrator.latestVersion - 1
        let pristine = cli.directory.appendingPathComponent("v\(earlier).sqlite").path
        try Self.makeFile(pristine, version: earlier, rows: 20_000)
        let input = cli.directory.appendingPathComponent("stdin")
        try Data((0..<5_000).map { "new \($0)" }.joined(separator: "\n").utf8).write(to: input)
        // The first write: the migration and 5,000 rows, one transaction.
        var kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["add", "0", "-"], seed: 4_004)
        kills.standardInput = input
        let tally = try kills.run(attempts: 80, enoughKills: 25, needsAfter: true) { attempt, killed in
            let (version, rows) = try Self.outcome(cli.database)
            let outcome: MigrationKills.Outcome
            switch (version, rows) {
            case (earlier, 20_000): outcome = .before
            case (Schema.migrator.latestVersion, 25_000): outcome = .after
            default:
                Issue.record("attempt \(attempt) (seed 4004, killed: \(killed)): version \(version) with \(rows) rows is neither before nor after")
                return nil
            }
            #expect(try ListStore.open(at: cli.database).checkInvariants().isEmpty, "attempt \(attempt)")
            return outcome
        }
        #expect(tally.kills >= 10, "the kills must land inside the write: \(tally.kills)")
        #expect(tally.before > 0 && tally.after > 0, "kills should land both before and after the commit: \(tally) (the write takes \(tally.duration) s)")
    }
}
