import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// A committed transaction survives any crash, and none is ever half there: each workload runs once with
/// every call on its files recorded (``CrashRecorder``), then every state a process crash or a power loss
/// could leave (``CrashState``) must open in SQLite with `integrity_check` ok, pass ListStore's check,
/// and hold exactly the contents after one of the commits that state allows.
///
/// The writer's page cache is made small (16 pages) so that a transaction of a few hundred rows spills
/// pages into the `-wal` before its commit and rewrites some of them, as one of many megabytes does with
/// the real cache; and the `-wal` is checkpointed from 100 frames, so that checkpoints run between the
/// workloads' commits.
@Suite(.serialized, .tags(.slow)) struct CommittedTransactionsSurviveCrashesTests {
    /// The most states of each kind checked per workload (each takes a few milliseconds).
    static let processCrashBudget = 300
    static let powerLossCuts = 40
    static let powerLossVariants = 3

    @Test func oneRowEditsSurviveEveryCrash() async throws {
        try await expectEveryCrashStateSound(seed: 1) { run in
            let store = try run.open()
            for step in 0..<40 {
                switch step % 4 {
                case 0: _ = try store.insertRow(NewRow(title: "new \(step)", payload: #"{"n":\#(step)}"#), intoSection: step % 3, at: 0)
                case 1: _ = try store.updateRow(at: ListIndexPath(section: step % 3, row: 1), title: "renamed \(step)")
                case 2: _ = try store.moveRow(from: ListIndexPath(section: 0, row: 2), to: ListIndexPath(section: 2, row: 0))
                default: _ = try store.deleteRows(at: [ListIndexPath(section: 1, row: 3)])
                }
                try run.committed(store)
            }
        }
    }

    @Test func transactionsLargerThanThePageCacheSurviveEveryCrash() async throws {
        try await expectEveryCrashStateSound(seed: 2) { run in
            let store = try run.open()
            _ = try store.insertRows(Self.rows(600, "bulk"), intoSection: 0, at: 5)
            try run.committed(store)
            // Pages spilled, then rewritten in place by the same transaction.
            _ = try store.write { transaction in
                for row in stride(from: 0, to: 300, by: 1) { _ = try transaction.updateRow(at: ListIndexPath(section: 0, row: row), title: "updated \(row)") }
            }.changes
            try run.committed(store)
            // A large transaction rolled back after spilling: nothing of it may ever show.
            #expect(throws: RolledBack.self) {
                try store.write { transaction in
                    _ = try transaction.insertRows(Self.rows(600, "rolled back"), intoSection: 1)
                    throw RolledBack()
                }
            }
            _ = try store.insertRow("after the rollback", intoSection: 2)
            try run.committed(store)
        }
    }

    @Test func undoAndRedoOfLargeTransactionsSurviveEveryCrash() async throws {
        try await expectEveryCrashStateSound(seed: 3) { run in
            let store = try run.open()
            _ = try store.insertRows(Self.rows(500, "undone"), intoSection: 1)
            try run.committed(store)
            _ = try store.undo()
            try run.committed(store)
            _ = try store.redo()
            try run.committed(store)
            _ = try store.undo()
            try run.committed(store)
        }
    }

    @Test func importsSurviveEveryCrash() async throws {
        try await expectEveryCrashStateSound(seed: 4) { run in
            let store = try run.open()
            _ = try store.importStream(replacing: true) { importer in
                for section in 0..<8 {
                    try importer.addSection(title: "imported \(section)")
                    for row in 0..<100 { try importer.addRow(title: "row \(section).\(row)", payload: #"{"imported":\#(row)}"#) }
                }
            }
            try run.committed(store)
        }
    }

    @Test func deletingALargeListSurvivesEveryCrash() async throws {
        try await expectEveryCrashStateSound(seed: 5) { run in
            let store = try run.open()
            let big = try store.addList(named: "big")
            try run.committed(store)
            _ = try big.insertSection(title: "everything")
            try run.committed(store)
            _ = try big.insertRows(Self.rows(700, "big"), intoSection: 0)
            try run.committed(store)
            _ = try store.deleteList(named: "big")
            try run.committed(store)
        }
    }

    @Test func checkpointsBetweenCommitsLoseNothing() async throws {
        try await expectEveryCrashStateSound(seed: 6) { run in
            let store = try run.open()
            for round in 0..<6 {
                _ = try store.insertRow("small \(round)", intoSection: round % 3)
                try run.committed(store)
                _ = try store.insertRows(Self.rows(150, "round \(round)"), intoSection: (round + 1) % 3)
                try run.committed(store)
                if round % 2 == 1 { try store.checkpoint() }
            }
        }
    }

    @Test func twoStoresOnOneFileInOneProcessSurviveEveryCrash() async throws {
        try await expectEveryCrashStateSound(seed: 7) { run in
            let first = try run.open()
            let second = try run.open()
            for round in 0..<4 {
                _ = try first.insertRow("first \(round)", intoSection: 0)
                try run.committed(first)
                _ = try second.insertRows(Self.rows(200, "second \(round)"), intoSection: 1)
                try run.committed(second)
                _ = try first.deleteRows(at: [ListIndexPath(section: 1, row: 0)])
                try run.committed(first)
            }
        }
    }

    /// What `liststore ui` does: a small commit, then a large one (the undo of a bulk insert), then only
    /// reads for as long as the person looks at the screen.
    @Test func aLargeCommitFollowedOnlyByReadsSurvivesEveryCrash() async throws {
        try await expectEveryCrashStateSound(seed: 8) { run in
            let store = try run.open()
            _ = try store.insertRows(Self.rows(600, "bulk"), intoSection: 0)
            try run.committed(store)
            _ = try store.updateRow(at: ListIndexPath(section: 1, row: 0), title: "edited")
            try run.committed(store)
            _ = try store.undo()
            try run.committed(store)
            _ = try store.undo()
            try run.committed(store)
            for _ in 0..<20 {
                _ = try store.snapshot()
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    // MARK: Running a workload

    private struct RolledBack: Error {}

    static func rows(_ count: Int, _ prefix: String) -> [NewRow] {
        (0..<count).map { NewRow(title: "\(prefix) \($0)", payload: #"{"note":"\#(String(repeating: "x", count: 60))","n":\#($0)}"#) }
    }

    /// A workload's side of the recording: opens its stores, and tells each commit that returned.
    final class Run {
        let path: String
        private let mark: () -> Void
        private(set) var expected: [StoreContents]

        init(path: String, initial: StoreContents, mark: @escaping () -> Void) {
            self.path = path
            self.mark = mark
            self.expected = [initial]
        }

        /// A store on the file, with the small page cache and checkpoint threshold of these tests.
        func open() throws -> ListStore {
            try CommittedTransactionsSurviveCrashesTests.openStore(at: path)
        }

        /// After a transaction's commit returned: marks the recording, and notes what the store holds now.
        func committed(_ store: ListStore) throws {
            mark()
            expected.append(try store.contents())
        }
    }

    static func openStore(at path: String) throws -> ListStore {
        let store = try ListStore.open(at: path)
        try store.withLockedConnection { db in
            try db.run("PRAGMA cache_size = 16")
            _ = try db.scalarInt("PRAGMA wal_autocheckpoint = 100")
        }
        return store
    }

    /// Seeds a file of three sections of 20 rows, records `workload` on it, and checks the crash states.
    private func expectEveryCrashStateSound(seed: UInt64, _ workload: (Run) throws -> Void) async throws {
        try CrashRecorder.install()
        let directory = try TemporaryDirectory()
        let folder = directory.url.appendingPathComponent("file")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("lists.sqlite").path
        let initial: StoreContents = try {
            let store = try ListStore.open(at: path)
            for section in 0..<3 {
                _ = try store.insertSection(title: "section \(section)")
                _ = try store.insertRows((0..<20).map { NewRow(title: "row \(section).\($0)") }, intoSection: section)
            }
            return try store.contents()
        }()
        var run: Run?
        let recorded = try CrashRecorder.record(in: folder) { mark in
            let workloadRun = Run(path: path, initial: initial, mark: mark)
            run = workloadRun
            try workload(workloadRun)
        }
        let expected = try #require(run).expected
        var generator = SeededGenerator(seed: seed)
        let cuts = recorded.cuts(budget: Self.processCrashBudget, generator: &generator)
        var states = recorded.processCrashStates(atCuts: cuts)
        let powerCuts = recorded.cuts(budget: Self.powerLossCuts, generator: &generator)
        states += recorded.powerLossStates(atCuts: powerCuts, variants: Self.powerLossVariants, generator: &generator)
        let failures = await CrashStateCheck.failures(of: states, expected: expected, scratch: directory.url.appendingPathComponent("states"))
        if !failures.isEmpty {
            Issue.record("\(CrashStateCheck.summary(failures, of: states.count)) (\(recorded.fileCallCount) file calls recorded)")
        }
        #expect(states.count > 100)
    }
}
