import Foundation
import SQLiteLayer
import StoreShorthands
import TestSupport
import Testing

@testable import ListStore

/// Title search best match first (issue 35, ``RowSearch/ranked``): FTS5's `bm25` — more occurrences of the
/// words and shorter titles first, ties in id order — the same order with the index of titles and without it
/// (scored in Swift by the same formula), across pages that return every row found once, and for rows written
/// by another program since ListStore's last write.
@Suite struct RankedTitleSearchTests {
    static func ranked(_ words: String, prefix: Bool = true, accents: Bool = false) -> RowSearch {
        var search = RowSearch(titleWords: words)
        search.ranked = true
        search.lastWordIsPrefix = prefix
        search.matchingAccents = accents
        return search
    }

    /// The titles of every page of `search`, `limit` at a time, each page's paths and total checked.
    static func allPages(_ store: ListStore, _ search: RowSearch, limit: Int) throws -> [ListRow] {
        var rows: [ListRow] = []
        var cursor: SearchCursor?
        let total = try store.findRows(search, limit: 1).total
        repeat {
            let page = try RowSearchTests.expectPathsMatch(store, search, limit: limit, after: cursor)
            #expect(page.total == total)
            #expect(page.results.count == limit || page.next == nil)
            rows += page.results.map(\.row)
            cursor = page.next
        } while cursor != nil
        #expect(rows.count == total)
        return rows
    }

    static let vocabulary = ["apple", "Apple", "APPLES", "pear", "pie", "tart", "café", "cafe", "Straße", "strasse", "東京都", "法師", "e-mail", "σίσυφος", "note"]

    static func title(_ random: inout SeededGenerator) -> String {
        (0..<Int.random(in: 1...6, using: &random)).map { _ in vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)] }.joined(separator: " ")
    }

    /// A file at `path` of `count` random titles in three sections, with the index of titles when `indexed`.
    static func randomStore(at path: String, seed: UInt64, count: Int, indexed: Bool) throws -> ListStore {
        var random = SeededGenerator(seed: seed)
        let store = try ListStore.open(at: path)
        if indexed { try store.addTitleIndex() }
        for section in 0..<3 {
            try store.insertSection(title: "s\(section)")
            try store.insertRows((0..<count / 3).map { _ in NewRow(title: Self.title(&random)) }, intoSection: section)
        }
        return store
    }

    @Test(arguments: [true, false]) func moreOccurrencesAndShorterTitlesRankFirstAsBm25Does(indexed: Bool) throws {
        // bm25 adds, for each word, idf × f × 2.2 / (f + 1.2 × (0.25 + 0.75 × length / mean length)): it grows with the
        // word's occurrences f (less and less) and shrinks with the title's length.
        let store = try TitleWordSearchTests.store(
            ["pear tart pie apple", "apple pear", "apple apple", "plum", "apple", "apple pear tart pie plum cherry fig", "apple apple apple"],
            indexed: indexed)
        let page = try RowSearchTests.expectPathsMatch(store, Self.ranked("apple"))
        #expect(
            RowSearchTests.titles(page) == [
                "apple apple apple", "apple apple", "apple", "apple pear", "pear tart pie apple", "apple pear tart pie plum cherry fig",
            ])
        #expect(page.total == 6)
        // Two words: each counts, weighted by how few titles hold it (pear is rarer than apple).
        #expect(RowSearchTests.titles(try store.findRows(Self.ranked("apple pe"))) == ["apple pear", "pear tart pie apple", "apple pear tart pie plum cherry fig"])
        // The default order is still the ids'.
        #expect(RowSearchTests.titles(try store.findRows(RowSearch(titleWords: "apple"))).first == "pear tart pie apple")
    }

    @Test(arguments: [true, false]) func tiesComeInIdOrder(indexed: Bool) throws {
        let store = try TitleWordSearchTests.store(["fig", "apple pie", "Apple Pie", "pie apple", "APPLE PIE"], indexed: indexed)
        _ = try store.moveRow(from: ListIndexPath(section: 0, row: 4), to: ListIndexPath(section: 0, row: 0))  // display order differs from the ids'
        let page = try store.findRows(Self.ranked("apple"))
        #expect(page.results.map(\.row.id.rawValue) == [2, 3, 4, 5])
        let repeated = try store.findRows(Self.ranked("apple"))
        #expect(repeated.results == page.results)
    }

    @Test(arguments: [UInt64(11), 12]) func pagesConcatenateToTheWholeRankedResultWithoutSkipsOrRepeats(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let withIndex = try Self.randomStore(at: directory.path("indexed.sqlite"), seed: seed, count: 120, indexed: true)
        let without = try Self.randomStore(at: directory.path("plain.sqlite"), seed: seed, count: 120, indexed: false)
        for (words, accents) in [
            ("apple", false), ("app", false), ("pie apple", false), ("café", true), ("cafe", false), ("strasse", false), ("京都", false),
            ("e-mail", false), ("σισ", false), ("pear t", false),
        ] {
            let search = Self.ranked(words, accents: accents)
            let whole = try withIndex.findRows(search, limit: 10_000)
            var unranked = RowSearch(titleWords: words)
            unranked.matchingAccents = accents
            let found = try withIndex.findRows(unranked, limit: 10_000).results.map(\.row)
            #expect(whole.next == nil && whole.results.count == whole.total && !found.isEmpty, "\(words)")
            #expect(Set(whole.results.map(\.row)) == Set(found), "\(words)")
            // The same order with the index and without it (scored in Swift).
            #expect(try without.findRows(search, limit: 10_000).results.map(\.row) == whole.results.map(\.row), "\(words)")
            for (store, limits) in [(withIndex, [1, 3, 50]), (without, [2, 7])] {
                for limit in limits {
                    #expect(try Self.allPages(store, search, limit: limit) == whole.results.map(\.row), "\(words), limit \(limit)")
                }
            }
        }
    }

    @Test(arguments: [UInt64(21), 22]) func scoresInSwiftAreFTS5sBm25BitForBit(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("scores.sqlite")
        _ = try Self.randomStore(at: path, seed: seed, count: 150, indexed: true)
        let db = try Connection(path: path, mode: .readOnly)
        for words in ["apple", "ap", "pie tart", "法師", "e-mail", "strasse caf"] {
            let query = try TitleWordQuery(words, lastIsPrefix: true, matchingAccents: false)
            let fromIndex = try TitleRanking.fromIndex(query, db)
            #expect(try TitleRanking.fromTitles(query, db).holding == fromIndex.holding)
            let scored = try db.prepare(
                "SELECT rowid, bm25(liststore_title_words), (SELECT title FROM rows WHERE id = liststore_title_words.rowid) FROM liststore_title_words WHERE liststore_title_words MATCH ?1"
            ).bind([.text(query.expression)]).map { ($0.int64(0), $0.double(1), $0.text(2)) }
            #expect(!scored.isEmpty)
            for (id, bm25, title) in scored {
                let tokens = TitleWordQuery.tokens(of: TitleWords.indexed(title), keepingAccents: false)
                #expect(fromIndex.score(occurrences: query.occurrences(inIndexedTokens: tokens), title: title) == bm25, "\(words): row \(id), \(title)")
            }
        }
    }

    @Test func handEditsAreRankedAmongTheIndexedRowsAndAfterTheNextWrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("hand.sqlite")
        let file = try ListStore.open(at: path)
        try file.addTitleIndex()
        let (section, _) = try file.insertSection(title: "s")
        let (ids, _) = try file.insertRows(["apple tart", "plum", "apple pie with cream", "apple", "apple apple pie"], intoSection: section)
        do {
            let other = try Connection(path: path, mode: .readWrite)  // another program: its writes are noted
            try other.run("UPDATE rows SET title = 'apple apple apple' WHERE id = ?1", [.integer(ids[1].rawValue)])
            try other.run("UPDATE rows SET title = 'pear' WHERE id = ?1", [.integer(ids[3].rawValue)])
            try other.run(
                "INSERT INTO rows (section_id, position, title) SELECT section_id, position + 1, 'Apple, by hand' FROM rows WHERE id = ?1", [.integer(ids[4].rawValue)])
        }
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 3)
        let expected = ["apple apple apple", "apple apple pie", "apple tart", "Apple, by hand", "apple pie with cream"]
        #expect(RowSearchTests.titles(try RowSearchTests.expectPathsMatch(file, Self.ranked("apple"))) == expected)
        for limit in [1, 2, 4] { #expect(try Self.allPages(file, Self.ranked("apple"), limit: limit).map(\.title) == expected, "limit \(limit)") }
        // The next write indexes the noted rows: the same order, now from the index alone.
        try file.insertRow("fig", intoSection: section)
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0)
        #expect(RowSearchTests.titles(try file.findRows(Self.ranked("apple"))) == expected)
    }

    @Test(arguments: [true, false]) func aRankedSearchNeedsWordsAndOneOrderAndRefusesWhatUnrankedRefuses(indexed: Bool) throws {
        let store = try TitleWordSearchTests.store(["apple"], indexed: indexed)
        var noWords = RowSearch(titleContains: "apple")
        noWords.ranked = true
        #expect(throws: ListStoreError.self) { try store.findRows(noWords) }
        var both = Self.ranked("apple")
        both.inDisplayOrder = true
        #expect(throws: ListStoreError.self) { try store.findRows(both) }
        for words in ["", "***", "\u{0}", String(repeating: "a ", count: 40), String(repeating: "a", count: 10_001)] {
            let unranked = #expect(throws: ListStoreError.self) { try store.findRows(RowSearch(titleWords: words)) }
            let ranked = #expect(throws: ListStoreError.self) { try store.findRows(Self.ranked(words)) }
            #expect(ranked?.description == unranked?.description && ranked?.family == .invalidInput, "\(words.prefix(20))")
        }
        for limit in [0, 10_001] { #expect(throws: ListStoreError.self) { try store.findRows(Self.ranked("apple"), limit: limit) } }
    }

    @Test func rowsWrittenByHandIntoAnIndexThatHeldNoneAreRanked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("empty.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "s")
        try store.addTitleIndex()
        let other = try Connection(path: path, mode: .readWrite)
        for title in ["apple pie", "apple apple", "pear"] {
            try other.run("INSERT INTO rows (section_id, position, title) SELECT id, ?1, ?2 FROM sections", [.integer(Int64(title.count)), .text(title)])
        }
        #expect(RowSearchTests.titles(try store.findRows(Self.ranked("apple"))) == ["apple apple", "apple pie"])
    }

    @Test func anIndexWhoseCountsAnotherProgramDamagedIsReportedAsDamaged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try ListStore.open(at: path)
        try store.addTitleIndex()
        let (section, _) = try store.insertSection(title: "s")
        try store.insertRows(["apple pie", "apple"], intoSection: section)
        let other = try Connection(path: path, mode: .readWrite)
        try other.run("UPDATE rows SET title = 'apple apple' WHERE title = 'apple'")  // noted: scored in Swift from the counts
        try other.run("UPDATE liststore_title_words_data SET block = x'80' WHERE id = 1")
        let error = #expect(throws: ListStoreError.self) { try store.findRows(Self.ranked("apple")) }
        #expect(error?.family == .damaged, "\(String(describing: error))")
    }

    @Test func aCursorWhoseRowNoLongerMatchesEndsThePages() throws {
        let store = try TitleWordSearchTests.store(["apple apple", "apple", "apple pie"])
        let first = try store.findRows(Self.ranked("apple"), limit: 1)
        #expect(RowSearchTests.titles(first) == ["apple apple"])
        try store.updateRow(at: ListIndexPath(section: 0, row: 0), title: "pear")
        let next = try store.findRows(Self.ranked("apple"), limit: 1, after: first.next)
        #expect(next.results.isEmpty && next.next == nil && next.total == 2)
    }
}
