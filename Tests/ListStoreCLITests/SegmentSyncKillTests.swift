import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// A SIGKILL at any moment of `liststore sync --segments DIR` — another copy's segment of 3,000 rows inserted,
/// 300 moved, 300 retitled and 300 deleted being read into the mirror, merged, and this file's own segment
/// written — leaves the file as it was or fully merged, never a segment under its final name that has not
/// been written whole, and a state the next sync completes: the copies then alike.
@Suite struct SegmentSyncKillTests {
    @Test func aKillDuringASyncThroughSegmentsLeavesEverythingBeforeOrAfterAndTheNextSyncCompletesIt() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let folder = cli.directory.appendingPathComponent("shared", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = cli.directory.appendingPathComponent("base.sqlite").path
        let peer = cli.directory.appendingPathComponent("peer.sqlite").path
        try MergeKillTests.baseAndEditedCopy(base: base, copy: peer)
        let pristine = try #require(fileBytes(base))
        let peerStore = try ListStore.open(at: peer)
        let peerSegment = try #require(try peerStore.sync(throughFolder: folder).written).lastPathComponent
        let expected = try peerStore.snapshot().sections.map { $0.rows.map(\.id) }

        /// A fresh start: the file as it was, no mirrors, no segment in the folder but the peer's.
        func start() throws -> Process {
            try? FileManager.default.removeItem(atPath: cli.database + "-mirrors")
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != peerSegment {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
            return try ChangeLogMigrationTests.startOnFreshCopy(binary, cli.database, pristine, ["sync", "--segments", folder.path, "--rounds", "1"])
        }
        /// Which side the file is on, and that nothing in the folder under a segment's name is cut short.
        func check(_ attempt: Int) throws -> MigrationKills.Outcome? {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where SegmentName(name) != nil {
                let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
                #expect(throws: Never.self, "attempt \(attempt): \(name) is not whole") { _ = try Segment(decoding: bytes) }
            }
            let db = try Connection(path: cli.database, mode: .readWrite)
            #expect(try db.scalarText("PRAGMA integrity_check") == "ok")
            switch try db.scalarInt("SELECT count(*) FROM rows") ?? -1 {
            case 3_000: return .before
            case 3_000 + 3_000 - 300:
                let merged = try ListStore.open(at: cli.database, mode: .readOnly).snapshot().sections.map { $0.rows.map(\.id) }
                #expect(merged == expected, "attempt \(attempt): merged, but not into the peer's order")
                return .after
            case let count:
                Issue.record("attempt \(attempt): \(count) rows: neither before nor after the merge")
                return nil
            }
        }
        /// The next sync, not killed, completes what was cut short: the peer's content, and a segment of this file's.
        func completes(_ attempt: Int) throws {
            let again = Process()
            again.executableURL = binary
            again.arguments = ["--db", cli.database, "sync", "--segments", folder.path, "--rounds", "1"]
            again.standardOutput = FileHandle.nullDevice
            again.standardError = FileHandle.nullDevice
            try again.run()
            again.waitUntilExit()
            #expect(again.terminationStatus == 0, "attempt \(attempt): the next sync failed")
            let merged = try ListStore.open(at: cli.database, mode: .readOnly).snapshot().sections.map { $0.rows.map(\.id) }
            #expect(merged == expected, "attempt \(attempt): the next sync did not complete the merge")
            let own = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { SegmentName($0) != nil && $0 != peerSegment }
            #expect(!own.isEmpty, "attempt \(attempt): no segment of this file after the next sync")
        }

        let timing = Date()
        let whole = try start()
        whole.waitUntilExit()
        let duration = Date().timeIntervalSince(timing)
        try #require(whole.terminationStatus == 0, "the whole sync failed")
        #expect(try check(-1) == .after)
        var tally = MigrationKills.Tally(duration: duration)
        var random = SeededGenerator(seed: 34_120)
        for attempt in 0..<40 where tally.kills < 12 || tally.before == 0 || tally.after == 0 {
            let process = try start()
            // The kill lands at a random moment of the sync: this sleep is the point of the test.
            usleep(UInt32(duration * 1e6 * Double.random(in: 0.05...1.1, using: &random)))
            let killed = process.isRunning
            if killed {
                kill(process.processIdentifier, SIGKILL)
                tally.kills += 1
            }
            process.waitUntilExit()
            switch try check(attempt) {
            case .before: tally.before += 1
            case .after: tally.after += 1
            case nil: return
            }
            try completes(attempt)
        }
        MigrationKills.expectKillsOnBothSides(tally)
    }
}
