import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// The loop every migration kill test runs: a first write that migrates a file, run once whole (to learn
/// how long it takes here), then again and again on fresh copies of the same file, each killed with
/// SIGKILL at a random moment, the file checked after every run.
struct MigrationKills {
    /// Before or after the write: what a checked file may be.
    enum Outcome { case before, after }

    /// How many runs ended each way, how many were killed, and how long the whole write took.
    struct Tally {
        var before = 0
        var after = 0
        var kills = 0
        var duration: TimeInterval = 0
    }

    let binary: URL
    let database: String
    let pristine: Data
    let arguments: [String]
    var standardInput: URL?
    /// Where in the write the kills land, as fractions of the whole write's duration.
    var window: ClosedRange<Double> = 0.06...1.2
    let seed: UInt64

    /// Runs the whole write (it must succeed), then up to `attempts` killed runs, stopping once `enoughKills`
    /// landed and both outcomes (or, with `needsAfter` false, the one before) were seen. `check` reads the
    /// file after a run and says which side it is on (nil: neither, already recorded as an issue).
    func run(attempts: Int, enoughKills: Int, needsAfter: Bool = false, check: (_ attempt: Int, _ killed: Bool) throws -> Outcome?) throws -> Tally {
        var tally = Tally()
        let timing = Date()
        let whole = try start()
        whole.waitUntilExit()
        tally.duration = Date().timeIntervalSince(timing)
        try #require(whole.terminationStatus == 0, "the whole write failed")
        #expect(try check(-1, false) == .after, "the whole write")
        var random = SeededGenerator(seed: seed)
        // How long a write takes now: the first, whole run's time, corrected as the runs go, since a loaded
        // machine (or a warm cache) makes later runs slower (faster) and the kills would miss the write.
        var duration = tally.duration
        for attempt in 0..<attempts where tally.kills < enoughKills || tally.before == 0 || (needsAfter && tally.after == 0) {
            let process = try start()
            // The kill lands at a random moment of the write: this sleep is the point of the test.
            let fraction = Double.random(in: window, using: &random)
            usleep(UInt32(duration * 1e6 * fraction))
            let killed = process.isRunning
            if killed {
                kill(process.processIdentifier, SIGKILL)
                tally.kills += 1
                if fraction >= 1 { duration = min(duration * 1.25, tally.duration * 10) }
            } else if fraction < 1 {
                duration = max(duration * 0.8, tally.duration / 10)
            }
            process.waitUntilExit()
            switch try check(attempt, killed) {
            case .before: tally.before += 1
            case .after: tally.after += 1
            case nil: return tally
            }
        }
        return tally
    }

    /// `.before` for a file at version `before`, `.after` at `after`; any other version is recorded as an
    /// issue naming the attempt (nil).
    func side(of version: Int, before: Int, after: Int, attempt: Int, killed: Bool) -> Outcome? {
        switch version {
        case before: return .before
        case after: return .after
        default:
            Issue.record("attempt \(attempt) (seed \(seed), killed: \(killed)): version \(version) is neither \(before) nor \(after)")
            return nil
        }
    }

    private func start() throws -> Process {
        try ChangeLogMigrationTests.startOnFreshCopy(
            binary, database, pristine, arguments, standardInput: try standardInput.map { try FileHandle(forReadingFrom: $0) })
    }
}

extension MigrationKills {
    /// The version of the file at `path` after a run, checked whole: its schema exactly its version's,
    /// what `expect` checks of its contents at that version, and `check` clean.
    static func checkedVersion(of path: String, _ expect: (_ db: Connection, _ version: Int) throws -> Void) throws -> Int {
        let version: Int
        do {
            let db = try Connection(path: path, mode: .readWrite)
            version = try Migrator.version(of: db)
            #expect(try Schema.differences(in: db, version: version).isEmpty, "version \(version)")
            try expect(db, version)
        }
        #expect(try ListStore.open(at: path, mode: .inspect).checkInvariants().isEmpty)
        return version
    }

    /// Expects at least five kills inside the write, landing both before and after its commit.
    static func expectKillsOnBothSides(_ tally: Tally, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(tally.kills >= 5, "the kills must land inside the write: \(tally.kills)", sourceLocation: sourceLocation)
        #expect(
            tally.before > 0 && tally.after > 0, "kills should land both before and after the commit: \(tally) (the write takes \(tally.duration) s)",
            sourceLocation: sourceLocation)
    }
}
