import Foundation
import Testing

@testable import ListStore

@Suite struct ConcurrencyTests {
    @Test func oneStoreSharedByManyThreads() async throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("threads.sqlite"))
        try store.insertSection(title: "Shared")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for step in 0..<50 {
                        try store.insertRow(NewRow(title: "w\(worker)-\(step)"), intoSection: 0, at: 0)
                        if step % 5 == 4 { try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.rowCount(inSection: 0) == 8 * 40)
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func twoConnectionsValidateAgainstTheCurrentFileNotAStaleRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("two.sqlite")
        let first = try ListStore.open(at: path)
        let second = try ListStore.open(at: path)
        try first.insertSection(title: "S")
        try first.insertRows(["a", "b", "c"], intoSection: 0)
        #expect(try second.rowCount(inSection: 0) == 3)  // the second writer looked: three rows
        try first.deleteRows(at: [ListIndexPath(section: 0, row: 0), ListIndexPath(section: 0, row: 1)])
        // Row 0:2 existed when the second writer looked, but not any more: refused, nothing lost.
        #expect(throws: ListStoreError.rowIndexOutOfRange(ListIndexPath(section: 0, row: 2), rowCount: 1)) {
            try second.deleteRows(at: [ListIndexPath(section: 0, row: 2)])
        }
        #expect(try second.snapshot().titles == [["c"]])
    }
}
