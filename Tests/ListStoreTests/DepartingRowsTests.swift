import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// A delete finds each doomed row with its values and its neighbours in the look-up that finds it
/// (``SectionRows/departingRows(at:)``), instead of reading them again by id for the undo history. What
/// it finds must be exactly what the history's own statement read before: the row the counts lead to
/// (``SectionRows/places(at:)``), its title and payload, and the rows just before and after it by
/// position — across block and page edges, for runs of neighbours deleted together, on every path (a
/// descent each for a few rows, the pass over the pages for more, a block read whole when several of its
/// rows go), and with a row the counts do not know put in by hand.
@Suite struct DepartingRowsTests {
    /// Blocks of 8 and pages of 4 blocks: a few hundred rows make many edges.
    static let sizes = RowBlockSizes(blockCapacity: 8, pageCapacity: 4)

    /// What the history read before, one statement per row: its values and its neighbours by position.
    static func expected(_ place: RowPlace, section: Int64, _ db: Connection) throws -> DepartingRow? {
        try db.cached(
            """
            SELECT r.title, r.payload,
                   (SELECT id FROM rows WHERE section_id = r.section_id AND position < r.position ORDER BY position DESC LIMIT 1),
                   (SELECT id FROM rows WHERE section_id = r.section_id AND position > r.position ORDER BY position LIMIT 1)
            FROM rows AS r WHERE r.id = ?1
            """
        ).bind([.integer(place.id)]).first {
            DepartingRow(
                place: place, title: $0.text(0), payload: $0.optionalText(1), previous: $0.isNull(2) ? nil : $0.int64(2),
                next: $0.isNull(3) ? nil : $0.int64(3))
        }
    }

    /// A section of `rows` rows with sparse, uneven positions (inserts at random places, some deleted),
    /// some with payloads; returns its row count.
    static func fill(_ store: ListStore, rows: Int, seed: UInt64) throws -> Int {
        var random = SeededGenerator(seed: seed)
        try store.insertSection(title: "S")
        try store.insertRows((0..<rows).map { NewRow(title: "r\($0)", payload: $0 % 3 == 0 ? #"{"n":\#($0)}"# : nil) }, intoSection: 0)
        for step in 0..<rows / 2 {
            let count = try store.rowCount(inSection: 0)
            try store.insertRow(NewRow(title: "x\(step)"), intoSection: 0, at: Int.random(in: 0...count, using: &random))
            if step % 3 == 0 { try store.deleteRows(at: [ListIndexPath(section: 0, row: Int.random(in: 0..<(count + 1), using: &random))]) }
        }
        return try store.rowCount(inSection: 0)
    }

    /// Index sets of every shape: one row, the ends, a few (a descent each), runs of neighbours, a block
    /// read whole, scattered rows over many pages.
    static func indexSets(count: Int, using random: inout SeededGenerator) -> [[Int]] {
        var sets: [[Int]] = [[0], [count - 1], [0, count - 1], [3, 4, 5], Array(0..<8), Array(0..<9), Array(10..<40)]
        for size in [2, 7, 9, 25, 60, count / 2] {
            sets.append(Array((0..<count).shuffled(using: &random).prefix(size)))
        }
        sets.append(Array(stride(from: 0, to: count, by: 7)))
        return sets
    }

    static func check(_ transaction: ListTransaction, indexes: [Int], sizes: RowBlockSizes) throws {
        let db = transaction.db
        let section = try SectionRows.load(section: 0, list: transaction.list, db, sizes: sizes)
        let places = try section.places(at: indexes)
        let departing = try section.departingRows(at: indexes)
        #expect(Set(departing.keys) == Set(indexes))
        for index in indexes {
            let place = try #require(places[index])
            let want = try #require(try expected(place, section: section.sectionID, db))
            #expect(departing[index] == want, "index \(index) of \(indexes.sorted())")
        }
        // Found by id (a delete by ids): the same.
        let byID = try section.departingRows(indexes.compactMap { places[$0] })
        #expect(byID == indexes.compactMap { departing[$0] })
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theRowsValuesAndNeighboursAreWhatTheHistoryReadByItself(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("departing.sqlite"), rowBlockSizes: Self.sizes)
        let count = try Self.fill(store, rows: 300, seed: seed)
        var random = SeededGenerator(seed: seed &+ 100)
        try store.write(tracksChanges: false) { transaction in
            for indexes in Self.indexSets(count: count, using: &random) { try Self.check(transaction, indexes: indexes, sizes: Self.sizes) }
        }
    }

    /// A row put in a block's gap with triggers off counts nowhere: the counts lead past it (the
    /// addressing rule), but it is a neighbour by position all the same, as the history read it.
    @Test func aRowTheCountsDoNotKnowIsStillANeighbour() throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("uncounted.sqlite"), rowBlockSizes: Self.sizes)
        let count = try Self.fill(store, rows: 120, seed: 7)
        var random = SeededGenerator(seed: 8)
        try store.write(tracksChanges: false) { transaction in
            let db = transaction.db
            let section = try SectionRows.load(section: 0, list: transaction.list, db, sizes: Self.sizes)
            // Between the rows at 40 and 41, and just before the first row of the block holding 60.
            for index in [41, 60] {
                let place = try section.place(at: index)
                let below = try #require(
                    try db.cached("SELECT max(position) FROM rows WHERE section_id = ?1 AND position < ?2").bind([.integer(section.sectionID), .int(place.position)])
                        .first { $0.isNull(0) ? nil : $0.int(0) } ?? nil)
                #expect(place.position - below > 1, "a gap to put a row in")
                try db.run(
                    "INSERT INTO rows (section_id, position, title) VALUES (?1, ?2, 'by hand')", [.integer(section.sectionID), .int(below + (place.position - below) / 2)])
            }
            for indexes in Self.indexSets(count: count, using: &random) + [[39, 40, 41, 42], Array(36..<48)] {
                try Self.check(transaction, indexes: indexes, sizes: Self.sizes)
            }
        }
    }
}
