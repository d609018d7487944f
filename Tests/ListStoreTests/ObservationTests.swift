import Foundation
import Testing
import SQLiteLayer
@testable import ListStore

/// Observers get every committed change once, in commit order: their own, another connection's,
/// and hand edits made with plain SQL.
@Suite struct ObservationTests {
    /// Collects `count` change sets from `stream`, failing after `timeout` (generous: other tests may keep
    /// the task pool busy for a while).
    static func collect(_ count: Int, from stream: AsyncStream<ChangeSet>, timeout: Duration = .seconds(60)) async throws -> [ChangeSet] {
        try await withThrowingTaskGroup(of: [ChangeSet]?.self) { group in
            group.addTask {
                var received: [ChangeSet] = []
                for await changes in stream {
                    received.append(changes)
                    if received.count == count { break }
                }
                return received
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return try #require(first, "timed out waiting for \(count) change sets")
        }
    }

    @Test func ownChangesArriveOnceInCommitOrder() async throws {
        let store = try ListStore.inMemory()
        let stream = store.changes(includingOtherConnections: false)
        var expected: [ChangeSet] = []
        expected.append(try store.insertSection(title: "A"))
        expected.append(try store.insertRows(["a", "b"], intoSection: 0))
        _ = try store.renameSection(at: 0, to: "A")  // no change: not delivered
        expected.append(try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)]))
        #expect(try await Self.collect(3, from: stream) == expected)
    }

    @Test func changesByAnotherConnectionAndByHandAreDiffedAndDelivered() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("observed.sqlite")
        let observed = try ListStore.open(at: path)
        try observed.insertSection(title: "Inbox")
        try observed.insertRows(["one", "two", "three"], intoSection: 0)
        let ids = try observed.snapshot().sections[0].rows.map(\.id)
        let stream = observed.changes(pollInterval: .milliseconds(20))

        let other = try ListStore.open(at: path)
        let fromOther = try other.moveRow(from: ListIndexPath(section: 0, row: 2), to: ListIndexPath(section: 0, row: 0))
        // Wait for that one before the next commit, so they are not merged into one comparison.
        let first = try await Self.collect(1, from: stream)
        #expect(first == [fromOther])

        let own = try observed.insertRow("four", intoSection: 0)
        do {
            let shell = try Connection(path: path, mode: .readWrite)
            try shell.executeScript("UPDATE rows SET title = 'TWO' WHERE id = \(ids[1].rawValue)")
        }
        let rest = try await Self.collect(2, from: stream)
        #expect(rest[0] == own)
        #expect(rest[1].updatedRows == [.init(indexPath: ListIndexPath(section: 0, row: 2), row: ListRow(id: ids[1], title: "TWO"))])
        #expect(rest[1].insertedRows.isEmpty && rest[1].deletedRows.isEmpty && rest[1].movedRows.isEmpty)
    }

    @Test func anOwnWriteFirstReportsWhatOthersCommittedBeforeIt() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("interleaved.sqlite")
        let observed = try ListStore.open(at: path)
        try observed.insertSection(title: "S")
        let stream = observed.changes(pollInterval: .seconds(3600))  // no polling: only the catch-up in the write
        let other = try ListStore.open(at: path)
        let theirs = try other.insertRow("theirs", intoSection: 0)
        let ours = try observed.insertRow("ours", intoSection: 0)
        #expect(try await Self.collect(2, from: stream) == [theirs, ours])
    }

    @Test func droppingTheStreamStopsObservation() async throws {
        let store = try ListStore.inMemory()
        do {
            let stream = store.changes()
            _ = stream
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!store.broadcaster.watchesOtherConnections)
    }
}

