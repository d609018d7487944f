import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands
import TestSupport
import Testing

/// An observer of a list that is deleted — through this store or by another process — gets the change
/// set that deletes its sections, then its stream ends with ``ListStoreError/listDeleted(listID:)``: it
/// never goes on watching a list that no longer exists as if it were an empty one.
@Suite struct DeletedListObserverTests {
    enum Deleter: CaseIterable { case thisStore, anotherStore, theShell }

    @Test(arguments: Deleter.allCases)
    func theStreamOfADeletedListEndsWithListDeleted(by deleter: Deleter) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        try work.insertRows(["w0", "w1"], intoSection: 0)
        var updates = work.observe(pollInterval: .milliseconds(20)).makeAsyncIterator()
        guard case .initial(let first) = try #require(try await nextElement(&updates)) else {
            Issue.record("no initial state")
            return
        }
        #expect(first.sections.map(\.title) == ["W"])
        switch deleter {
        case .thisStore: try store.deleteList(named: "Work")
        case .anotherStore: try ListStore.open(at: path).deleteList(named: "Work")
        case .theShell: try Connection(path: path, mode: .readWrite).executeScript("PRAGMA foreign_keys = ON; DELETE FROM lists WHERE name = 'Work'")
        }
        var sawDeletion = false
        do {
            while let update = try await nextElement(&updates, timeout: .seconds(20)) {
                switch update {
                case .changes(let changes): sawDeletion = sawDeletion || changes.deletedSections.count == 1
                case .reset(let state): sawDeletion = sawDeletion || state.sections.isEmpty
                case .initial: Issue.record("a second initial state")
                }
            }
            Issue.record("the stream ended (or went quiet for 20 s) without an error")
        } catch let error as ListStoreError {
            guard case .listDeleted = error.reason else { throw error }
            #expect("\(error)".contains("deleted"), "\(error)")
        }
        #expect(sawDeletion, "the deletion of its sections came first")
        // The default list's observers go on.
        var defaultUpdates = store.observe(pollInterval: .milliseconds(20)).makeAsyncIterator()
        _ = try #require(try await nextElement(&defaultUpdates))
        try store.insertSection(title: "still here")
        guard case .changes(let changes) = try #require(try await nextElement(&defaultUpdates)) else {
            Issue.record("no change set")
            return
        }
        #expect(changes.insertedSections.count == 1)
    }
}
