import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

/// Reads never wait for a writer: while this store's async write waits for another process's write lock
/// (the `sqlite3` shell holding `BEGIN IMMEDIATE` for 3 s), synchronous reads on another thread — the
/// main thread's `cellForRowAt`, a selection's toggle — go on without waiting for it, and `observe()`
/// returns at once and delivers the state before the lock is released. A read that waited would take the rest
/// of the hold, seconds: the bound is a third of the hold, so that a loaded machine's scheduling never fails
/// it; the longest read is printed (a few milliseconds), and speed is `liststore-bench`'s to measure.
@Suite(.serialized) struct ReaderStallTests {
    static let holdSeconds = 3
    /// Longer than any read that did not wait, however loaded the machine; shorter than any that waited.
    static let waitedMilliseconds = Double(holdSeconds) * 1_000 / 3

    /// A store of one section of `rows` rows.
    static func makeStore(_ directory: TemporaryDirectory, rows: Int = 200) throws -> (path: String, store: ListStore) {
        let path = directory.path("stall.sqlite")
        let store = try ListStore.open(at: path, busyTimeout: 10_000)
        try store.insertSection(title: "S")
        try store.insertRows((0..<rows).map { "row \($0)" }, intoSection: 0)
        return (path, store)
    }

    /// Every synchronous read an app makes on its main thread, in turn, until `until()` is true; the longest
    /// one, in milliseconds, and how many ran.
    static func longestRead(_ store: ListStore, rowID: RowID, until: @escaping @Sendable () -> Bool) -> (longest: Double, reads: Int) {
        let result = Locked((longest: 0.0, reads: 0))
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let clock = ContinuousClock()
            var selection = ListSelection()
            var longest = Duration.zero
            var reads = 0
            while !until() {
                let started = clock.now
                do {
                    switch reads % 6 {
                    case 0: _ = try store.sectionCount()
                    case 1: _ = try store.rows(inSection: 0, range: 0..<20)
                    case 2: _ = try store.row(at: ListIndexPath(section: 0, row: 3))
                    case 3: _ = try store.indexPaths(of: [rowID])
                    case 4: selection.toggle(try store.row(at: ListIndexPath(section: 0, row: 1)).id)
                    default: _ = try store.read { try $0.totalRowCount() }
                    }
                } catch {
                    Issue.record("a read failed: \(error)")
                }
                longest = max(longest, clock.now - started)
                reads += 1
                // A pause between reads, as a UI's are: a thread that never sleeps is preempted by the
                // scheduler mid-read on a busy machine, which would be measured as a stall.
                usleep(1_000)
            }
            let (seconds, attoseconds) = longest.components
            result.withLock { $0 = (Double(seconds) * 1_000 + Double(attoseconds) / 1e15, reads) }
            done.signal()
        }
        thread.start()
        _ = done.wait(timeout: .now() + 60)
        return result.withLock { $0 }
    }

    /// Runs `body` while the `sqlite3` shell holds `BEGIN IMMEDIATE` for ``holdSeconds`` and an async write
    /// of `store` waits for it (`body` is told whether the write finished, and when the lock was taken);
    /// then checks that the write waited and went through.
    static func whileAWriteWaits(
        _ directory: TemporaryDirectory, _ path: String, _ store: ListStore,
        _ body: (_ writeFinished: @escaping @Sendable () -> Bool, _ lockedAt: ContinuousClock.Instant) async throws -> Void
    ) async throws -> ChangeSet {
        let marker = directory.path("locked")
        let holder = try BackgroundProcess(
            "/usr/bin/sqlite3",
            [
                path, "BEGIN IMMEDIATE;", "UPDATE rows SET title = 'held' WHERE id = (SELECT min(id) FROM rows);", ".shell touch '\(marker)'", ".shell sleep \(Self.holdSeconds)",
                "COMMIT;",
            ],
            in: directory.url, name: "holder")
        for _ in 0..<500 where !FileManager.default.fileExists(atPath: marker) { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: marker), "the sqlite3 shell did not take its lock")
        let lockedAt = ContinuousClock.now
        // The write runs on a thread of its own, as `writeInBackground` runs it on one of Dispatch's: on a
        // loaded machine running the whole suite, a task could start after the shell let go of its lock.
        let writeFinished = Locked(false)
        let written = Locked<Result<ChangeSet, any Error>?>(nil)
        let writer = Thread {
            let result = Result { try store.write { try $0.insertRow("after the lock", intoSection: 0) }.changes }
            written.withLock { $0 = result }
            writeFinished.withLock { $0 = true }
        }
        writer.start()
        usleep(100_000)  // the write is waiting for the shell's lock by now
        try #require(!writeFinished.withLock { $0 }, "the write did not wait for the shell's lock")
        try await body({ writeFinished.withLock { $0 } }, lockedAt)
        for _ in 0..<2_000 where !writeFinished.withLock({ $0 }) { usleep(10_000) }
        let changes = try #require(written.withLock { $0 }, "the write did not finish").get()
        #expect(ContinuousClock.now - lockedAt >= .seconds(Self.holdSeconds - 1), "the write did not wait for the lock")
        #expect(changes.insertedRows.count == 1)
        #expect(holder.waitForExit(timeout: 10) == 0)
        return changes
    }

    @Test func readsNeverWaitWhileAnAsyncWriteWaitsForAnotherProcesssLock() async throws {
        let directory = try TemporaryDirectory()
        let (path, store) = try Self.makeStore(directory)
        let rowID = try store.row(at: ListIndexPath(section: 0, row: 5)).id
        _ = try await Self.whileAWriteWaits(directory, path, store) { writeFinished, _ in
            let (longest, reads) = Self.longestRead(store, rowID: rowID, until: writeFinished)
            print("longest synchronous read while an async write waited for another process's lock: \(longest) ms over \(reads) reads")
            #expect(reads > 50, "only \(reads) reads while the write waited")
            #expect(longest < Self.waitedMilliseconds, "the longest synchronous read while the write waited took \(longest) ms (\(reads) reads)")
        }
    }

    @Test func observeReturnsAtOnceAndDeliversTheStateWhileAWriteWaits() async throws {
        let directory = try TemporaryDirectory()
        let (path, store) = try Self.makeStore(directory)
        let clock = ContinuousClock()
        var updates: ListObservation<ListUpdate>.AsyncIterator?
        let changes = try await Self.whileAWriteWaits(directory, path, store) { _, _ in
            let observeStarted = clock.now
            var iterator = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
            let observeReturned = clock.now - observeStarted
            #expect(observeReturned < .milliseconds(Int(Self.waitedMilliseconds)), "observe() took \(observeReturned)")
            guard case .initial(let initial)? = try await nextElement(&iterator, timeout: .seconds(10)) else {
                Issue.record("no initial state")
                return
            }
            // Read before the shell's commit (its title change is not in it), so it did not wait for the
            // lock: a check that does not depend on when this task is scheduled again.
            #expect(initial.rowCount == 200)
            #expect(initial.sections.first?.rows.first?.title == "row 0", "the initial state waited for the shell's commit")
            updates = iterator
        }
        // The observer gets the shell's edit (delivered before the write, which committed after it), then the
        // write, once each.
        guard var updates else { return }
        guard case .changes(let shells)? = try await nextElement(&updates, timeout: .seconds(10)) else {
            Issue.record("no change set for the shell's edit")
            return
        }
        #expect(shells.updatedRows.map(\.row.title) == ["held"])
        #expect(try await nextElement(&updates, timeout: .seconds(10)) == .changes(changes))
    }
}
