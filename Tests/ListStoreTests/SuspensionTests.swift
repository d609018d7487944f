import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// A suspended store holds nothing on its file — no descriptor, no lock — and refuses every call at once,
/// leaving the file as it was; a call under way when it is suspended is interrupted, a write rolled back,
/// so suspending never waits for a long write or for another process's lock. Resumed, it recognises
/// its file again as opening does, and its observers get what others committed meanwhile, once and in
/// order: what iOS asks of an app whose store is in an App Group container (`0xdead10cc`).
@Suite struct SuspensionTests {
    /// Where the process's descriptors are listed (Linux); the descriptor checks need it.
    static let descriptorsListed = FileManager.default.fileExists(atPath: "/proc/self/fd")

    /// What this process's open descriptors name among `path`, its `-wal` and its `-shm` (a file deleted
    /// or renamed over while open is named with " (deleted)" after it).
    static func descriptors(on path: String) -> [String] {
        let file = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let names = [file, file + "-wal", file + "-shm"]
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { target in names.contains { target == $0 || target == $0 + " (deleted)" } }
    }

    /// Takes an EXCLUSIVE lock on the file from another connection, without waiting (busy timeout 0):
    /// throws `SQLITE_BUSY` while any connection holds a lock on it. The connection closes on return.
    static func takeExclusiveLock(_ path: String) throws {
        let other = try Connection(path: path, mode: .readWrite)
        other.setBusyTimeout(milliseconds: 0)
        try other.executeScript("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT")
    }

    /// Makes the store open a read connection besides its writer: a read from another thread while the
    /// writer connection is held by a write.
    static func openReadConnection(_ store: ListStore) throws {
        let done = DispatchSemaphore(value: 0)
        try store.write { tx in
            DispatchQueue.global().async {
                _ = try? store.sectionCount()
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 30) == .success)
            try tx.insertSection(title: "read meanwhile")
        }
    }

    /// A condition that did not come true within 30 s.
    struct NeverHappened: Error {}

    /// Waits (at most 30 s) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw NeverHappened() }
            usleep(1_000)
        }
    }

    @Test(.enabled(if: descriptorsListed)) func aSuspendedStoreHoldsNoDescriptorAndNoLockOnItsFiles() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("held.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        var updates = store.observe(pollInterval: .milliseconds(20)).makeAsyncIterator()
        _ = try await ObservationTests.next(&updates)
        try Self.openReadConnection(store)
        _ = try await ObservationTests.next(&updates)
        // Open, the store holds the files (the writer and a read connection each the database) and a lock
        // another connection's EXCLUSIVE lock waits for; it polls.
        #expect(Self.descriptors(on: path).filter { $0.hasSuffix(".sqlite") }.count >= 2)
        #expect(throws: SQLiteError.self) { try Self.takeExclusiveLock(path) }
        #expect(store.hub.isPolling)

        store.suspend()
        #expect(store.isSuspended && !store.hub.isPolling)
        #expect(Self.descriptors(on: path) == [])
        try Self.takeExclusiveLock(path)
        // It had committed: closing copied the -wal into the file and both companion files went.
        #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"))

        try store.resume()
        #expect(!store.isSuspended && store.hub.isPolling)
        #expect(try store.sections().map(\.title) == ["A", "read meanwhile"])
        let own = try store.insertSection(title: "B").changes
        #expect(try ObservationTests.changes(try await ObservationTests.next(&updates)) == own)
    }

    @Test func everyCallIsRefusedAtOnceAndTheFileIsLeftAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("refused.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        try store.insertRows(["a", "b"], intoSection: 0)
        store.suspend()
        store.suspend()  // twice: nothing more
        let bytes = try #require(fileBytes(path))
        let suspended = ListStoreError.suspended(path: path)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: suspended) { try store.snapshot() }
        #expect(throws: suspended) { try store.sectionCount() }
        #expect(throws: suspended) { try store.insertSection(title: "B") }
        #expect(throws: suspended) { try store.write { try $0.insertRow("c", intoSection: 0) } }
        #expect(throws: suspended) { try store.list(named: ListStore.defaultListName) }
        #expect(throws: suspended) { try store.checkInvariants() }
        await #expect(throws: suspended) { try await store.readInBackground { try $0.snapshot() } }
        await #expect(throws: suspended) { try await store.writeInBackground { try $0.insertRow("d", intoSection: 0) } }
        await #expect(throws: suspended) { try await store.undoInBackground() }
        #expect(clock.now - start < .seconds(5), "refusals wait for nothing")
        // An observation started while suspended ends with the same error.
        var started = store.observe().makeAsyncIterator()
        await #expect(throws: suspended) { _ = try await nextElement(&started) }
        #expect(fileBytes(path) == bytes)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))

        let message = suspended.description
        #expect(message.contains("\(path)") && message.contains("is suspended (the app is in the background)"))
        #expect(message.contains("call resume() first") && !message.replacingOccurrences(of: path, with: "").contains("liststore"), "library words, no command")

        try store.resume()
        try store.resume()  // not suspended: nothing
        #expect(try store.snapshot().titles == [["a", "b"]])
    }

    @Test func aWriteUnderWayIsInterruptedRolledBackAndCallsAreRefusedMeanwhile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("inflight.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let written = DispatchSemaphore(value: 0)
        let suspended = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<ChangeSet, any Error>?>(nil)
        DispatchQueue.global().async {
            let result = Result {
                try store.write { tx in
                    try tx.insertRow("before", intoSection: 0)
                    entered.signal()
                    _ = proceed.wait(timeout: .now() + 30)
                    try tx.insertRow("in flight", intoSection: 0)
                }.changes
            }
            outcome.withLock { $0 = result }
            written.signal()
        }
        try #require(entered.wait(timeout: .now() + 30) == .success)
        DispatchQueue.global().async {
            store.suspend()
            suspended.signal()
        }
        try Self.waitUntil { store.isSuspended }
        // Suspending: new calls are refused at once; the write's own code runs on (nothing can stop it),
        // and its next statement fails.
        #expect(throws: ListStoreError.suspended(path: path)) { try store.sectionCount() }
        proceed.signal()
        try #require(written.wait(timeout: .now() + 30) == .success)
        try #require(suspended.wait(timeout: .now() + 30) == .success)
        #expect(throws: ListStoreError.suspended(path: path)) { try outcome.withLock { $0 }?.get() }
        if Self.descriptorsListed { #expect(Self.descriptors(on: path) == []) }

        try store.resume()
        #expect(try store.snapshot().titles == [[]], "rolled back: neither row was written")
        try store.insertRow("after", intoSection: 0)
        #expect(try store.snapshot().titles == [["after"]])
    }

    /// Runs `body` on a thread of its own: under the whole suite's load, Dispatch's shared threads may all
    /// be blocked in other tests for longer than these tests wait.
    static func onThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) {
        Thread(block: body).start()
    }

    /// Suspends `store` on another thread, and fails unless that returns within 30 s.
    static func suspendWithin30Seconds(_ store: ListStore) throws {
        let suspended = DispatchSemaphore(value: 0)
        Self.onThreadOfItsOwn {
            store.suspend()
            suspended.signal()
        }
        try #require(suspended.wait(timeout: .now() + 30) == .success, "suspend() waited for the call under way")
    }

    /// A write that would run on (statement after statement, as a long import does) ends at its next
    /// statement: without the interruption this test would wait for it forever.
    @Test func aLongWriteIsInterruptedNotWaitedFor() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("long.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        let running = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<(any Error)?>(nil)
        Self.onThreadOfItsOwn {
            do {
                try store.write { tx in
                    var count = 0
                    let giveUp = Date() + 60  // bounded, should the interruption fail
                    while Date() < giveUp {
                        try tx.insertRow("row \(count)", intoSection: 0)
                        count += 1
                        if count == 100 { running.signal() }
                    }
                }
            } catch { outcome.withLock { $0 = error } }
            ended.signal()
        }
        try #require(running.wait(timeout: .now() + 30) == .success)
        try Self.suspendWithin30Seconds(store)
        try #require(ended.wait(timeout: .now() + 30) == .success)
        #expect(outcome.withLock { $0 } as? ListStoreError == ListStoreError.suspended(path: path))
        try store.resume()
        #expect(try store.rowCount(inSection: 0) == 0)
    }

    /// A write waiting for another process's lock (up to its busy timeout, a minute here) stops waiting.
    @Test func aWriteWaitingForAnotherProcessesLockIsInterrupted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let store = try ListStore.open(at: path, busyTimeout: 60_000)
        try store.insertSection(title: "A")
        let other = try Connection(path: path, mode: .readWrite)
        try other.run("BEGIN IMMEDIATE")
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<(any Error)?>(nil)
        Self.onThreadOfItsOwn {
            do { try store.insertRow("waits", intoSection: 0) } catch { outcome.withLock { $0 = error } }
            ended.signal()
        }
        #expect(ended.wait(timeout: .now() + 0.3) == .timedOut, "the write waits for the lock")
        try Self.suspendWithin30Seconds(store)
        try #require(ended.wait(timeout: .now() + 30) == .success, "suspend() ended the wait, long before the busy timeout")
        #expect(outcome.withLock { $0 } as? ListStoreError == ListStoreError.suspended(path: path))
        try other.run("ROLLBACK")
        try store.resume()
        #expect(try store.rowCount(inSection: 0) == 0)
    }

    /// A read that would run on ends at its next statement too.
    @Test func aLongReadIsInterrupted() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("read.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        let running = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let outcome = Locked<(any Error)?>(nil)
        Self.onThreadOfItsOwn {
            do {
                try store.read { reader in
                    var count = 0
                    let giveUp = Date() + 60  // bounded, should the interruption fail
                    while Date() < giveUp {
                        _ = try reader.sectionCount()
                        count += 1
                        if count == 100 { running.signal() }
                    }
                }
            } catch { outcome.withLock { $0 = error } }
            ended.signal()
        }
        try #require(running.wait(timeout: .now() + 30) == .success)
        try Self.suspendWithin30Seconds(store)
        try #require(ended.wait(timeout: .now() + 30) == .success)
        #expect(outcome.withLock { $0 } as? ListStoreError == ListStoreError.suspended(path: path))
        try store.resume()
        #expect(try store.sectionCount() == 1)
    }

    @Test func observersGetWhatOthersCommittedWhileSuspendedOnceAndInOrder() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("catchup.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        try store.insertRows(["a", "b", "c"], intoSection: 0)
        // Polling only at once on resuming (its interval is an hour), and an observer that never polls.
        var polling = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        var quiet = store.observe(includingOtherConnections: false).makeAsyncIterator()
        guard case .initial(var mirror) = try await ObservationTests.next(&polling), case .initial(var quietMirror) = try await ObservationTests.next(&quiet)
        else {
            Issue.record("no initial state first")
            return
        }
        // An own write first: the observers' position notes the writer connection's data_version.
        let own = try store.insertRow("own", intoSection: 0).changes
        #expect(try ObservationTests.changes(try await ObservationTests.next(&polling)) == own)
        #expect(try ObservationTests.changes(try await ObservationTests.next(&quiet)) == own)
        try mirror.apply(own)
        try quietMirror.apply(own)

        store.suspend()
        let other = try ListStore.open(at: path)
        _ = try other.insertRow("while suspended", intoSection: 0)
        _ = try other.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: 4))
        _ = try other.renameSection(at: 0, to: "Renamed")
        let expected = try other.snapshot()
        try store.resume()

        // The poll at once on resuming delivers all three (as one change set or several), each once.
        for _ in 0..<3 where mirror != expected {
            let changes = try ObservationTests.changes(try await ObservationTests.next(&polling))
            try mirror.apply(changes)
            try quietMirror.apply(try ObservationTests.changes(try await ObservationTests.next(&quiet)))
        }
        #expect(mirror == expected && quietMirror == expected)
        // Nothing given twice: the next updates are exactly the next commits, the other's then the store's.
        let theirs = try other.insertRow("after", intoSection: 0).changes
        let ours = try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)])
        for updates in [theirs, ours] {
            #expect(try ObservationTests.changes(try await ObservationTests.next(&polling)) == updates)
            #expect(try ObservationTests.changes(try await ObservationTests.next(&quiet)) == updates)
        }
    }

    @Test func aResynchronizationAskedForWhileSuspendedArrivesOnResuming() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("resync.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        let observation = store.observe(pollInterval: .seconds(3600))
        var updates = observation.makeAsyncIterator()
        _ = try await ObservationTests.next(&updates)
        store.suspend()
        observation.resynchronize()
        try store.resume()
        guard case .reset(let state) = try await ObservationTests.next(&updates) else {
            Issue.record("no fresh state after resuming")
            return
        }
        #expect(state == (try store.snapshot()))
    }

    @Test func listHandlesShareTheSuspension() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("handles.sqlite")
        let store = try ListStore.open(at: path)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        work.suspend()
        #expect(store.isSuspended && work.isSuspended)
        #expect(throws: ListStoreError.suspended(path: path)) { try store.sectionCount() }
        #expect(throws: ListStoreError.suspended(path: path)) { try work.sectionCount() }
        if Self.descriptorsListed { #expect(Self.descriptors(on: path) == []) }
        try store.resume()
        #expect(!work.isSuspended)
        #expect(try work.sections().map(\.title) == ["W"])
        #expect(try store.sectionCount() == 0)
    }

    @Test func aFileReplacedWhileSuspendedIsRefusedAndLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("replaced.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "Ours")
        store.suspend()
        // Another application's database is put at the path; the store's file is kept elsewhere.
        let kept = directory.path("kept.sqlite")
        let foreign = directory.path("foreign.sqlite")
        try Connection(path: foreign, mode: .readWriteCreate).executeScript(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('theirs')")
        #expect(rename(path, kept) == 0 && rename(foreign, path) == 0)
        let bytes = try #require(fileBytes(path))

        #expect {
            try store.resume()
        } throws: { error in
            guard case .notAListStore(path, _)? = (error as? ListStoreError)?.reason else { return false }
            return true
        }
        #expect(store.isSuspended)
        #expect {
            try store.insertSection(title: "written?")
        } throws: { error in
            guard case .notAListStore? = (error as? ListStoreError)?.reason else { return false }
            return true
        }
        #expect(fileBytes(path) == bytes)
        for suffix in ["-wal", "-shm", "-journal"] { #expect(!FileManager.default.fileExists(atPath: path + suffix)) }
        if Self.descriptorsListed { #expect(Self.descriptors(on: path) == []) }

        // Nothing at the path: refused too, and no file is created there.
        #expect(rename(path, foreign) == 0)
        #expect(throws: ListStoreError.fileReplaced(path: path, reason: "it was deleted while the store was suspended")) { try store.resume() }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(fileBytes(foreign) == bytes)

        // The store's own file back: resuming succeeds.
        #expect(rename(kept, path) == 0)
        try store.resume()
        #expect(try store.sections().map(\.title) == ["Ours"])
    }

    @Test func suspendDoesNothingInMemoryOrFromInsideTheStoresOwnClosure() throws {
        let memory = try ListStore.inMemory()
        memory.suspend()
        #expect(!memory.isSuspended)
        try memory.insertSection(title: "still here")
        #expect(try memory.sectionCount() == 1)

        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("inside.sqlite"))
        try store.write { tx in
            store.suspend()  // its closure holds the writer connection: nothing happens
            try tx.insertSection(title: "written")
        }
        #expect(!store.isSuspended)
        #expect(try store.sectionCount() == 1)
    }
}
