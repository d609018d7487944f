import Dispatch
import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands
import Testing

/// What an app embedding the library relies on: re-entrant calls fail clearly instead of hanging or
/// crashing, async writes leave the caller's thread free, URLs and `IndexPath`s, `String` titles,
/// errors fit for an alert.
@Suite struct AppConveniencesTests {
    @Test func callsFromInsideTheStoresOwnClosuresThrowInsteadOfDeadlocking() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "A")
        try store.insertRows(["a", "b"], intoSection: 0)
        var thrown: [ListStoreError] = []
        try store.scan { _ in
            do { try store.insertRow("inside scan", intoSection: 0) } catch let error as ListStoreError { thrown.append(error) }
        }
        try store.write { _ in
            do { _ = try store.sectionCount() } catch let error as ListStoreError { thrown.append(error) }
        }
        try store.read { _ in
            do { try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)]) } catch let error as ListStoreError { thrown.append(error) }
        }
        #expect(!thrown.isEmpty && thrown.allSatisfy { $0 == .reentrantCall }, "\(thrown)")
        #expect(thrown.count == 5, "three scan callbacks, one write, one read")
        // Nothing was changed by the refused calls, and the store works normally afterwards.
        #expect(try store.snapshot().titles == [["a", "b"]])
        try store.insertRow("after", intoSection: 0)
        #expect(try store.rowCount(inSection: 0) == 3)
    }

    /// Holds another connection's write lock until released from any thread, and says when it was.
    final class LockHolder: @unchecked Sendable {
        let connection: Connection
        /// When ``release()`` released the lock; nil until then.
        let released = Locked<Date?>(nil)
        init(_ path: String) throws {
            connection = try Connection(path: path, mode: .readWrite)
            try connection.run("BEGIN IMMEDIATE")
        }
        func release() {
            try? connection.run("ROLLBACK")
            released.withLock { $0 = Date() }
        }
        /// Releases the lock `seconds` from now, on a thread of its own: Dispatch's global queue may have
        /// every thread blocked on a busy machine (writes waiting for this very lock among them).
        func release(after seconds: Double) {
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: seconds)
                self.release()
            }
        }
    }

    @MainActor @Test func anAsyncWriteWaitsForTheLockWithoutHoldingTheCallersThread() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("async.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        let holder = try LockHolder(path)
        holder.release(after: 0.3)
        var mainActorRanMeanwhile = false
        Task { @MainActor in mainActorRanMeanwhile = true }
        let changes = try await store.writeInBackground { tx in try tx.insertRow("written", intoSection: 0) }.changes
        #expect(mainActorRanMeanwhile, "the main actor was free while the write waited for the lock")
        #expect(changes.insertedRows.map(\.indexPath) == [ListIndexPath(section: 0, row: 0)])
        let count = try await store.readInBackground { try $0.totalRowCount() }
        #expect(count == 1)
    }

    @Test func urlsIndexPathsAndStringTitles() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("with space %20 and ü.sqlite")
        let store = try ListStore.open(at: url)
        let title: String = "a title in a variable"
        try store.insertSection(title: "S")
        try store.insertRow(title, intoSection: 0)
        try store.insertRows([title, "literal"], intoSection: 0)
        #expect(FileManager.default.fileExists(atPath: url.path))
        #expect(try ListStore.open(at: url, mode: .readOnly).totalRowCount() == 3)
        #expect(throws: ListStoreError.self) { try ListStore.open(at: URL(string: "https://example.com/x.sqlite")!) }

        let path = ListIndexPath(section: 2, row: 5)
        #expect(ListIndexPath(path.indexPath) == path)
        #expect(path.indexPath == IndexPath(indexes: [2, 5]))
        #expect(ListIndexPath(IndexPath(indexes: [1, 2, 3])) == nil)
    }

    @Test func errorsReadWellInAnAlert() throws {
        let store = try ListStore.inMemory()
        do {
            try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)])
            Issue.record("deleting from an empty store succeeded")
        } catch {
            #expect(error.localizedDescription == "section 0 does not exist: the store has 0 sections; read the sections again for the current indexes")
            #expect(!error.localizedDescription.contains("liststore"), "library messages do not give command-line advice")
        }
    }
}
