import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// A read connection remembers pages and blocks between read transactions (``ExtentMemo``): every read
/// after a commit — another store's, a hand edit's, a damage by hand, this store's own — must show what
/// a store opened afresh shows, and reads inside a write see that write's own edits.
@Suite struct ExtentMemoTests {
    /// Small blocks and pages, so that a few hundred rows make many of each.
    static let sizes = RowBlockSizes(blockCapacity: 8, pageCapacity: 4)

    /// Every row's index path and a page at each of a few offsets, as `store` reads them.
    static func view(_ store: ListStore, rows: Int) throws -> (pages: [[ListRow]], paths: [ListIndexPath?]) {
        let all = try store.rows(inSection: 0)
        let pages = try stride(from: 0, to: max(rows, 1), by: 37).map { try store.rows(inSection: 0, range: $0..<$0 + 20) }
        return (pages, try all.map { try store.indexPath(of: $0.id) })
    }

    @Test func readsAfterOtherConnectionsEditsMatchAFreshStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("memo.sqlite")
        let reader = try ListStore.open(at: path, rowBlockSizes: Self.sizes)
        _ = try reader.insertSection(title: "S")
        _ = try reader.insertRows((0..<300).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let writer = try ListStore.open(at: path, rowBlockSizes: Self.sizes)
        var random = SeededGenerator(seed: 18_018)
        var count = 300
        for step in 0..<120 {
            _ = try Self.view(reader, rows: count)  // fills the memo under the state before the edit
            switch step % 3 {
            case 0:
                _ = try writer.insertRow("new \(step)", intoSection: 0, at: Int.random(in: 0...count, using: &random))
                count += 1
            case 1:
                _ = try writer.deleteRows(at: [ListIndexPath(section: 0, row: Int.random(in: 0..<count, using: &random))])
                count -= 1
            default:
                _ = try writer.moveRow(
                    from: ListIndexPath(section: 0, row: Int.random(in: 0..<count, using: &random)),
                    to: ListIndexPath(section: 0, row: Int.random(in: 0..<count, using: &random)))
            }
            let fresh = try ListStore.open(at: path, mode: .readOnly)
            let seen = try Self.view(reader, rows: count)
            let expected = try Self.view(fresh, rows: count)
            #expect(seen.pages == expected.pages, "step \(step)")
            #expect(seen.paths == expected.paths, "step \(step)")
            #expect(seen.paths == (0..<count).map { ListIndexPath(section: 0, row: $0) }, "step \(step)")
        }
    }

    @Test func readsAfterAHandEditAndAHandDamageMatchAFreshStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("memo.sqlite")
        let store = try ListStore.open(at: path, rowBlockSizes: Self.sizes)
        _ = try store.insertSection(title: "S")
        _ = try store.insertRows((0..<100).map { NewRow(title: "r\($0)") }, intoSection: 0)
        _ = try Self.view(store, rows: 100)
        // A row inserted at the head by hand (the counting triggers fire): every index shifts by one.
        try Shell.run(
            "INSERT INTO rows (section_id, position, title) VALUES (1, (SELECT min(position) - 1 FROM rows WHERE section_id = 1), 'by hand')",
            on: path)
        let afterEdit = try Self.view(store, rows: 101)
        #expect(afterEdit.pages.first?.first?.title == "by hand")
        #expect(afterEdit.paths == (0..<101).map { ListIndexPath(section: 0, row: $0) })
        // A page's count damaged by hand: reads refuse, as a fresh store's do.
        try Shell.run("UPDATE row_pages SET row_count = row_count + 1 WHERE section_id = 1 AND start > \(Int.min)", on: path)
        #expect(throws: ListStoreError.positionsDamaged(section: 0)) { try store.rows(inSection: 0, range: 0..<10) }
        #expect(throws: ListStoreError.positionsDamaged(section: 0)) { try ListStore.open(at: path, mode: .readOnly).rows(inSection: 0, range: 0..<10) }
    }

    @Test func readsInsideAWriteSeeItsEditsAndARolledBackWriteLeavesReadsRight() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("memo.sqlite")
        let store = try ListStore.open(at: path, rowBlockSizes: Self.sizes)
        _ = try store.insertSection(title: "S")
        _ = try store.insertRows((0..<100).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let before = try Self.view(store, rows: 100)
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try store.write { transaction in
                _ = try transaction.insertRow("inside", intoSection: 0, at: 0)
                #expect(try transaction.rows(inSection: 0, range: 0..<2).map(\.title) == ["inside", "r0"])
                let id = try transaction.row(at: ListIndexPath(section: 0, row: 50)).id
                #expect(try transaction.indexPath(of: id) == ListIndexPath(section: 0, row: 50))
                throw Abandon()
            }
        }
        let after = try Self.view(store, rows: 100)
        #expect(after.pages == before.pages)
        #expect(after.paths == before.paths)
        _ = try store.insertRow("head", intoSection: 0, at: 0)
        #expect(try store.rows(inSection: 0, range: 0..<2).map(\.title) == ["head", "r0"])
        #expect(try Self.view(store, rows: 101).paths == (0..<101).map { ListIndexPath(section: 0, row: $0) })
    }
}
