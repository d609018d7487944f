import Dispatch
import Foundation
import Testing

@testable import ListStore

/// `registerUndo(with:onFailure:)` with a stand-in for `UndoManager` (``StandInUndoManager``): the
/// menu's Undo and Redo take back and re-apply the store's edits in the background, named as in the
/// file's history, a refusal reaches `onFailure` and changes nothing, and the main actor never waits for
/// another connection's write lock.
@MainActor @Suite struct UndoRegistrationTests {
    /// A store on a fresh file, opened as "app", with a section of rows "a0"…"a3".
    struct Fixture {
        let folder: TemporaryDirectory
        let path: String
        let store: ListStore
        init() throws {
            folder = try TemporaryDirectory()
            path = folder.path("registration.sqlite")
            store = try ListStore.open(at: path, author: "app")
            try store.write(actionName: "Fill") { tx in try tx.insertRows(["a0", "a1", "a2", "a3"], intoSection: try tx.insertSection(title: "A")) }
        }
        func titles() throws -> [String] { try store.snapshot().sections.flatMap { $0.rows.map(\.title) } }
    }

    /// Waits, without holding the main actor, until `condition` holds; fails after `seconds`.
    static func waitUntil(seconds: Double = 10, _ what: String, _ condition: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func undoAndRedoFromTheMenuTakeBackAndReapplyTheLastEditUnderItsHistoryName() async throws {
        let fixture = try Fixture()
        let store = fixture.store
        let manager = StandInUndoManager()
        try store.write(actionName: "Delete a1") { tx in try tx.deleteRows(at: [ListIndexPath(section: 0, row: 1)]) }
        var failures: [any Error] = []
        store.registerUndo(with: manager) { failures.append($0) }
        #expect(manager.undoActionName == "Delete a1" && !manager.canRedo)
        #expect(try store.nextUndo()?.actionName == manager.undoActionName)

        manager.undo()
        #expect(manager.redoActionName == "Delete a1" && !manager.canUndo, "the redo is on the redo stack at once")
        try await Self.waitUntil("undone") { try fixture.titles() == ["a0", "a1", "a2", "a3"] }
        #expect(try store.nextUndo(redo: true)?.actionName == manager.redoActionName)

        manager.redo()
        #expect(manager.undoActionName == "Delete a1" && !manager.canRedo)
        try await Self.waitUntil("redone") { try fixture.titles() == ["a0", "a2", "a3"] }
        #expect(try store.nextUndo()?.actionName == manager.undoActionName)

        manager.undo()
        try await Self.waitUntil("undone again") { try fixture.titles() == ["a0", "a1", "a2", "a3"] }
        let kinds = try store.history(limit: 3).map { "\($0.kind.rawValue) \($0.actionName ?? "-")" }
        #expect(kinds == ["undo Delete a1", "redo Delete a1", "undo Delete a1"])
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func choicesMadeBeforeTheLastFinishedRunInOrder() async throws {
        let fixture = try Fixture()
        let manager = StandInUndoManager()
        try fixture.store.write(actionName: "Rename") { tx in try tx.updateRow(at: ListIndexPath(section: 0, row: 0), title: "renamed") }
        fixture.store.registerUndo(with: manager)
        // Undo, Redo, Undo, without waiting: each runs after the one before.
        manager.undo()
        manager.redo()
        manager.undo()
        #expect(manager.redoActionName == "Rename" && !manager.canUndo)
        try await Self.waitUntil("the last undo ran") { try fixture.store.history(limit: 3).map(\.kind) == [.undo, .redo, .undo] }
        #expect(try fixture.titles() == ["a0", "a1", "a2", "a3"])
    }

    @Test func aRefusedUndoReachesOnFailureAndChangesNothing() async throws {
        let fixture = try Fixture()
        let store = fixture.store
        let other = try ListStore.open(at: fixture.path, author: "other")
        let manager = StandInUndoManager()
        var failures: [any Error] = []
        try store.write(actionName: "Rename a0") { tx in try tx.updateRow(at: ListIndexPath(section: 0, row: 0), title: "mine") }
        store.registerUndo(with: manager) { failures.append($0) }
        try other.updateRow(at: ListIndexPath(section: 0, row: 0), title: "theirs")
        let before = try store.snapshot()
        let historyBefore = try store.history(limit: 5)

        manager.undo()
        try await Self.waitUntil("the refusal reached onFailure") { !failures.isEmpty }
        #expect(failures.count == 1)
        guard case .undoRefused(let action, _, false, let reason)? = (failures.first as? ListStoreError)?.reason else {
            Issue.record("not a refused undo: \(failures)")
            return
        }
        #expect(action == "Rename a0" && reason.contains("was changed since"), "\(reason)")
        #expect(try store.snapshot() == before)
        #expect(try store.history(limit: 5) == historyBefore)
        #expect(!manager.canUndo && !manager.canRedo, "no Redo for an undo that did not happen")
    }

    @Test func nothingToUndoRegistersNothing() throws {
        let folder = try TemporaryDirectory()
        let store = try ListStore.open(at: folder.path("none.sqlite"), author: "app", historyLimit: 0)
        try store.insertSection(title: "A")
        let manager = StandInUndoManager()
        store.registerUndo(with: manager) { Issue.record("\($0)") }
        #expect(!manager.canUndo)
    }

    /// Choosing Undo returns at once while another connection holds the write lock: the undo waits for
    /// the lock off the main actor, and is done once the lock is released (on a thread of its own, so
    /// that a busy main actor cannot keep it past the busy timeout).
    @Test func theMainActorKeepsRunningWhileAnotherConnectionHoldsTheWriteLock() async throws {
        let fixture = try Fixture()
        let manager = StandInUndoManager()
        try fixture.store.write(actionName: "Delete a0") { tx in try tx.deleteRows(at: [ListIndexPath(section: 0, row: 0)]) }
        fixture.store.registerUndo(with: manager) { Issue.record("\($0)") }

        let holder = try AppConveniencesTests.LockHolder(fixture.path)
        holder.release(after: 1)
        let chosen = Date()
        manager.undo()
        let undoCall = Date().timeIntervalSince(chosen)
        try await Self.waitUntil("undone") { try fixture.titles() == ["a0", "a1", "a2", "a3"] }
        _ = try #require(holder.released.withLock { $0 }, "undone before the lock was released")
        #expect(undoCall < 0.5, "choosing Undo returned at once, not when the lock was released (\(undoCall) s)")
    }
}
