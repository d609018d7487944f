import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Pages of rows and index paths served from a read connection's memo by one statement outside any
/// transaction (``MemoReads``) must never be stale: after another connection's commit, this store's own
/// write, a hand edit that moves a row within its block (no count changes), or a list deleted by hand,
/// each read shows what a store opened afresh shows.
@Suite struct MemoReadsTests {
    /// Small blocks and pages, so that a few hundred rows make many of each.
    static let sizes = RowBlockSizes(blockCapacity: 8, pageCapacity: 4)

    /// The page at 40..<60 and the index paths of `ids`, asked often enough that the memo fills and
    /// serves them: what every one of the reads returned (each must be the same).
    static func asked(_ store: ListStore, ids: [RowID]) throws -> (page: [ListRow], paths: [ListIndexPath?]) {
        var pages: Set<[ListRow]> = []
        var paths: Set<[ListIndexPath?]> = []
        for _ in 0..<6 {
            pages.insert(try store.rows(inSection: 0, range: 40..<60))
            paths.insert(try ids.map { try store.indexPath(of: $0) })
        }
        #expect(pages.count == 1 && paths.count == 1, "every read of one state says the same")
        return (pages.first ?? [], paths.first ?? [])
    }

    /// The same, asked once of a store opened afresh on `path`.
    static func fresh(_ path: String, ids: [RowID]) throws -> (page: [ListRow], paths: [ListIndexPath?]) {
        let store = try ListStore.open(at: path, mode: .readOnly)
        return (try store.rows(inSection: 0, range: 40..<60), try ids.map { try store.indexPath(of: $0) })
    }

    static func store(_ path: String) throws -> (store: ListStore, ids: [RowID]) {
        let store = try ListStore.open(at: path, rowBlockSizes: sizes)
        _ = try store.insertSection(title: "S")
        _ = try store.insertRows((0..<200).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let ids = try [10, 45, 50, 51, 59, 120].map { try store.row(at: ListIndexPath(section: 0, row: $0)).id }
        return (store, ids)
    }

    @Test func readsAfterAnotherConnectionsCommitAreTheNewState() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("memo.sqlite")
        let (reader, ids) = try Self.store(path)
        let writer = try ListStore.open(at: path, rowBlockSizes: Self.sizes)
        let edits: [(ListStore) throws -> Void] = [
            { _ = try $0.insertRow("head", intoSection: 0, at: 0) },  // every index shifts
            { _ = try $0.moveRow(from: ListIndexPath(section: 0, row: 50), to: ListIndexPath(section: 0, row: 49)) },  // within a block
            { _ = try $0.deleteRows(at: [ListIndexPath(section: 0, row: 44)]) },
            { _ = try $0.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: 150)) },
            { _ = try $0.updateRow(at: ListIndexPath(section: 0, row: 45), title: "renamed") },  // no count or position changes
        ]
        for (step, edit) in edits.enumerated() {
            let before = try Self.asked(reader, ids: ids)
            try edit(writer)
            let expected = try Self.fresh(path, ids: ids)
            #expect(expected.page != before.page || expected.paths != before.paths, "step \(step): the edit changes what is read")
            let seen = try Self.asked(reader, ids: ids)
            #expect(seen.page == expected.page, "step \(step)")
            #expect(seen.paths == expected.paths, "step \(step)")
        }
    }

    @Test func readsAfterTheStoresOwnWriteAreTheNewState() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("memo.sqlite")
        let (store, ids) = try Self.store(path)
        for step in 0..<4 {
            let before = try Self.asked(store, ids: ids)
            // The first read after the write: the memo must not serve it.
            _ = try store.moveRow(from: ListIndexPath(section: 0, row: 51), to: ListIndexPath(section: 0, row: 50))
            let page = try store.rows(inSection: 0, range: 40..<60)
            let paths = try ids.map { try store.indexPath(of: $0) }
            let expected = try Self.fresh(path, ids: ids)
            #expect(expected.page != before.page && expected.paths != before.paths, "step \(step)")
            #expect(page == expected.page, "step \(step)")
            #expect(paths == expected.paths, "step \(step)")
        }
    }

    @Test func aRowMovedWithinItsBlockByHandIsReadWhereItIsNow() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("memo.sqlite")
        let (store, ids) = try Self.store(path)
        let moved = ids[3]  // the row at 51, put by hand between the rows at 49 and 50 (one block, no count changes)
        let at49 = try store.row(at: ListIndexPath(section: 0, row: 49)).id
        let at50 = try store.row(at: ListIndexPath(section: 0, row: 50)).id
        let before = try Self.asked(store, ids: ids)
        #expect(before.paths[3] == ListIndexPath(section: 0, row: 51))
        try Shell.run(
            """
            UPDATE rows SET position = ((SELECT position FROM rows WHERE id = \(at49.rawValue)) + (SELECT position FROM rows WHERE id = \(at50.rawValue))) / 2
            WHERE id = \(moved.rawValue)
            """, on: path)
        let expected = try Self.fresh(path, ids: ids)
        #expect(expected.paths[3] == ListIndexPath(section: 0, row: 50), "the hand edit moved it to 50")
        let seen = try Self.asked(store, ids: ids)
        #expect(seen.page == expected.page)
        #expect(seen.paths == expected.paths)
    }

    @Test func aListDeletedByHandIsRefusedByReadsThatHadBeenServed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("memo.sqlite")
        let store = try ListStore.open(at: path)
        let work = try store.addList(named: "Work")
        _ = try work.insertSection(title: "W")
        _ = try work.insertRows((0..<100).map { NewRow(title: "w\($0)") }, intoSection: 0)
        let id = try work.row(at: ListIndexPath(section: 0, row: 45)).id
        for _ in 0..<6 {
            #expect(try work.rows(inSection: 0, range: 40..<60).count == 20)
            #expect(try work.indexPath(of: id) == ListIndexPath(section: 0, row: 45))
        }
        // With foreign keys off (the shell's default) the list's sections and rows stay behind.
        try Shell.run("DELETE FROM lists WHERE name = 'Work'", on: path)
        #expect(throws: ListStoreError.listDeleted(listID: work.listID)) { try work.rows(inSection: 0, range: 40..<60) }
        #expect(throws: ListStoreError.listDeleted(listID: work.listID)) { try work.indexPath(of: id) }
    }
}
