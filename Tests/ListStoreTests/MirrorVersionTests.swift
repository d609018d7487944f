import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

/// A mirror knows which state it shows: a change set applied twice, or one older than the mirror, is
/// refused instead of duplicating rows (which a diffable data source traps on); and the as-of edits
/// have background forms, so a swipe's delete never blocks the main thread on another process's lock.
@Suite struct MirrorVersionTests {
    @Test func aChangeSetAppliedTwiceIsRefusedAndLeavesTheMirrorAsItWas() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        var mirror = try store.snapshot()
        let changes = try store.insertRows(["q"], intoSection: 0).changes
        try mirror.apply(changes)
        #expect(throws: ListSnapshot.ApplyError.self) { try mirror.apply(changes) }
        #expect(mirror == (try store.snapshot()))
        #expect(mirror.version == changes.version)
    }

    @Test func anOlderChangeSetIsRefused() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        let older = try store.insertRow("a", intoSection: 0).changes
        var mirror = try store.snapshot()  // already shows `older`
        #expect(throws: ListSnapshot.ApplyError.self) { try mirror.apply(older) }
        #expect(mirror == (try store.snapshot()))
    }

    /// The same without the mistake: every change set once, in order, applies.
    @Test func eachChangeSetOnceInOrderApplies() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        var mirror = try store.snapshot()
        for title in ["a", "b", "c"] { try mirror.apply(try store.insertRow(title, intoSection: 0, at: 0).changes) }
        #expect(mirror == (try store.snapshot()))
        // Hand-built change sets carry no version and are applied as before.
        var handBuilt = ChangeSet()
        handBuilt.deletedRows = [ChangeSet.RowChange(indexPath: ListIndexPath(section: 0, row: 0), id: mirror.sections[0].rows[0].id)]
        try mirror.apply(handBuilt)
        #expect(mirror.sections[0].rows.map(\.title) == ["b", "a"])
    }

    @Test func asOfEditsRunInTheBackgroundToo() async throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        try store.insertRows(["a", "b"], intoSection: 0)
        let drawn = try store.snapshot()
        try store.insertRow("above", intoSection: 0, at: 0)
        let changes = try await store.writeInBackground(asOf: drawn.version) { tx in
            try tx.deleteRows(at: [ListIndexPath(section: 0, row: 1)])  // "b" as drawn
        }
        #expect(changes.deletedRows.map(\.id) == [drawn.sections[0].rows[1].id])
        let (count, _) = try await store.writeReturningInBackground(asOf: changes.version) { tx in
            try tx.insertRow("end", intoSection: 0)
            return try tx.current.totalRowCount()
        }
        #expect(count == 3)
        #expect(try store.rows(inSection: 0).map(\.title) == ["above", "a", "end"])
    }
}
