import Foundation
import SQLiteLayer
import StoreShorthands
import TestSupport
import Testing

@testable import ListStore

/// A search bar's search (issue 35): title words found as a person means them, in every script — through
/// the file's full-text index of titles when it has one (opt-in, ``ListStore/addTitleIndex()``), title by
/// title otherwise, with the same results — the index kept in step with every write and with other
/// programs' hand edits.
@Suite struct TitleWordSearchTests {
    /// The titles a search by `words` finds, in the order of the page, checking each index path and the total.
    static func find(_ store: ListStore, _ words: String, prefix: Bool = true, accents: Bool = false, limit: Int = 50) throws -> [String] {
        var search = RowSearch(titleWords: words)
        search.lastWordIsPrefix = prefix
        search.matchingAccents = accents
        let page = try RowSearchTests.expectPathsMatch(store, search, limit: limit)
        if page.next == nil { #expect(page.total == page.results.count, "\(words)") }
        return RowSearchTests.titles(page)
    }

    /// A store of one section of `titles`, with the index of titles unless `indexed` is false.
    static func store(_ titles: [String], indexed: Bool = true) throws -> ListStore {
        let store = try ListStore.inMemory()
        if indexed { #expect(try store.addTitleIndex()) }
        let (section, _) = try store.insertSection(title: "s")
        try store.insertRows(titles, intoSection: section)
        return store
    }

    @Test(arguments: [true, false]) func caseIsFoldedInEveryScriptAndAccentsAreIgnoredByDefault(indexed: Bool) throws {
        let store = try Self.store(["Café crème", "CAFE", "Épée", "ΣΊΣΥΦΟΣ", "Москва", "Straße", "STRASSE", "cafe\u{301} noir", "Ærøskøbing"], indexed: indexed)
        #expect(try Self.find(store, "cafe") == ["Café crème", "CAFE", "cafe\u{301} noir"])
        #expect(try Self.find(store, "épée") == ["Épée"])
        #expect(try Self.find(store, "EPEE") == ["Épée"])
        #expect(try Self.find(store, "σίσυφος") == ["ΣΊΣΥΦΟΣ"])  // final sigma, lower case, accent
        #expect(try Self.find(store, "москва") == ["Москва"])
        #expect(try Self.find(store, "МОСК") == ["Москва"])
        // ß folds to ss both ways (unicode61 alone leaves ß a letter of its own; ListStore folds it first).
        #expect(try Self.find(store, "strasse") == ["Straße", "STRASSE"])
        #expect(try Self.find(store, "STRASSE") == ["Straße", "STRASSE"])
        #expect(try Self.find(store, "straße") == ["Straße", "STRASSE"])
    }

    /// Accents are marks of any script, ignored the same way by the index (which holds titles without them:
    /// `unicode61` removes Latin ones only) and by a title judged in Swift — written by ListStore or by hand.
    @Test(arguments: [true, false]) func accentsAreIgnoredInEveryScriptWhoeverWroteTheRow(indexed: Bool) throws {
        let titles = ["Σίσυφος", "καφές", "ёлка", "йод", "שָׁלוֹם", "كِتَاب", "cafe\u{301}"]
        let directory = try TemporaryDirectory()
        let path = directory.path("marks.sqlite")
        let store = try ListStore.open(at: path)
        if indexed { try store.addTitleIndex() }
        let (section, _) = try store.insertSection(title: "s")
        try store.insertRows(titles, intoSection: section)
        let expected: [(String, [String])] = [
            ("σισυφος", ["Σίσυφος"]), ("ΚΑΦΕΣ", ["καφές"]), ("елка", ["ёлка"]), ("иод", ["йод"]), ("שלום", ["שָׁלוֹם"]), ("كتاب", ["كِتَاب"]),
            ("café", ["cafe\u{301}"]),
        ]
        for (words, found) in expected { #expect(try Self.find(store, words) == found, "\(words)") }
        // The same titles written by hand: noted, judged title by title until ListStore's next write, then indexed.
        try Shell.run("UPDATE rows SET title = title || ' 2'", on: path)
        for (words, found) in expected { #expect(try Self.find(store, words) == found.map { $0 + " 2" }, "\(words), hand-edited") }
        try store.insertRow("after", intoSection: section)
        for (words, found) in expected { #expect(try Self.find(store, words) == found.map { $0 + " 2" }, "\(words), after a write") }
    }

    @Test(arguments: [true, false]) func accentsCountWhenAsked(indexed: Bool) throws {
        let store = try Self.store(["Café crème", "CAFE", "cafe\u{301} noir", "résumé", "resume"], indexed: indexed)
        #expect(try Self.find(store, "café", accents: true) == ["Café crème", "cafe\u{301} noir"])
        #expect(try Self.find(store, "CAFÉ", accents: true) == ["Café crème", "cafe\u{301} noir"])
        #expect(try Self.find(store, "cafe", accents: true) == ["CAFE"])
        #expect(try Self.find(store, "résu", accents: true) == ["résumé"])
        #expect(try Self.find(store, "resume") == ["résumé", "resume"])
    }

    @Test(arguments: [true, false]) func theLastWordIsAPrefixWhileTypingAndEveryWordMustBeThere(indexed: Bool) throws {
        let store = try Self.store(["Meeting notes", "Team meeting", "Notes from the meet-up", "meat"], indexed: indexed)
        var typed = ""
        var found: [[String]] = []
        for character in "meeting no" {
            typed.append(character)
            found.append(try Self.find(store, typed))
        }
        #expect(found[0] == ["Meeting notes", "Team meeting", "Notes from the meet-up", "meat"])  // m
        #expect(found[2] == ["Meeting notes", "Team meeting", "Notes from the meet-up"])  // mee
        #expect(found[6] == ["Meeting notes", "Team meeting"])  // meeting
        #expect(found[7] == ["Meeting notes", "Team meeting"])  // "meeting " (the space ends the word)
        #expect(found[9] == ["Meeting notes"])  // meeting no
        #expect(try Self.find(store, "notes meeting") == ["Meeting notes"])  // any order
        #expect(try Self.find(store, "meet", prefix: false) == ["Notes from the meet-up"])
        #expect(try Self.find(store, "meet-up") == ["Notes from the meet-up"])  // a phrase
        #expect(try Self.find(store, "up-meet") == [])
        // A space after the last word ends it.
        #expect(try Self.find(store, "meet ") == ["Notes from the meet-up"])  // "meet" whole: not "Meeting"
        #expect(try Self.find(store, "meeting ") == ["Meeting notes", "Team meeting"])
    }

    @Test(arguments: [true, false]) func charactersOfScriptsWithoutSpacesAreFoundInsideTitles(indexed: Bool) throws {
        let store = try Self.store(["法師", "魔法使い", "東京都庁", "ภาษาไทย", "法"], indexed: indexed)
        #expect(try Self.find(store, "法") == ["法師", "魔法使い", "法"])
        #expect(try Self.find(store, "師") == ["法師"])
        #expect(try Self.find(store, "法師") == ["法師"])
        #expect(try Self.find(store, "師法") == [])
        #expect(try Self.find(store, "京都") == ["東京都庁"])
        #expect(try Self.find(store, "使い") == ["魔法使い"])
        #expect(try Self.find(store, "ไทย") == ["ภาษาไทย"])
    }

    @Test(arguments: [true, false]) func querySyntaxIsSearchedForAsTextNeverRead(indexed: Bool) throws {
        let store = try Self.store(["say \"hi\"", "NEAR the end", "a*b", "x AND y", "(paren)", "it's", "col:umn", "^start"], indexed: indexed)
        #expect(try Self.find(store, "\"hi") == ["say \"hi\""])
        #expect(try Self.find(store, "NEAR") == ["NEAR the end"])
        #expect(try Self.find(store, "NEAR(the end)") == ["NEAR the end"])  // the words as a phrase, not NEAR's group
        #expect(try Self.find(store, "a*", prefix: false) == ["a*b"])  // `*` is no prefix operator
        #expect(try Self.find(store, "a*") == ["a*b", "x AND y"])  // the last word `a` as a prefix, of `and` too
        #expect(try Self.find(store, "x AND") == ["x AND y"])
        #expect(try Self.find(store, "x OR nothing") == [])
        #expect(try Self.find(store, "(paren") == ["(paren)"])
        #expect(try Self.find(store, "it's") == ["it's"])
        #expect(try Self.find(store, "col:umn") == ["col:umn"])
        #expect(try Self.find(store, "^start") == ["^start"])
        #expect(try Self.find(store, "' OR '1'='1") == [])
    }

    @Test(arguments: [true, false]) func inputThatCannotBeSearchedIsAClearError(indexed: Bool) throws {
        let store = try Self.store(["a"], indexed: indexed)
        for words in [
            "", "   ", "\"", "*", "-- ;", "a\u{0}b", String(repeating: "x", count: 10 * 1024 * 1024), Array(repeating: "w", count: 33).joined(separator: " "),
            String(repeating: "法", count: 33), Array(repeating: "w", count: 33).joined(separator: "-"),
        ] {
            do {
                _ = try store.findRows(RowSearch(titleWords: words))
                Issue.record("\(words.prefix(20)) was searched")
            } catch let error as ListStoreError {
                #expect(error.family == .invalidInput)
                #expect(!error.localizedDescription.contains("fts5"), "\(error)")
                #expect(!error.localizedDescription.contains("\n"))
            }
        }
        // A lone surrogate cannot be in a Swift string: decoding it gives U+FFFD, which is no letter.
        let lone = String(decoding: [0xED, 0xA0, 0x80] as [UInt8], as: UTF8.self)
        #expect(throws: ListStoreError.self) { try store.findRows(RowSearch(titleWords: lone)) }
    }

    @Test(arguments: [true, false]) func pagesCarryTheTotalAndFollowOneAnotherByCursor(indexed: Bool) throws {
        let store = try Self.store((0..<120).map { $0 % 3 == 0 ? "apple \($0)" : "pear \($0)" }, indexed: indexed)
        var seen: [String] = []
        var cursor: SearchCursor?
        repeat {
            let page = try RowSearchTests.expectPathsMatch(store, RowSearch(titleWords: "APP"), limit: 7, after: cursor)
            #expect(page.total == 40)
            seen += RowSearchTests.titles(page)
            cursor = page.next
        } while cursor != nil
        #expect(seen == (0..<120).filter { $0 % 3 == 0 }.map { "apple \($0)" })
        // With a second list, each list's search finds and counts its own rows only.
        let other = try store.addList(named: "other")
        try other.write { tx in try tx.insertRows(["apple pie", "pear"], intoSection: try tx.insertSection(title: "o")) }
        #expect(try store.findRows(RowSearch(titleWords: "apple"), limit: 1).total == 40)
        let page = try other.read { try $0.findRows(RowSearch(titleWords: "apple")) }
        #expect(page.total == 1 && page.results.map(\.row.title) == ["apple pie"])
        let combined = try store.findRows(RowSearch(titleWords: "pear", titleContains: "1"), limit: 100)
        #expect(combined.results.allSatisfy { $0.row.title.hasPrefix("pear") && $0.row.title.contains("1") })
        #expect(combined.total == combined.results.count)
    }

    @Test func displayOrderGoesSectionBySectionRowByRowAndPagesFromTheCursorsRow() throws {
        let store = try ListStore.inMemory()
        try store.addTitleIndex()
        let (first, _) = try store.insertSection(title: "first")
        let (second, _) = try store.insertSection(title: "second")
        try store.insertRows(["apple 1", "pear", "apple 2"], intoSection: second)
        try store.insertRows(["apple 3", "apple 4"], intoSection: first)
        _ = try store.moveRow(from: ListIndexPath(section: 0, row: 1), to: ListIndexPath(section: 0, row: 0))  // apple 4 first
        _ = try store.moveSection(from: 1, to: 0)  // second, then first
        var search = RowSearch(titleWords: "apple")
        search.inDisplayOrder = true
        let whole = try RowSearchTests.expectPathsMatch(store, search, limit: 50)
        #expect(RowSearchTests.titles(whole) == ["apple 1", "apple 2", "apple 4", "apple 3"])
        #expect(whole.results.map(\.indexPath) == [[0, 0], [0, 2], [1, 0], [1, 1]].map { ListIndexPath(section: $0[0], row: $0[1]) })
        #expect(whole.total == 4 && whole.next == nil)
        var seen: [String] = []
        var cursor: SearchCursor?
        repeat {
            let page = try RowSearchTests.expectPathsMatch(store, search, limit: 3, after: cursor)
            seen += RowSearchTests.titles(page)
            cursor = page.next
        } while cursor != nil
        #expect(seen == ["apple 1", "apple 2", "apple 4", "apple 3"])
        // The id order is still the default.
        #expect(try Self.find(store, "apple") == ["apple 1", "apple 2", "apple 3", "apple 4"])
        var byTextSearch = RowSearch(titleContains: "apple")
        byTextSearch.inDisplayOrder = true
        let byText = try store.findRows(byTextSearch).results.map(\.row.title)
        #expect(byText == ["apple 1", "apple 2", "apple 4", "apple 3"])
    }

    @Test func everyWritePathKeepsTheIndexInStepUndoRedoImportAndDeletes() throws {
        let store = try ListStore.inMemory()
        try store.addTitleIndex()
        let (section, _) = try store.insertSection(title: "s")
        let (ids, _) = try store.insertRows(["alpha", "beta"], intoSection: section)
        #expect(try Self.find(store, "alpha") == ["alpha"])
        _ = try store.updateRow(id: ids[0], title: "gamma")
        #expect(try Self.find(store, "alpha") == [])
        #expect(try Self.find(store, "gamma") == ["gamma"])
        try store.undo()
        #expect(try Self.find(store, "alpha") == ["alpha"])
        #expect(try Self.find(store, "gamma") == [])
        try store.redo()
        #expect(try Self.find(store, "gamma") == ["gamma"])
        _ = try store.deleteRows(ids: [ids[1]])
        #expect(try Self.find(store, "beta") == [])
        try store.undo()
        #expect(try Self.find(store, "beta") == ["beta"])
        _ = try store.deleteSections(ids: [section])
        #expect(try Self.find(store, "gamma") == [])
        try store.undo()
        #expect(try Self.find(store, "gamma beta") == [])
        #expect(try Self.find(store, "gamma") == ["gamma"])
        try store.importStream(replacing: true) { importer in
            try importer.addSection(title: "imported")
            try importer.addRow(title: "Zürich")
            try importer.addRow(title: "北京市")
        }
        #expect(try Self.find(store, "gamma") == [])
        #expect(try Self.find(store, "zurich") == ["Zürich"])
        #expect(try Self.find(store, "京") == ["北京市"])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aHandEditIsFoundBeforeTheNextWriteAndIndexedByIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("hand.sqlite")
        let store = try ListStore.open(at: path)
        try store.addTitleIndex()
        let (section, _) = try store.insertSection(title: "s")
        let (ids, _) = try store.insertRows(["Old title", "keep", "twice"], intoSection: section)
        do {
            let other = try Connection(path: path, mode: .readWrite)
            try other.run("UPDATE rows SET title = 'Nouvelle Église' WHERE id = ?1", [.integer(ids[0].rawValue)])
            try other.run("INSERT INTO rows (section_id, position, title) SELECT section_id, position + 1, 'Hand added' FROM rows WHERE id = ?1", [.integer(ids[1].rawValue)])
            try other.run("DELETE FROM rows WHERE title = 'keep'")
            // Changed twice: the note keeps the title the index holds (the first note wins).
            try other.run("UPDATE rows SET title = 'once' WHERE id = ?1", [.integer(ids[2].rawValue)])
            try other.run("UPDATE rows SET title = 'twice again' WHERE id = ?1", [.integer(ids[2].rawValue)])
        }
        #expect(try Self.find(store, "eglise") == ["Nouvelle Église"])
        #expect(try Self.find(store, "old") == [])
        #expect(try Self.find(store, "hand") == ["Hand added"])
        #expect(try Self.find(store, "keep") == [])
        #expect(try Self.find(store, "once") == [])
        #expect(try Self.find(store, "Église", accents: true) == ["Nouvelle Église"])
        #expect(try store.checkInvariants().isEmpty)
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 4)
        try store.insertRows(["after"], intoSection: section)  // the next write brings the noted rows' words up to date
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0)
        #expect(try Self.find(store, "eglise") == ["Nouvelle Église"])
        #expect(try Self.find(store, "hand") == ["Hand added"])
        #expect(try Self.find(store, "twice") == ["twice again"])
        #expect(try Self.find(store, "old") == [])
        #expect(try Self.find(store, "keep") == [])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aFileWithoutTheIndexIsSearchedTitleByTitleAndItsEditsNoteNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("plain.sqlite")
        let store = try ListStore.open(at: path)
        let (section, _) = try store.insertSection(title: "s")
        let (ids, _) = try store.insertRows(["Straße", "法師", "other"], intoSection: section)
        _ = try store.updateRow(id: ids[2], title: "autre")
        _ = try store.deleteRows(ids: [ids[2]])
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try !store.hasTitleIndex())
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0)
        #expect(try Self.find(store, "strasse") == ["Straße"])
        #expect(try Self.find(store, "師") == ["法師"])
        // Added: built from every row in one write; added again: nothing done.
        #expect(try store.addTitleIndex())
        #expect(try !store.addTitleIndex())
        #expect(try store.hasTitleIndex())
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_title_words WHERE liststore_title_words MATCH '\"strasse\"'") == 1)
        #expect(try Self.find(store, "strasse") == ["Straße"])
        #expect(try store.checkInvariants().isEmpty)
        // Removed: the table goes, edits note nothing again, searches read the titles.
        #expect(try store.removeTitleIndex())
        #expect(try !store.removeTitleIndex())
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'liststore_title_words%'") == 0)
        _ = try store.updateRow(id: ids[0], title: "Strasse 2")
        #expect(try db.scalarInt("SELECT count(*) FROM liststore_payload_stale") == 0)
        #expect(try Self.find(store, "straße") == ["Strasse 2"])
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Another program that drops and redefines `liststore_title_words` (a plain table, another tokenizer) or
    /// damages its shadow tables: searches judge the titles meanwhile, ListStore's writes go on, `check`
    /// names it, and `repair` makes the index again from its own definition.
    @Test(arguments: [
        "DROP TABLE liststore_title_words; CREATE TABLE liststore_title_words (x)",
        "DROP TABLE liststore_title_words; CREATE VIRTUAL TABLE liststore_title_words USING fts5 (title, content = 'rows', content_rowid = 'id', tokenize = 'porter ascii'); INSERT INTO liststore_title_words (liststore_title_words) VALUES ('rebuild')",
    ])
    func anIndexAnotherProgramRedefinedOrDamagedIsFoundAndMadeAgain(_ sql: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("redefined.sqlite")
        let store = try ListStore.open(at: path)
        try store.addTitleIndex()
        let (section, _) = try store.insertSection(title: "s")
        try store.insertRows(["Café crème", "Straße", "法師"] + (0..<300).map { "row \($0)" }, intoSection: section)
        try Shell.run(sql, on: path)
        #expect(try Self.find(store, "cafe") == ["Café crème"])
        try store.insertRow("café noir", intoSection: section)
        #expect(try Self.find(store, "cafe") == ["Café crème", "café noir"])
        let problems = try store.checkInvariants()
        #expect(problems.count == 1 && problems.allSatisfy { $0.description.hasPrefix("title index: ") && !$0.description.contains("\n") }, "\(problems)")
        #expect(try store.repair().fixes.count == 1)
        #expect(try store.hasTitleIndex())
        #expect(try store.checkInvariants().isEmpty)
        #expect(try Self.find(store, "strasse") == ["Straße"])
        #expect(try Self.find(store, "師") == ["法師"])
    }

    /// Shadow tables another program damaged: `check` names the index (not the file) and `repair` makes it
    /// again; a search or a write before the repair fails as on damage, in one line.
    @Test func anIndexWhoseTablesAnotherProgramDamagedIsMadeAgainByRepair() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try ListStore.open(at: path)
        try store.addTitleIndex()
        let (section, _) = try store.insertSection(title: "s")
        try store.insertRows(["Café crème", "Straße"] + (0..<300).map { "row \($0)" }, intoSection: section)
        try Shell.run("DELETE FROM liststore_title_words_data WHERE id > 10", on: path)
        let problems = try store.checkInvariants()
        #expect(problems.count == 1 && problems.allSatisfy { $0.description.hasPrefix("title index: ") }, "\(problems)")
        #expect(try store.repair().fixes.count == 1)
        #expect(try store.checkInvariants().isEmpty)
        #expect(try Self.find(store, "cafe") == ["Café crème"])
    }

    @Test func aPayloadIndexAndTheTitleIndexShareTheNotesAndStayTrue() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("both.sqlite")
        let store = try ListStore.open(at: path)
        let (section, _) = try store.insertSection(title: "s")
        let (ids, _) = try store.insertRows(["alpha", "beta"].map { NewRow(title: $0, payload: #"{"city":"Lyon"}"#) }, intoSection: section)
        try store.addPayloadIndex(on: PayloadField("city"))
        try store.addTitleIndex()
        _ = try store.updateRow(id: ids[0], title: "gamma", payload: .set(#"{"city":"Paris"}"#))
        do {
            let other = try Connection(path: path, mode: .readWrite)
            try other.run("UPDATE rows SET title = 'delta' WHERE id = ?1", [.integer(ids[1].rawValue)])
        }
        try store.removePayloadIndex(on: PayloadField("city"))  // the notes stay for the index of titles
        #expect(try Self.find(store, "delta") == ["delta"])
        try store.insertRows(["epsilon"], intoSection: section)
        #expect(try Self.find(store, "delta") == ["delta"])
        #expect(try Self.find(store, "beta") == [])
        #expect(try Self.find(store, "gamma") == ["gamma"])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func checkFindsAnIndexOutOfStepAndRepairRebuildsIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try ListStore.open(at: path)
        try store.addTitleIndex()
        let (section, _) = try store.insertSection(title: "s")
        try store.insertRows(["one", "two", "three", "法師"], intoSection: section)
        do {
            let other = try Connection(path: path, mode: .readWrite)
            try other.disableTriggers()
            try other.run("UPDATE rows SET title = 'changed' WHERE title = 'two'")
            try other.run("DELETE FROM rows WHERE title = 'three'")
        }
        let problems = try store.checkInvariants().map(\.description).filter { $0.hasPrefix("title index") }
        #expect(problems.count == 1 && problems[0].contains("1 row differ") && problems[0].contains("words of 1 row that no longer exist"), "\(problems)")
        _ = try store.repair()
        #expect(try store.checkInvariants().isEmpty)
        #expect(try Self.find(store, "changed") == ["changed"])
        #expect(try Self.find(store, "two") == [])
        #expect(try Self.find(store, "師") == ["法師"])
    }
}

extension TitleWordSearchTests {
    @Test func checkReadsTheIndexOfAFileOpenedToInspect() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("inspect.sqlite")
        do {
            let store = try ListStore.open(at: path)
            try store.addTitleIndex()
            try store.insertRows(["one", "法師"], intoSection: try store.insertSection(title: "s").id)
        }
        #expect(try ListStore.open(at: path, mode: .inspect).checkInvariants().isEmpty)
        #expect(try ListStore.open(at: path, mode: .readOnly).checkInvariants().isEmpty)
    }
}
