import SQLiteLayer
import Testing

@testable import ListStore

/// Issue 18's worst case: inserts landing again and again at one place rewrite a bounded number of
/// rows each, whatever the block sizes — no respacing of a block, no split that packs half of one, no
/// page or section renumbered. Counted, not timed: SQLite's `total_changes()` on the writing connection
/// before and after each insert (every row an INSERT, UPDATE or DELETE touched: the new row, its block's,
/// page's and section's counts, a split's two blocks and two pages, and the rows a hot spot's refill shifts).
@Suite(.tags(.slow)) struct HotSpotBoundTests {
    /// The most rows one single-row insert may write: the row and three counts (4), a block split (2),
    /// the page split it may cause (2), and one refill (at most 9 rows). Before, one insert in a few
    /// respaced 16 or 64 rows, or the whole block (128), or packed half of it (up to 129).
    static let rowsPerInsert = 17

    enum Pattern: String, CaseIterable, CustomTestStringConvertible {
        /// Always at index 1 (after the first row): each new row goes before the one inserted before it.
        case atIndexOne
        /// Index 1 and 2 in turn: between the first row and the newest, then right after the newest.
        case alternatingOneAndTwo
        /// Always at the middle of the section (fixed index), as a drag to one place would.
        case atTheMiddle
        /// Each row right after the one inserted before it (typing rows one after another in the middle).
        case afterTheNewest

        var testDescription: String { rawValue }

        func index(step: Int, rows: Int) -> Int {
            switch self {
            case .atIndexOne: 1
            case .alternatingOneAndTwo: step % 2 == 0 ? 1 : 2
            case .atTheMiddle: rows / 2
            case .afterTheNewest: rows / 2 + step
            }
        }
    }

    static let cases: [(Pattern, RowBlockSizes)] = Pattern.allCases.flatMap { pattern in
        [RowBlockSizes(blockCapacity: 8, pageCapacity: 4), RowBlockSizes(blockCapacity: 32, pageCapacity: 8), .standard].map { (pattern, $0) }
    }

    @Test(arguments: cases)
    func repeatedInsertsAtOnePlaceRewriteABoundedNumberOfRows(pattern: Pattern, sizes: RowBlockSizes) throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("hot.sqlite"), rowBlockSizes: sizes)
        try store.insertSection(title: "S")
        let rows = 1_000
        var model = try store.insertRows((0..<rows).map { NewRow(title: "r\($0)") }, intoSection: 0).ids
        let inserts = 12_000
        var worst = (changes: 0, step: -1)
        var total = 0
        for chunk in stride(from: 0, to: inserts, by: 3_000) {
            try store.write(tracksChanges: false) { transaction in
                for step in chunk..<(chunk + 3_000) {
                    let index = pattern.index(step: step, rows: rows)
                    let before = try #require(try transaction.db.scalarInt("SELECT total_changes()"))
                    let id = try transaction.insertRow(NewRow(title: "hot \(step)"), intoSection: 0, at: index)
                    let after = try #require(try transaction.db.scalarInt("SELECT total_changes()"))
                    model.insert(id, at: index)
                    total += after - before
                    if after - before > worst.changes { worst = (after - before, step) }
                }
            }
        }
        #expect(worst.changes <= Self.rowsPerInsert, "\(pattern), \(sizes): insert \(worst.step) wrote \(worst.changes) rows")
        // On average, next to nothing beyond the row and its counts (and a split every few inserts).
        #expect(Double(total) / Double(inserts) < 6, "\(pattern), \(sizes): \(total) rows written for \(inserts) inserts")
        #expect(try store.snapshot().sections[0].rows.map(\.id) == model)
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Control: the same number of inserts at random indexes (no hot spot) cost as little on average,
    /// and leave the store as sound. (Their worst case is not bounded by this rule: a gap that random
    /// inserts happen to halve 20 times is respaced over its block, as before.)
    @Test(arguments: [RowBlockSizes(blockCapacity: 8, pageCapacity: 4), .standard])
    func randomInsertsRewriteABoundedNumberOfRowsToo(sizes: RowBlockSizes) throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("random.sqlite"), rowBlockSizes: sizes)
        try store.insertSection(title: "S")
        var model = try store.insertRows((0..<1_000).map { NewRow(title: "r\($0)") }, intoSection: 0).ids
        var random = SeededGenerator(seed: 18_318)
        var total = 0
        try store.write(tracksChanges: false) { transaction in
            for step in 0..<4_000 {
                let index = Int.random(in: 0...model.count, using: &random)
                let before = try #require(try transaction.db.scalarInt("SELECT total_changes()"))
                model.insert(try transaction.insertRow(NewRow(title: "n\(step)"), intoSection: 0, at: index), at: index)
                total += try #require(try transaction.db.scalarInt("SELECT total_changes()")) - before
            }
        }
        #expect(Double(total) / 4_000 < 6, "\(sizes): \(total) rows written for 4,000 inserts")
        #expect(try store.snapshot().sections[0].rows.map(\.id) == model)
        #expect(try store.checkInvariants().isEmpty)
    }
}
