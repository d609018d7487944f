import ListStore
import StoreShorthands
import Testing

/// In an `async` function both the blocking calls and the background ones compile, each as written:
/// the async variants have names of their own, so Swift's preference for an `async` overload never
/// turns `try store.write { … }` into a call that needs `await` (the documents' examples work in either).
/// This file is the test: on code where the async variants overloaded the same names it does not compile.
@Suite struct SyncAndAsyncNamesTests {
    @Test func bothFormsCompileAndRunInAnAsyncFunction() async throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        let changes = try store.write { tx in try tx.insertRow("sync", intoSection: 0) }.changes  // no await: runs here
        let (count, _) = try store.write { tx in try tx.totalRowCount() }
        let synchronous = try store.read { try $0.totalRowCount() }
        let background = try await store.writeInBackground { tx in try tx.insertRow("async", intoSection: 0) }.changes
        let (total, _) = try await store.writeInBackground { tx in try tx.totalRowCount() }
        let read = try await store.readInBackground { try $0.snapshot() }
        #expect(changes.insertedRows.map(\.row.title) == ["sync"] && count == 1 && synchronous == 1)
        #expect(background.insertedRows.map(\.row.title) == ["async"] && total == 2)
        #expect(read.sections[0].rows.map(\.title) == ["sync", "async"])
        // Undo and redo too: the blocking forms run here, the background ones off this thread.
        let undone = try store.undo()
        let redone = try store.redo()
        let undoneInBackground = try await store.undoInBackground()
        let redoneInBackground = try await store.redoInBackground()
        try store.undo(by: store.author)
        try await store.redoInBackground(by: store.author)
        try await store.undoInBackground(by: store.author)
        try store.redo(by: store.author)
        #expect(undone.deletedRows.count == 1 && redone.insertedRows.map(\.row.title) == ["async"])
        #expect(undoneInBackground.deletedRows == undone.deletedRows && redoneInBackground.insertedRows.map(\.row.title) == ["async"])
    }

    @MainActor @Test func theSynchronousFormsCompileOnTheMainActorToo() async throws {
        let store = try ListStore.inMemory()
        try store.write { tx in try tx.insertSection(title: "main") }
        #expect(try store.read { try $0.sections().map(\.title) } == ["main"])
        try await store.writeInBackground { tx in try tx.renameSection(at: 0, to: "renamed") }
        #expect(try store.sections().map(\.title) == ["renamed"])
    }
}
