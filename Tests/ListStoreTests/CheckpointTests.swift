import Dispatch
import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// The `-wal` is checkpointed off the writer's path (``Checkpointer``): a commit never copies pages
/// into the main file itself, a background checkpoint does soon after, the `-wal` stays bounded under
/// sustained writes, closing still leaves no `-wal`, and a reader's state is never disturbed.
@Suite struct CheckpointTests {
    /// The rows the main file holds by itself, its `-wal` ignored (SQLite's `immutable=1`). Read only
    /// while no checkpoint runs.
    static func rowsInMainFile(_ path: String) throws -> Int {
        let connection = try Connection(path: path, mode: .readOnlyImmutable)
        // A new file's schema may itself be only in the -wal yet.
        guard try connection.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'rows'") == 1 else { return 0 }
        return try connection.scalarInt("SELECT count(*) FROM rows") ?? -1
    }

    /// The frames the `-wal` file has room for (its size: SQLite writes it again from its start after a
    /// checkpoint, so the size is the most it ever held).
    static func walFrames(_ path: String) -> Int {
        max(0, ((StorePath.size(path + "-wal") ?? 0) - 32) / (4_096 + 24))
    }

    /// Waits until `condition` holds, polling, for at most `seconds`; whether it held.
    static func eventually(seconds: Double = 60, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(10_000)
        }
        return try condition()
    }

    /// `count` rows of about 100 bytes each: 10,000 of them fill some 300 pages.
    static func titles(_ count: Int, _ tag: String) -> [NewRow] {
        let padding = String(repeating: "x", count: 90)
        return (0..<count).map { NewRow(title: "\(tag) \($0) \(padding)") }
    }

    /// Enough rows to take the `-wal` past SQLite's 1,000 frames in one commit.
    static let largeWrite = 50_000

    /// A section, then one-row inserts, each its own write, until the `-wal` holds the frames from which
    /// the checkpoint connection is opened ahead; the rows inserted.
    static func insertUntilTheConnectionOpensAhead(_ store: ListStore, _ checkpointer: Checkpointer) throws -> Int {
        _ = try store.insertSection(title: "s")
        var inserted = 0
        while checkpointer.framesAtLastCommit < checkpointer.settings.opensAhead {
            _ = try store.insertRow(NewRow(title: "small \(inserted)"), intoSection: 0, at: 0)
            inserted += 1
        }
        return inserted
    }

    /// Settings whose background thread, before it opens its connection, signals `opening` and waits for `gate`.
    static func openingHeld(signalling opening: DispatchSemaphore, until gate: DispatchSemaphore) -> Checkpointer.Settings {
        var settings = Checkpointer.Settings.standard
        settings.beforeOpening = {
            opening.signal()
            _ = gate.wait(timeout: .now() + 60)
        }
        return settings
    }

    @Test func theCommitLeavesTheCheckpointToABackgroundThread() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let gate = DispatchSemaphore(value: 0)
        var settings = Checkpointer.Settings.standard
        settings.beforeCheckpoint = { _ = gate.wait(timeout: .now() + 60) }
        let store = try ListStore.open(at: path, checkpoints: settings)
        _ = try store.insertSection(title: "s")
        _ = try store.insertRows(Self.titles(Self.largeWrite, "r"), intoSection: 0)
        try #require(Self.walFrames(path) >= 1_000, "the write must cross SQLite's automatic checkpoint")
        // The write has returned: its pages are all still in the -wal (SQLite's automatic checkpoint
        // would have copied them into the main file inside the commit).
        #expect(try Self.rowsInMainFile(path) == 0)
        #expect(store.checkpointer?.finishedCount == 0)
        gate.signal()
        #expect(Self.eventually { (store.checkpointer?.finishedCount ?? 0) >= 1 })
        #expect(try Self.rowsInMainFile(path) == Self.largeWrite)
        #expect(try store.totalRowCount() == Self.largeWrite)
    }

    /// The same write with no background checkpoint held back: the main file has the rows soon after.
    @Test func aLargeWriteIsCheckpointedSoonAfter() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let store = try ListStore.open(at: path)
        _ = try store.insertSection(title: "s")
        _ = try store.insertRows(Self.titles(Self.largeWrite, "r"), intoSection: 0)
        #expect(Self.eventually { (store.checkpointer?.finishedCount ?? 0) >= 1 })
        #expect(try Self.rowsInMainFile(path) == Self.largeWrite)
    }

    @Test(arguments: [false, true]) func theWALStaysBoundedUnderSustainedLargeWrites(slowCheckpoints: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        var settings = Checkpointer.Settings.standard
        // Background checkpoints slower than the writes: without the ceiling the -wal would never be
        // fully copied when a write begins, so never start again from its beginning.
        if slowCheckpoints { settings.beforeCheckpoint = { usleep(300_000) } }
        let store = try ListStore.open(at: path, checkpoints: settings)
        _ = try store.insertSection(title: "s")
        _ = try store.insertRows(Self.titles(10_000, "first"), intoSection: 0)
        let oneWrite = Self.walFrames(path)
        try #require(oneWrite >= 300)
        for step in 0..<20 {
            // A large write each time: 10,000 rows in, or the oldest 10,000 out.
            if step % 2 == 0 {
                _ = try store.insertRows(Self.titles(10_000, "w\(step)"), intoSection: 0)
            } else {
                _ = try store.deleteRows(at: (0..<10_000).map { ListIndexPath(section: 0, row: $0) })
            }
            #expect(
                Self.walFrames(path) <= settings.ceiling + 3 * oneWrite,
                "after write \(step): \(Self.walFrames(path)) frames, one write makes \(oneWrite)")
        }
        #expect(try store.totalRowCount() == 10_000)
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Single-row writes one after another while a background checkpoint runs: it leaves the frames
    /// committed meanwhile, so the `-wal` would never be fully copied when a write begins. From
    /// ``Checkpointer/Settings/catchUp`` frames on, the first commit after the checkpoint copies the rest
    /// itself and the next write starts the `-wal` again from its beginning, well before the ceiling: no
    /// commit waits for a background checkpoint (each such wait cost milliseconds). The checkpoint is held
    /// after copying until the writes have passed `catchUp`, and any later one before copying, so the
    /// order is the same however the machine schedules the threads.
    @Test func sustainedSmallWritesNeverWaitForABackgroundCheckpoint() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let started = DispatchSemaphore(value: 0)
        let copy = DispatchSemaphore(value: 0)
        let copied = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        var settings = Checkpointer.Settings.standard
        settings.catchUp = 1_500
        settings.ceiling = 8_000
        settings.beforeCheckpoint = {
            started.signal()
            _ = copy.wait(timeout: .now() + 60)
        }
        settings.afterCheckpoint = {
            copied.signal()
            _ = finish.wait(timeout: .now() + 60)
        }
        let store = try ListStore.open(at: path, checkpoints: settings)
        let checkpointer = try #require(store.checkpointer)
        defer {
            // Whatever failed: nothing left waiting for the test when the store closes.
            for _ in 0..<10 {
                copy.signal()
                finish.signal()
            }
        }
        _ = try store.insertSection(title: "s")
        _ = try store.insertRows(Self.titles(2_000, "r"), intoSection: 0)
        var inserted = 0
        func insert() throws {
            _ = try store.insertRow(NewRow(title: "hot \(inserted)"), intoSection: 0, at: 1)
            inserted += 1
        }
        for round in 0..<3 {
            // Some 9 frames each: past the threshold a background checkpoint starts.
            while checkpointer.framesAtLastCommit < settings.threshold { try insert() }
            try #require(started.wait(timeout: .now() + 60) == .success, "round \(round): no background checkpoint started")
            copy.signal()
            try #require(copied.wait(timeout: .now() + 60) == .success, "round \(round): the checkpoint did not copy")
            // Written while it runs: left in the -wal.
            while checkpointer.framesAtLastCommit < settings.catchUp + 100 { try insert() }
            let finished = checkpointer.finishedCount
            finish.signal()
            try #require(Self.eventually { checkpointer.finishedCount > finished }, "round \(round): the checkpoint did not finish")
            // The first commit copies what the checkpoint left; the write after it starts the -wal again.
            try insert()
            try insert()
            #expect(checkpointer.framesAtLastCommit < 100, "round \(round): \(checkpointer.framesAtLastCommit) frames")
            #expect(started.wait(timeout: .now()) == .timedOut, "round \(round): another background checkpoint started")
        }
        #expect(checkpointer.waitedCount == 0)
        // One catch-up on the committing thread a round, and nothing else there.
        #expect(checkpointer.onCommittingThreadCount == 3)
        #expect(Self.walFrames(path) < settings.ceiling, "\(Self.walFrames(path)) frames")
        #expect(try store.totalRowCount() == 2_000 + inserted)
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func closingWaitsForTheBackgroundCheckpointAndLeavesNoWAL() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        var settings = Checkpointer.Settings.standard
        let started = DispatchSemaphore(value: 0)
        // Still running when the store is released.
        settings.beforeCheckpoint = {
            started.signal()
            usleep(300_000)
        }
        do {
            let store = try ListStore.open(at: path, checkpoints: settings)
            _ = try store.insertSection(title: "s")
            _ = try store.insertRows(Self.titles(Self.largeWrite, "r"), intoSection: 0)
            try #require(started.wait(timeout: .now() + 60) == .success)
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(try Self.rowsInMainFile(path) == Self.largeWrite)
    }

    /// Background checkpoints share one connection, opened on their thread before the first of them
    /// once the `-wal` nears the threshold (``Checkpointer/Settings/opensAhead``), and closed before the
    /// writer, which then checkpoints what is left and removes the `-wal` and `-shm` as it closes.
    @Test func backgroundCheckpointsKeepOneConnectionOpenedAheadAndClosedFirst() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        do {
            let store = try ListStore.open(at: path)
            let checkpointer = try #require(store.checkpointer)
            let inserted = try Self.insertUntilTheConnectionOpensAhead(store, checkpointer)
            try #require(checkpointer.framesAtLastCommit < checkpointer.settings.threshold, "one insert took the -wal past the threshold")
            #expect(Self.eventually { checkpointer.openedCount == 1 }, "the connection was not opened ahead")
            #expect(checkpointer.finishedCount == 0)
            for step in 0..<3 {
                let finished = checkpointer.finishedCount
                _ = try store.insertRows(Self.titles(Self.largeWrite, "w\(step)"), intoSection: 0)
                #expect(Self.eventually { checkpointer.finishedCount > finished }, "write \(step) was not checkpointed")
            }
            #expect(Self.eventually { (try? Self.rowsInMainFile(path)) == inserted + 3 * Self.largeWrite })
            #expect(checkpointer.openedCount == 1)
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }

    /// A large write that takes the `-wal` past the threshold while the connection is being opened ahead
    /// is still checkpointed in the background, once it is open: not by the next commit.
    @Test func aLargeWriteWhileTheConnectionOpensIsCheckpointedInTheBackground() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let gate = DispatchSemaphore(value: 0)
        let opening = DispatchSemaphore(value: 0)
        let store = try ListStore.open(at: path, checkpoints: Self.openingHeld(signalling: opening, until: gate))
        let checkpointer = try #require(store.checkpointer)
        defer { gate.signal() }
        let inserted = try Self.insertUntilTheConnectionOpensAhead(store, checkpointer)
        try #require(opening.wait(timeout: .now() + 60) == .success, "the connection was not opened ahead")
        // Past catchUp (a running checkpoint's catch-up would be due) but short of the ceiling.
        let large = 80_000
        _ = try store.insertRows(Self.titles(large, "large"), intoSection: 0)
        try #require(checkpointer.framesAtLastCommit >= checkpointer.settings.catchUp)
        try #require(checkpointer.framesAtLastCommit < checkpointer.settings.ceiling)
        gate.signal()
        #expect(Self.eventually { checkpointer.finishedCount == 1 })
        #expect(Self.eventually { (try? Self.rowsInMainFile(path)) == inserted + large })
        #expect(checkpointer.waitedCount == 0)
        #expect(checkpointer.openedCount == 1)
    }

    /// A background checkpoint that another connection's checkpoint holds off (it holds SQLite's
    /// checkpoint lock, as Litestream's does) keeps its connection: only a failure closes it.
    @Test func aCheckpointHeldOffByAnotherConnectionKeepsItsConnection() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let held = Locked(false)
        let proceed = DispatchSemaphore(value: 0)
        var settings = Checkpointer.Settings.standard
        settings.beforeCheckpoint = { if held.withLock({ $0 }) { _ = proceed.wait(timeout: .now() + 60) } }
        let store = try ListStore.open(at: path, checkpoints: settings)
        let checkpointer = try #require(store.checkpointer)
        defer { proceed.signal() }
        _ = try store.insertSection(title: "s")
        _ = try store.insertRows(Self.titles(Self.largeWrite, "first"), intoSection: 0)
        try #require(Self.eventually { checkpointer.finishedCount >= 1 })
        #expect(checkpointer.openedCount == 1)
        // A reader on an older state, and another connection's FULL checkpoint waiting for it, holding
        // SQLite's checkpoint lock meanwhile.
        let reader = try Connection(path: path, mode: .readOnly)
        let other = DispatchSemaphore(value: 0)
        try reader.readTransaction {
            _ = try reader.scalarInt("SELECT count(*) FROM rows")
            held.withLock { $0 = true }
            let finished = checkpointer.finishedCount
            _ = try store.insertRows(Self.titles(Self.largeWrite, "second"), intoSection: 0)
            Thread.detachNewThread {
                defer { other.signal() }
                guard let connection = try? Connection(path: path, mode: .readWrite) else { return }
                try? connection.run("PRAGMA busy_timeout = 20000")
                _ = try? connection.scalarInt("PRAGMA wal_checkpoint(FULL)")
            }
            // Until the other checkpoint has taken the lock (and waits for the reader): a probe's is held off.
            let probe = try Connection(path: path, mode: .readWrite)
            _ = try probe.readTransaction { try probe.scalarInt("SELECT count(*) FROM sections") }  // opens the -wal
            try #require(Self.eventually { probe.passiveCheckpoint() == .busy }, "the other checkpoint never took the lock")
            held.withLock { $0 = false }
            proceed.signal()
            try #require(Self.eventually { checkpointer.finishedCount > finished })
        }
        try #require(other.wait(timeout: .now() + 60) == .success)
        #expect(checkpointer.heldOffCount == 1)
        let finished = checkpointer.finishedCount
        _ = try store.insertRows(Self.titles(Self.largeWrite, "third"), intoSection: 0)
        #expect(Self.eventually { checkpointer.finishedCount > finished })
        #expect(Self.eventually { (try? Self.rowsInMainFile(path)) == 3 * Self.largeWrite })
        #expect(checkpointer.openedCount == 1)
        #expect(checkpointer.heldOffCount == 1)
    }

    /// A store closed while its checkpoint connection is being opened ahead waits for the opening, closes
    /// that connection before the writer, and so still leaves no `-wal` or `-shm`; no checkpoint runs.
    @Test func closingWhileTheConnectionOpensAheadLeavesNoWAL() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let opening = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        var inserted = 0
        var finished = -1
        do {
            let store = try ListStore.open(at: path, checkpoints: Self.openingHeld(signalling: opening, until: gate))
            let checkpointer = try #require(store.checkpointer)
            inserted = try Self.insertUntilTheConnectionOpensAhead(store, checkpointer)
            try #require(opening.wait(timeout: .now() + 60) == .success, "the connection was not opened ahead")
            let closed = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                checkpointer.close()
                closed.signal()
            }
            // Closing waits for the opening.
            #expect(closed.wait(timeout: .now() + 0.3) == .timedOut)
            gate.signal()
            try #require(closed.wait(timeout: .now() + 60) == .success)
            #expect(checkpointer.openedCount == 1)
            finished = checkpointer.finishedCount
        }
        #expect(finished == 0)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(try Self.rowsInMainFile(path) == inserted)
    }

    /// Closing waits for a running checkpoint and for the checkpoint connection's closing together at
    /// most ``Checkpointer/Settings/closingWait``, not that long for each.
    @Test func closingWaitsAtMostTheClosingWaitInAll() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let started = DispatchSemaphore(value: 0)
        var settings = Checkpointer.Settings.standard
        settings.closingWait = .seconds(1)
        settings.beforeCheckpoint = {
            started.signal()
            usleep(3_000_000)
        }
        var elapsed = 0.0
        do {
            let store = try ListStore.open(at: path, checkpoints: settings)
            _ = try store.insertSection(title: "s")
            _ = try store.insertRows(Self.titles(Self.largeWrite, "r"), intoSection: 0)
            try #require(started.wait(timeout: .now() + 60) == .success)
            let start = Date()
            store.checkpointer?.close()
            elapsed = Date().timeIntervalSince(start)
        }
        #expect(elapsed >= 0.9 && elapsed < 1.8, "closing took \(elapsed) s")
        #expect(try ListStore.open(at: path).totalRowCount() == Self.largeWrite)
    }

    @Test func aReaderHoldingAReadTransactionIsNeverDisturbed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let store = try ListStore.open(at: path)
        _ = try store.insertSection(title: "s")
        _ = try store.insertRows(Self.titles(1_000, "old"), intoSection: 0)
        let reader = try Connection(path: path, mode: .readOnly)
        let checkpointsBefore = store.checkpointer?.finishedCount ?? 0
        try reader.readTransaction {
            #expect(try reader.scalarInt("SELECT count(*) FROM rows") == 1_000)
            for step in 0..<2 {
                _ = try store.insertRows(Self.titles(Self.largeWrite, "w\(step)"), intoSection: 0)
                #expect(try reader.scalarInt("SELECT count(*) FROM rows") == 1_000)
                #expect(try reader.scalarText("SELECT title FROM rows ORDER BY position DESC LIMIT 1")?.hasPrefix("old 999 ") == true)
            }
            // Background checkpoints ran while the reader held its state, and left it as it was.
            #expect(Self.eventually { (store.checkpointer?.finishedCount ?? 0) > checkpointsBefore })
            #expect(try reader.scalarInt("SELECT count(*) FROM rows") == 1_000)
            // Nothing past the reader's state was copied into the main file.
            #expect(try Self.rowsInMainFile(path) <= 1_000)
        }
        // The reader gone, the next checkpoint copies everything.
        let after = store.checkpointer?.finishedCount ?? 0
        _ = try store.insertRows(Self.titles(Self.largeWrite, "last"), intoSection: 0)
        #expect(Self.eventually { (store.checkpointer?.finishedCount ?? 0) > after })
        #expect(Self.eventually { (try? Self.rowsInMainFile(path)) == 151_000 })
        #expect(try store.totalRowCount() == 151_000)
    }
}

/// A new file is built in a temporary one, whose `-wal` is folded in (`TRUNCATE`) before it gets its
/// name: a background checkpoint of a large first write must not make that fail.
@Suite struct NewFileCheckpointTests {
    @Test func aNewFileWithALargeFirstWriteIsFinished() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite")
        let rows = CheckpointTests.titles(CheckpointTests.largeWrite, "r")
        try ListStore.creatingFile(at: path) { store in
            _ = try store.insertSection(title: "s")
            _ = try store.insertRows(rows, intoSection: 0)
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try CheckpointTests.rowsInMainFile(path) == CheckpointTests.largeWrite)
    }

    /// The same with a small first write, which no background checkpoint follows.
    @Test func aNewFileWithASmallFirstWriteIsFinished() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite")
        try ListStore.creatingFile(at: path) { store in
            _ = try store.insertSection(title: "s")
            _ = try store.insertRows(CheckpointTests.titles(10, "r"), intoSection: 0)
        }
        #expect(try CheckpointTests.rowsInMainFile(path) == 10)
    }
}
