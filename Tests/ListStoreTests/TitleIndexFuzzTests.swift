import Foundation
import SQLiteLayer
import StoreShorthands
import TestSupport
import Testing

@testable import ListStore

/// The index of titles finds exactly the rows a title-by-title reading finds, through random edits by
/// ListStore (inserts, retitles, deletes, moves, undo and redo, rows and sections moved to another list,
/// section deletes) and by another program (titles changed, rows inserted and deleted, with triggers):
/// every ListStore write leaves nothing noted, and `check` finds the index in step; ranked, its pages hold
/// the same rows, each once.
@Suite struct TitleIndexFuzzTests {
    static let words = ["Café", "cafe", "CAFÉ", "Straße", "strasse", "法師", "東京都", "meeting", "notes", "e-mail", "Ελλάς", "ελλας"]
    static let queries = ["caf", "cafe", "café", "strasse", "STRASSE", "法", "師", "京都", "meet", "notes", "e-mail", "e", "ελλ", "meeting caf", "法 notes"]

    static func title(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...3, using: &random)).map { _ in words[Int.random(in: 0..<words.count, using: &random)] }.joined(separator: " ")
    }

    /// The ids of every page of `search` on `store`, in order.
    static func allPages(_ store: ListStore, _ search: RowSearch, limit: Int) throws -> [Int64] {
        var ids: [Int64] = []
        var cursor: SearchCursor?
        repeat {
            let page = try store.read { try $0.findRows(search, limit: limit, after: cursor) }
            ids += page.results.map(\.row.id.rawValue)
            cursor = page.next
        } while cursor != nil
        return ids
    }

    /// The ids of list `list`'s rows whose titles hold `words`, judged title by title, in id order.
    static func judged(_ db: Connection, list: Int64, _ words: String, accents: Bool) throws -> [Int64] {
        let query = try TitleWordQuery(words, lastIsPrefix: true, matchingAccents: accents)
        return try db.prepare("SELECT r.id, r.title FROM rows r JOIN sections s ON s.id = r.section_id WHERE s.list_id = ?1 ORDER BY r.id")
            .bind([.integer(list)]).map { ($0.int64(0), $0.text(1)) }.filter { query.matches($0.1) }.map(\.0)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func theIndexFindsWhatTheTitlesSayThroughRandomEditsByEveryone(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let directory = try TemporaryDirectory()
        let path = directory.path("titles.sqlite")
        let store = try ListStore.open(at: path)
        let other = try store.addList(named: "B")
        try store.insertSection(title: "one")
        try store.insertSection(title: "two")
        try other.insertSection(title: "elsewhere")
        try store.insertRows((0..<6).map { _ in NewRow(title: Self.title(&random)) }, intoSection: 0)
        #expect(try store.addTitleIndex())
        let hand = try Connection(path: path, mode: .readWrite)  // another program: triggers on
        for step in 0..<150 {
            let snapshot = try store.snapshot()
            let paths = snapshot.sections.enumerated().flatMap { section, rows in rows.rows.indices.map { ListIndexPath(section: section, row: $0) } }
            var byListStore = true
            switch Int.random(in: 0..<14, using: &random) {
            case 0, 1:
                let section = Int.random(in: 0..<snapshot.sections.count, using: &random)
                let rows = (0..<Int.random(in: 1...3, using: &random)).map { _ in NewRow(title: Self.title(&random)) }
                try store.insertRows(rows, intoSection: section, at: Int.random(in: 0...snapshot.sections[section].rows.count, using: &random))
            case 2 where !paths.isEmpty, 3 where !paths.isEmpty:
                try store.updateRow(at: paths[Int.random(in: 0..<paths.count, using: &random)], title: Self.title(&random))
            case 4 where !paths.isEmpty:
                try store.deleteRows(at: Array(Set((0..<Int.random(in: 1...3, using: &random)).map { _ in paths[Int.random(in: 0..<paths.count, using: &random)] })))
            case 5 where paths.count > 1:
                try store.moveRow(from: paths[Int.random(in: 0..<paths.count, using: &random)], to: paths[Int.random(in: 0..<paths.count, using: &random)])
            case 6:
                _ = try? store.undo()
            case 7:
                _ = try? store.redo()
            case 8 where !paths.isEmpty:
                let row = try #require(snapshot[paths[Int.random(in: 0..<paths.count, using: &random)]])
                _ = try store.transferRow(id: row.id, toList: "B", section: 0)
            case 9 where snapshot.sections.count > 2:
                try store.deleteSections(at: [Int.random(in: 0..<snapshot.sections.count, using: &random)])
            case 9:
                try store.insertSection(title: "s\(step)")
            case 10 where !paths.isEmpty:
                byListStore = false
                let row = try #require(snapshot[paths[Int.random(in: 0..<paths.count, using: &random)]])
                try hand.prepare("UPDATE rows SET title = ?2 WHERE id = ?1").bind([.integer(row.id.rawValue), .text(Self.title(&random))]).run()
            case 11:
                byListStore = false
                let section = snapshot.sections[Int.random(in: 0..<snapshot.sections.count, using: &random)].id.rawValue
                try hand.prepare(
                    """
                    INSERT INTO rows (section_id, position, title)
                    VALUES (?1, coalesce((SELECT max(position) FROM rows WHERE section_id = ?1) + 1024, 0), ?2)
                    """
                ).bind([.integer(section), .text(Self.title(&random))]).run()
            case 12 where !paths.isEmpty:
                byListStore = false
                let row = try #require(snapshot[paths[Int.random(in: 0..<paths.count, using: &random)]])
                try hand.prepare("DELETE FROM rows WHERE id = ?1").bind([.integer(row.id.rawValue)]).run()
            default:
                try other.insertRow(NewRow(title: Self.title(&random)), intoSection: 0)
            }
            if byListStore, try store.snapshot().version != snapshot.version {
                #expect(try hand.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0, "seed \(seed) step \(step): a ListStore write leaves nothing noted")
            }
            for _ in 0..<3 {
                let words = Self.queries[Int.random(in: 0..<Self.queries.count, using: &random)]
                var search = RowSearch(titleWords: words)
                search.matchingAccents = Bool.random(using: &random)
                let limit = Int.random(in: 1...4, using: &random)
                for (handle, list) in [(store, Int64(1)), (other, Int64(2))] {
                    let found = try Self.allPages(handle, search, limit: limit)
                    let expected = try Self.judged(hand, list: list, words, accents: search.matchingAccents)
                    #expect(found == expected, "seed \(seed) step \(step): \(words) in list \(list)")
                    let total = try handle.read { try $0.findRows(search, limit: 1).total }
                    #expect(total == expected.count, "seed \(seed) step \(step): the total of \(words) in list \(list)")
                    var ranked = search
                    ranked.ranked = true
                    let rankedPages = try Self.allPages(handle, ranked, limit: limit)
                    let rankedWhole = try handle.read { try $0.findRows(ranked, limit: 10_000).results.map(\.row.id.rawValue) }
                    #expect(rankedPages == rankedWhole && rankedPages.sorted() == expected, "seed \(seed) step \(step): \(words) ranked in list \(list)")
                }
            }
            if step % 25 == 24 { #expect(try store.checkInvariants().isEmpty, "seed \(seed) step \(step)") }
        }
        try store.insertSection(title: "last")  // a ListStore write: every noted row's words made again
        #expect(try store.checkInvariants().isEmpty)
    }
}
