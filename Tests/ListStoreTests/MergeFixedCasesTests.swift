import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// Other libraries' known merge failures of moves in lists, replayed on files (the in-memory model's
/// `MergeModelTests` has them too): a row is never duplicated or lost, and the copies end alike whatever the
/// order of the merges.
@Suite struct MergeFixedCasesTests {
    /// Sets the clock of the copy at `path` `minutes` ahead: its next edits are the newer.
    static func clockAhead(_ path: String, minutes: Int) throws {
        try Connection(path: path, mode: .readWrite).run(
            "UPDATE sqlite_sequence SET seq = seq + ?1 WHERE name = 'liststore_clock'", [.integer(Int64(minutes) * 240_000)])
    }

    /// Every row id of the default list, in order.
    static func ids(_ store: ListStore) throws -> [RowID] { try store.snapshot().sections.flatMap(\.rows).map(\.id) }

    /// Automerge #352: one row moved at once to three places on three copies is, after any merges, at the
    /// place of the newest move, once, on every copy.
    @Test func aRowMovedConcurrentlyToThreePlacesIsOnceAtTheNewestMovesDestination() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try MergeTests.copies(3, in: directory)
        let stores = try paths.map { try ListStore.open(at: $0) }
        let row = try stores[0].snapshot().sections[0].rows[1].id
        for (which, destination) in [ListIndexPath(section: 2, row: 2), ListIndexPath(section: 1, row: 0), ListIndexPath(section: 2, row: 0)].enumerated() {
            try Self.clockAhead(paths[which], minutes: which)
            try stores[which].write { tx in try tx.moveRow(id: row, to: destination) }
        }
        let newest = try stores[2].snapshot()
        for (which, store) in stores.enumerated() {
            for peer in [(which + 1) % 3, (which + 2) % 3] { _ = try MergeTests.merge(store, from: paths[peer]) }
        }
        for (which, store) in stores.enumerated() { _ = try MergeTests.merge(store, from: paths[(which + 1) % 3]) }
        for store in stores {
            #expect(try MergeTests.content(store) == MergeTests.content(stores[0]))
            #expect(try Self.ids(store).filter { $0 == row }.count == 1)
            #expect(try store.snapshot().sections[2].rows.map(\.id) == newest.sections[2].rows.map(\.id))
        }
    }

    /// Yorkie #1948 and #1423: neighbouring rows moved at once on three copies, merged pairwise in different
    /// orders, end in one order everywhere, every row once.
    @Test func concurrentMovesOfNeighboursOnThreeCopiesConvergeWhateverTheMergeOrder() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try MergeTests.copies(3, in: directory)
        let stores = try paths.map { try ListStore.open(at: $0) }
        let rows = try stores[0].snapshot().sections[0].rows.map(\.id)
        try stores[0].write { tx in try tx.moveRow(id: rows[2], to: ListIndexPath(section: 2, row: 0)) }
        try stores[1].write { tx in try tx.moveRow(id: rows[1], to: ListIndexPath(section: 2, row: 0)) }
        try stores[2].write { tx in try tx.moveRow(id: rows[0], to: ListIndexPath(section: 2, row: 2)) }
        for (which, peer) in [(0, 1), (0, 2), (1, 2), (1, 0), (2, 0), (2, 1)] { _ = try MergeTests.merge(stores[which], from: paths[peer]) }
        for (which, store) in stores.enumerated() { _ = try MergeTests.merge(store, from: paths[(which + 1) % 3]) }
        let ids = try Self.ids(stores[0])
        #expect(Set(ids).count == ids.count)
        #expect(Set(try stores[0].snapshot().sections[2].rows.map(\.id)).isSuperset(of: rows))
        for store in stores { #expect(try MergeTests.content(store) == MergeTests.content(stores[0])) }
    }
}
