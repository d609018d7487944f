import SQLiteLayer
import Testing

@testable import ListStore

/// The rules that keep a hot spot's room (``SectionRows``): a row inserted next to one inserted moments
/// ago takes a fixed step (``RowSpacing/runGap``) from it; before the room runs out the rows on the other
/// side are shifted away (``RowSpacing/refillShift``); a full block is cut in two away from the rows
/// just inserted. Small blocks, so that every rule meets splits.
@Suite struct HotSpotRulesTests {
    static func positions(_ path: String) throws -> [(id: Int64, position: Int)] {
        try Connection(path: path, mode: .readOnly).cached("SELECT id, position FROM rows ORDER BY position").bind([]).map { ($0.int64(0), $0.int(1)) }
    }

    /// Inserts at index 1, again and again: each new row sits one step below the one inserted before it,
    /// and when the room runs low the first row (alone on the other side, with the section's open start
    /// below it) moves down once by the refill's shift — no other row moves.
    @Test func insertsAtIndexOneStepDownFromTheNewestAndTheFirstRowMakesRoom() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("one.sqlite")
        let store = try ListStore.open(at: path, rowBlockSizes: RowBlockSizes(blockCapacity: 4, pageCapacity: 3))
        try store.insertSection(title: "S")
        try store.insertRows((0..<20).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let first = try #require(try Self.positions(path).first)
        var newest: [Int] = []
        try store.write(tracksChanges: false) { transaction in
            for step in 0..<3_000 {
                let id = try transaction.insertRow(NewRow(title: "h\(step)"), intoSection: 0, at: 1)
                newest.append(try #require(try transaction.db.scalarInt("SELECT position FROM rows WHERE id = ?1", [.integer(id.rawValue)])))
            }
        }
        // The first insert halves the standard gap; every later one is one step below its predecessor.
        #expect(newest[0] == RowSpacing.gap / 2)
        for step in 1..<newest.count where newest[step] != newest[step - 1] - RowSpacing.runGap {
            Issue.record("insert \(step) at \(newest[step]), its predecessor at \(newest[step - 1])")
            break
        }
        let after = try Self.positions(path)
        #expect(after.first?.id == first.id)
        #expect(after.first?.position == first.position - RowSpacing.refillShift, "the first row moved down once to make room")
        // The rows after the inserted ones never moved.
        #expect(after.suffix(19).map(\.position) == (1..<20).map { $0 * RowSpacing.gap })
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Each row inserted right after the one before it (typing rows into the middle): each sits one step
    /// above its predecessor, and the rows after the place are shifted up to make room — which needs the
    /// newest row and the one after it in one block, so splits never cut between them.
    @Test func rowsTypedAfterTheNewestStepUpAndTheRowsAfterThemMakeRoom() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("typing.sqlite")
        let store = try ListStore.open(at: path, rowBlockSizes: RowBlockSizes(blockCapacity: 4, pageCapacity: 3))
        try store.insertSection(title: "S")
        try store.insertRows((0..<100).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let before = try Self.positions(path)
        var newest: [Int] = []
        try store.write(tracksChanges: false) { transaction in
            for step in 0..<5_000 {
                let id = try transaction.insertRow(NewRow(title: "t\(step)"), intoSection: 0, at: 50 + step)
                newest.append(try #require(try transaction.db.scalarInt("SELECT position FROM rows WHERE id = ?1", [.integer(id.rawValue)])))
            }
        }
        #expect(newest[0] == 49 * RowSpacing.gap + RowSpacing.gap / 2)
        for step in 1..<newest.count where newest[step] != newest[step - 1] + RowSpacing.runGap {
            Issue.record("insert \(step) at \(newest[step]), its predecessor at \(newest[step - 1])")
            break
        }
        let after = try Self.positions(path)
        // The rows before the place never moved; the first row after it did (the refills).
        #expect(after.prefix(50).map(\.position) == before.prefix(50).map(\.position))
        let next = try #require(after.first { $0.id == before[50].id })
        #expect(next.position > before[50].position)
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Where a full block is cut: at its middle, except beside or among the rows just inserted.
    @Test func aFullBlockIsCutAwayFromTheRowsJustInserted() {
        #expect(SectionRows.cut(129, avoiding: 1..<2) == 64)
        #expect(SectionRows.cut(129, avoiding: 64..<65) == 63)
        #expect(SectionRows.cut(129, avoiding: 63..<64) == 65)
        #expect(SectionRows.cut(129, avoiding: 62..<66) == 61)
        #expect(SectionRows.cut(5, avoiding: 1..<2) == 3)
        #expect(SectionRows.cut(5, avoiding: 2..<3) == 1)
        #expect(SectionRows.cut(3, avoiding: 1..<2) == 1, "no cut away from them: the middle")
    }

    /// Control: rows inserted at random places (no neighbour inserted moments ago) still go halfway
    /// between their neighbours.
    @Test func aPlaceWithoutRecentNeighboursStillTakesTheMidpoint() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("mid.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        try store.insertRows((0..<100).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let id = try store.insertRow(NewRow(title: "m"), intoSection: 0, at: 30).id
        #expect(try Self.positions(path).first { $0.id == id.rawValue }?.position == 29 * RowSpacing.gap + RowSpacing.gap / 2)
    }
}
