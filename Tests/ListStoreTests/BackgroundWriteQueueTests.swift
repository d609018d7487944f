import Dispatch
import Foundation
import Testing

@testable import ListStore

/// Background writes queue on one serial queue per store, shared by its list handles: while another
/// connection holds the write lock, many pending writes hold one thread, and run in the order they were
/// made. Background undo and redo return what the blocking forms return.
@MainActor @Suite struct BackgroundWriteQueueTests {
    /// The queue's promise at its root: however many are queued, one work item runs (holds a thread) at
    /// a time, in the order submitted. (Counting the process's threads cannot show it on Linux, where
    /// Dispatch's global queue adds threads for blocked ones only slowly: 6 became 10 in 300 ms, not 50.)
    @Test func oneWorkItemRunsAtATimeInSubmissionOrder() async throws {
        let queue = BackgroundWriteQueue()
        let state = Locked((running: 0, most: 0, order: [Int]()))
        var items: [Task<Int, any Error>] = []
        for index in 0..<50 {
            items.append(
                Task {
                    try await queue.run {
                        state.withLock {
                            $0.running += 1
                            $0.most = max($0.most, $0.running)
                            $0.order.append(index)
                        }
                        Thread.sleep(forTimeInterval: 0.002)  // blocked, as a write waiting for the lock is
                        state.withLock { $0.running -= 1 }
                        return index
                    }
                })
        }
        for (index, item) in items.enumerated() { #expect(try await item.value == index) }
        #expect(state.withLock { $0.most } == 1)
        #expect(state.withLock { $0.order } == Array(0..<50))
    }

    @Test func fiftyWritesMadeWhileTheLockIsHeldElsewhereRunInOrder() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("queue.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "default")
        let other = try store.addList(named: "other")
        try other.insertSection(title: "other")
        let ran = Locked<[(index: Int, at: Date)]>([])

        let holder = try AppConveniencesTests.LockHolder(path)
        var writes: [Task<ChangeSet, any Error>] = []
        for index in 0..<50 {
            // Every third through the list handle: the same queue, in the same order.
            let handle = index % 3 == 0 ? other : store
            writes.append(
                Task {
                    try await handle.writeInBackground { tx in
                        ran.withLock { $0.append((index, Date())) }
                        try tx.insertRow("\(index)", intoSection: 0)
                    }.changes
                })
        }
        // The lock is released on a thread of its own, whatever the main actor (which queues the writes, in
        // order) and Dispatch's threads are busy with: a busy machine cannot keep it past the busy timeout.
        holder.release(after: 0.3)
        for write in writes { _ = try await write.value }

        let released = try #require(holder.released.withLock { $0 })
        #expect(ran.withLock { $0.map(\.index) } == Array(0..<50))
        #expect(ran.withLock { $0.allSatisfy { $0.at >= released } }, "no write ran while the lock was held")
        let titles = { (list: ListStore) in try list.snapshot().sections[0].rows.map { Int($0.title) ?? -1 } }
        #expect(try titles(other) == Array(stride(from: 0, to: 50, by: 3)))
        #expect(try titles(store) == (0..<50).filter { $0 % 3 != 0 })
    }

    @Test func backgroundUndoAndRedoReturnWhatTheBlockingFormsReturn() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("undo.sqlite")
        let store = try ListStore.open(at: path, author: "app")
        let cli = try ListStore.open(at: path, author: "cli")
        try store.insertSection(title: "A")
        try store.write(actionName: "Add") { tx in try tx.insertRows(["a", "b"], intoSection: 0) }

        let undone = try await store.undoInBackground()
        #expect(undone.deletedRows.count == 2 && undone.version != .unversioned)
        let redone = try await store.redoInBackground()
        #expect(redone.insertedRows.map(\.row.title) == ["a", "b"])
        // The same on the blocking forms: the same change, at its own version.
        var undoneAgain = try store.undo()
        var redoneAgain = try store.redo()
        undoneAgain.version = undone.version
        redoneAgain.version = redone.version
        #expect(undoneAgain == undone && redoneAgain == redone)

        try cli.insertRow("by cli", intoSection: 0)
        let cliUndone = try await store.undoInBackground(by: "cli")
        #expect(cliUndone.deletedRows.count == 1)
        let cliRedone = try await store.redoInBackground(by: "cli")
        #expect(cliRedone.insertedRows.map(\.row.title) == ["by cli"])
        await #expect(throws: ListStoreError.nothingToRedo(author: "app")) { try await store.redoInBackground() }
    }
}
