import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

/// Search (issue 19, item 3): rows by title text and by payload field, with their index paths, paged by
/// a cursor that stays right across edits, with no way for text or field names to become SQL.
@Suite struct RowSearchTests {
    struct Place: Codable, Hashable {
        var country: String
        var pop: Double
        var capital: Bool
        var address: Address?
    }

    struct Address: Codable, Hashable {
        var city: String
    }

    /// Titles of a page, in order.
    static func titles(_ page: SearchPage) -> [String] { page.results.map(\.row.title) }

    /// Every result's index path is the row's index path in the same state (read in the same transaction).
    static func expectPathsMatch(_ store: ListStore, _ search: RowSearch, limit: Int = 50, after cursor: SearchCursor? = nil) throws -> SearchPage {
        try store.read { reader in
            let page = try reader.findRows(search, limit: limit, after: cursor)
            let snapshot = try reader.snapshot()
            for result in page.results {
                #expect(snapshot[result.indexPath] == result.row, "\(result.row.title) at \(result.indexPath)")
            }
            #expect(page.version == (try reader.version()))
            return page
        }
    }

    @Test func titleTextIgnoresTheCaseOfASCIILettersOnly() throws {
        let store = try ListStore.inMemory()
        let (section, _) = try store.insertSection(title: "s")
        try store.insertRows(["Paris", "PARIS, Texas", "comparison", "Épée", "épée", "Straße", "STRASSE", "cafe\u{301}", "caf\u{E9}"], intoSection: section)
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "paris"))) == ["Paris", "PARIS, Texas", "comparison"])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "épée"))) == ["épée"])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "ÉPÉE"))) == [])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "straße"))) == ["Straße"])
        // No Unicode normalization: precomposed and decomposed é find only themselves.
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "caf\u{E9}"))).map { Array($0.unicodeScalars) } == [Array("caf\u{E9}".unicodeScalars)])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "e\u{301}"))).map { Array($0.unicodeScalars) } == [Array("cafe\u{301}".unicodeScalars)])
    }

    @Test func wildcardsQuotesAndBackslashesInTheTextAreMatchedAsThemselves() throws {
        let store = try ListStore.inMemory()
        let (section, _) = try store.insertSection(title: "s")
        let titles = ["100%", "100 percent", "a_b", "axb", "it's", "its", "say \"hi\"", #"back\slash"#, "backslash", "'; DROP TABLE rows; --"]
        try store.insertRows(titles, intoSection: section)
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "%"))) == ["100%"])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "_"))) == ["a_b"])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "'"))) == ["it's", "'; DROP TABLE rows; --"])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "\""))) == ["say \"hi\""])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: #"\"#))) == [#"back\slash"#])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: #"k\s"#))) == [#"back\slash"#])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "' OR '1'='1"))) == [])
        #expect(try store.totalRowCount() == titles.count)
        // The same searches without the special characters find the ordinary rows.
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "100"))) == ["100%", "100 percent"])
        #expect(Self.titles(try store.findRows(RowSearch(titleContains: "back"))) == [#"back\slash"#, "backslash"])
    }

    @Test func payloadFieldsMatchByTypedValueIncludingNestedFields() throws {
        let store = try ListStore.inMemory()
        let (section, _) = try store.insertSection(title: "Places")
        try store.write { tx in
            try tx.insertRow("Paris", payload: Place(country: "FR", pop: 2.1, capital: true, address: Address(city: "Paris")), intoSection: section)
            try tx.insertRow("Lyon", payload: Place(country: "FR", pop: 0.5, capital: false, address: nil), intoSection: section)
            try tx.insertRow("Ottawa", payload: Place(country: "CA", pop: 1, capital: true, address: Address(city: "O'Ttawa")), intoSection: section)
            try tx.insertRow(NewRow(title: "text", payload: #"{"country":"38","pop":38}"#), intoSection: section)
            try tx.insertRow("none", intoSection: section)
        }
        func find(_ field: String, _ value: PayloadValue, text: String? = nil) throws -> [String] {
            Self.titles(try Self.expectPathsMatch(store, RowSearch(titleContains: text, where: [try PayloadMatch(field: field, equals: value)])))
        }
        #expect(try find("country", "FR") == ["Paris", "Lyon"])
        #expect(try find("country", "fr") == [])
        #expect(try find("capital", true) == ["Paris", "Ottawa"])
        #expect(try find("capital", false) == ["Lyon"])
        #expect(try find("pop", 1) == ["Ottawa"])
        #expect(try find("pop", 1.0) == ["Ottawa"])
        #expect(try find("pop", 38) == ["text"])
        #expect(try find("country", 38) == [])
        #expect(try find("country", "38") == ["text"])
        #expect(try find("address.city", "Paris") == ["Paris"])
        #expect(try find("address.city", "O'Ttawa") == ["Ottawa"])
        #expect(try find("address.city", "' OR 1=1 --") == [])
        #expect(try find("country", "FR", text: "ly") == ["Lyon"])
        let both = RowSearch(where: [try PayloadMatch(field: "country", equals: "FR"), try PayloadMatch(field: "capital", equals: true)])
        #expect(Self.titles(try store.findRows(both)) == ["Paris"])
        #expect(throws: ListStoreError.self) { try store.findRows(RowSearch(where: [try PayloadMatch(field: "pop", equals: .double(.nan))])) }
    }

    @Test func fieldNamesThatCouldCarrySQLOrPathSyntaxAreRefused() throws {
        for name in [
            "", "a..b", ".a", "a.", "x') OR 1=1 --", "a'b", "a\"b", "$.a", "a[0]", "a*", "a b", "ä", "a;b", "a\u{0}b",
            String(repeating: "x", count: 65), (0..<9).map { _ in "a" }.joined(separator: "."),
        ] {
            #expect(throws: ListStoreError.self, "\(name)") { try PayloadField(name) }
        }
        for name in ["a", "due-date", "_x", "0", "A9.b_c.d-e", String(repeating: "x", count: 64), (0..<8).map { _ in "a" }.joined(separator: ".")] {
            #expect(try PayloadField(name).name == name)
        }
        do {
            _ = try PayloadField("x') OR 1=1 --")
        } catch let error as ListStoreError {
            #expect("\(error)".hasPrefix("invalid payload field \"x') OR 1=1 --\": it contains U+0027"), "\(error)")
        }
    }

    @Test func pagesFollowOneAnotherAcrossEditsWithoutRepeatsOrGaps() throws {
        let store = try ListStore.inMemory()
        for title in ["A", "B", "C"] { try store.insertSection(title: title) }
        var random = SeededGenerator(seed: 19)
        var ids: [RowID] = []
        for index in 0..<90 {
            let (id, _) = try store.insertRow(index % 3 == 0 ? "other \(index)" : "match \(index)", intoSection: Int.random(in: 0..<3, using: &random))
            ids.append(id)
        }
        let search = RowSearch(titleContains: "MATCH")
        var seen: [RowID] = []
        var page = try Self.expectPathsMatch(store, search, limit: 7)
        var deletedAfterStart: Set<RowID> = []
        var insertedAfterStart: [RowID] = []
        var pages = 0
        while true {
            seen += page.results.map(\.id)
            pages += 1
            guard let next = page.next else { break }
            // Between pages: delete a row not yet seen, insert a new match, move rows around, make a seen row stop matching.
            let unseen = ids.filter { !seen.contains($0) && !deletedAfterStart.contains($0) }
            if let doomed = unseen.randomElement(using: &random) {
                try store.deleteRows(ids: [doomed])
                deletedAfterStart.insert(doomed)
            }
            let (inserted, _) = try store.insertRow("match new \(pages)", intoSection: Int.random(in: 0..<3, using: &random), at: 0)
            insertedAfterStart.append(inserted)
            try store.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 2, row: 0))
            if let last = seen.last { try store.updateRow(id: last, title: "no longer") }
            page = try Self.expectPathsMatch(store, search, limit: 7, after: next)
        }
        #expect(Set(seen).count == seen.count, "no row twice")
        #expect(seen == seen.sorted { $0.rawValue < $1.rawValue }, "id order")
        let matchedThroughout = (0..<90).filter { $0 % 3 != 0 }.map { ids[$0] }.filter { !deletedAfterStart.contains($0) }
        #expect(matchedThroughout.allSatisfy(seen.contains), "every row that matched throughout")
        #expect(seen.allSatisfy { !deletedAfterStart.contains($0) })
        #expect(insertedAfterStart.allSatisfy(seen.contains), "rows added since come on later pages")
        #expect(pages > 5)
    }

    @Test func everyRowIsFoundOnceInPagesWithoutEdits() throws {
        let store = try ListStore.inMemory()
        let (section, _) = try store.insertSection(title: "s")
        try store.insertRows((0..<25).map { "row \($0)" }, intoSection: section)
        var page = try store.findRows(RowSearch(titleContains: "row"), limit: 10)
        var all = Self.titles(page)
        while let next = page.next {
            page = try store.findRows(RowSearch(titleContains: "row"), limit: 10, after: next)
            all += Self.titles(page)
        }
        #expect(all == (0..<25).map { "row \($0)" })
        let exact = try store.findRows(RowSearch(titleContains: "row"), limit: 25)
        #expect(exact.results.count == 25 && exact.next == nil)
        let everything = try store.findRows(RowSearch(), limit: 100)
        #expect(everything.results.map(\.indexPath) == (0..<25).map { ListIndexPath(section: 0, row: $0) })
    }

    @Test func searchesThatCannotRunAreRefused() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "s")
        for limit in [0, -1, ListReader.maximumSearchLimit + 1] {
            #expect(throws: ListStoreError.self) { try store.findRows(RowSearch(titleContains: "a"), limit: limit) }
        }
        #expect(throws: ListStoreError.self) { try store.findRows(RowSearch(titleContains: "a\u{0}b")) }
        let long = String(repeating: "%", count: ListReader.maximumSearchTextLength)
        #expect(try store.findRows(RowSearch(titleContains: long)).results.isEmpty)
        #expect {
            try store.findRows(RowSearch(titleContains: long + "x"))
        } throws: { error in
            guard case .invalidSearch(let reason)? = (error as? ListStoreError)?.reason else { return false }
            return reason.contains("10001 bytes")
        }
        #expect(try store.findRows(RowSearch(titleContains: "a"), limit: ListReader.maximumSearchLimit).results.isEmpty)
    }
}
