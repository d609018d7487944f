import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// A page of rows whose positions the read connection's memo knows is read by one statement between two
/// positions, without reading positions back (``KnownPositions``): it must be served once the memo
/// knows them, and never be stale or wrong — after another connection's commit that leaves the file's
/// size as it was, or with a row by hand in a block's gap that the counts do not know.
@Suite struct KnownPositionsTests {
    static let sizes = MemoReadsTests.sizes
    /// Pages crossing blocks (8 rows) and pages (32 rows), and one at the section's end.
    static let ranges = [40..<60, 0..<50, 5..<6, 150..<200, 31..<33]

    /// What `store` reads, each page asked often enough that the memo knows its positions.
    static func asked(_ store: ListStore, ids: [RowID]) throws -> (pages: [[ListRow]], paths: [ListIndexPath?]) {
        var pages: [[ListRow]] = []
        for range in ranges {
            var seen: Set<[ListRow]> = []
            for _ in 0..<6 { seen.insert(try store.rows(inSection: 0, range: range)) }
            #expect(seen.count == 1, "every read of one state says the same")
            pages.append(seen.first ?? [])
        }
        return (pages, try ids.map { try store.indexPath(of: $0) })
    }

    static func fresh(_ path: String, ids: [RowID]) throws -> (pages: [[ListRow]], paths: [ListIndexPath?]) {
        let store = try ListStore.open(at: path, mode: .readOnly)
        return (try ranges.map { try store.rows(inSection: 0, range: $0) }, try ids.map { try store.indexPath(of: $0) })
    }

    /// The statement that reads a page between two known positions.
    static func isKnownPositionsRead(_ sql: String) -> Bool { sql.hasPrefix("SELECT id, title, payload FROM rows") && sql.contains("position <= ?3") }

    @Test func aPageWhosePositionsTheMemoKnowsIsOneStatementWithoutPositions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("known.sqlite")
        StatementRecorder.start(folder: directory.url.path)
        defer { StatementRecorder.stop(folder: directory.url.path) }
        let (store, ids) = try MemoReadsTests.store(path)
        let expected = try Self.fresh(path, ids: ids)
        for (offset, range) in Self.ranges.enumerated() {
            for _ in 0..<4 { _ = try store.rows(inSection: 0, range: range) }
            let before = StatementRecorder.executed(folder: directory.url.path).count
            let page = try store.rows(inSection: 0, range: range)
            let ran = StatementRecorder.executed(folder: directory.url.path).dropFirst(before)
            #expect(page == expected.pages[offset], "\(range)")
            #expect(ran.count == 1 && ran.allSatisfy(Self.isKnownPositionsRead), "\(range): \(Array(ran))")
        }
    }

    @Test func aSameSizeCommitByAnotherConnectionIsReadAsTheNewState() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("known.sqlite")
        let (store, ids) = try MemoReadsTests.store(path)
        let writer = try ListStore.open(at: path, rowBlockSizes: Self.sizes)
        func size() throws -> Int? { try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int }
        for step in 0..<3 {
            let before = try Self.asked(store, ids: ids)
            let sizeBefore = try size()
            // Another connection moves a row from before every page to after it (no row is added or
            // removed, no count of a section changes) and renames a row to a title of the same length:
            // the file keeps its size, every row between the two places moves up by one.
            _ = try writer.moveRow(from: ListIndexPath(section: 0, row: 3 + step), to: ListIndexPath(section: 0, row: 199))
            try Shell.run("UPDATE rows SET title = 'x' || substr(title, 2) WHERE id = \(ids[2].rawValue)", on: path)
            #expect(try size() == sizeBefore, "step \(step): the file's size did not change")
            let expected = try Self.fresh(path, ids: ids)
            #expect(expected.pages != before.pages && expected.paths != before.paths, "step \(step): the edit changes what is read")
            let seen = try Self.asked(store, ids: ids)
            #expect(seen.pages == expected.pages, "step \(step)")
            #expect(seen.paths == expected.paths, "step \(step)")
        }
    }

    @Test func aRowInABlocksGapThatNoCountKnowsIsNotServed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("known.sqlite")
        let (store, ids) = try MemoReadsTests.store(path)
        // A row put by hand just after the row at 47 (the last of its block of 8), the counts left as they were.
        let last = try store.row(at: ListIndexPath(section: 0, row: 47)).id.rawValue
        try Shell.run(
            Shell.uncounted(
                "INSERT INTO rows (section_id, position, title) VALUES (1, (SELECT position + 1 FROM rows WHERE id = \(last)), 'stray')",
                without: "rows_counted_on_insert"), on: path)
        let fresh = try ListStore.open(at: path, mode: .readOnly)
        // Pages that stop before the stray row are what they were; those reaching past it are refused, as a fresh store refuses them.
        for range in [40..<48, 20..<40, 40..<60, 47..<49, 0..<50] {
            let expected = outcome { try fresh.rows(inSection: 0, range: range) }
            for _ in 0..<6 { #expect(outcome { try store.rows(inSection: 0, range: range) } == expected, "\(range)") }
        }
        #expect(try ids.map { try store.indexPath(of: $0) } == (try ids.map { try fresh.indexPath(of: $0) }))
    }
}

/// The rows `body` reads, or the error it throws, as text to compare.
private func outcome(_ body: () throws -> [ListRow]) -> String {
    do { return "\(try body())" } catch { return "error: \(error)" }
}
