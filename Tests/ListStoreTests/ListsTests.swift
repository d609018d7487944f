import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// Several named lists in one file (issue 19, item 2): isolation of index paths and change sets, moves
/// between lists in one transaction, observers per list, list management and its errors, check and repair.
@Suite struct ListsTests {
    /// A store with the default list (sections A, B) and a list "Work" (section W), each with rows.
    static func twoLists() throws -> (store: ListStore, work: ListStore) {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "A")
        try store.insertSection(title: "B")
        try store.insertRows(["a0", "a1", "a2"], intoSection: 0)
        try store.insertRows(["b0"], intoSection: 1)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        try work.insertRows(["w0", "w1"], intoSection: 0)
        return (store, work)
    }

    @Test func eachListHasItsOwnIndexPathsAndTheStoreActsOnTheDefaultList() throws {
        let (store, work) = try Self.twoLists()
        #expect(try store.snapshot().titles == [["a0", "a1", "a2"], ["b0"]])
        #expect(try work.snapshot().titles == [["w0", "w1"]])
        #expect(try work.row(at: ListIndexPath(section: 0, row: 1)).title == "w1")
        #expect(try work.sectionCount() == 1)
        #expect(try store.sectionCount() == 2)
        #expect(try work.totalRowCount() == 2)
        #expect(try store.totalRowCount() == 4)
        #expect(try store.listName() == ListStore.defaultListName)
        #expect(try work.listName() == "Work")
        #expect(try store.lists().map(\.name) == [ListStore.defaultListName, "Work"])
        #expect(try store.lists().map(\.sectionCount) == [2, 1])
        #expect(try store.lists().map(\.rowCount) == [4, 2])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func editsInOneListNeverChangeAnothersIndexPathsOrChangeSets() throws {
        let (store, work) = try Self.twoLists()
        let before = try store.snapshot()
        var random = SeededGenerator(seed: 19_002)
        for step in 0..<200 {
            let changes: ChangeSet
            let count = try work.rowCount(inSection: 0)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: changes = try work.insertRows(["n\(step)"], intoSection: 0, at: Int.random(in: 0...count, using: &random)).changes
            case 1 where count > 0: changes = try work.deleteRows(at: [ListIndexPath(section: 0, row: Int.random(in: 0..<count, using: &random))])
            case 2 where count > 1:
                changes = try work.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: count - 1))
            default: changes = try work.insertSection(title: "S\(step)", at: 0).changes
            }
            // The change set is in Work's coordinates: Work's sections only.
            let workSections = try work.sectionCount()
            #expect(changes.insertedRows.allSatisfy { $0.indexPath.section < workSections })
            #expect(try store.snapshot().sections == before.sections, "step \(step)")
        }
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aRowMovesToAnotherListInOneTransactionWithEachListsChangeSet() throws {
        let (store, work) = try Self.twoLists()
        let a1 = try store.row(at: ListIndexPath(section: 0, row: 1))
        let moved = try store.transferRow(id: a1.id, toList: "Work", section: 0, at: 1)
        #expect(moved.source.deletedRows == [.init(indexPath: ListIndexPath(section: 0, row: 1), id: a1.id)])
        #expect(moved.source.insertedRows.isEmpty)
        #expect(moved.target.insertedRows == [.init(indexPath: ListIndexPath(section: 0, row: 1), row: a1)])
        #expect(moved.target.deletedRows.isEmpty)
        #expect(try store.snapshot().titles == [["a0", "a2"], ["b0"]])
        #expect(try work.snapshot().titles == [["w0", "a1", "w1"]])
        #expect(try work.row(id: a1.id) == a1)  // same id, title and payload
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aSectionMovesToAnotherListWithItsRows() throws {
        let (store, work) = try Self.twoLists()
        let a = try store.section(at: 0)
        let moved = try store.transferSection(id: a.id, toList: "Work", at: 0)
        #expect(moved.source.deletedSections == [.init(index: 0, id: a.id)])
        #expect(moved.target.insertedSections.map(\.index) == [0])
        #expect(moved.target.insertedSections.first?.section.rows.map(\.title) == ["a0", "a1", "a2"])
        #expect(try store.snapshot().titles == [["b0"]])
        #expect(try work.snapshot().titles == [["a0", "a1", "a2"], ["w0", "w1"]])
        #expect(try store.section(at: 0).title == "B")  // the default list's sections are dense again
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aMoveThatFailsLeavesBothListsAsTheyWere() throws {
        let (store, work) = try Self.twoLists()
        let (before, workBefore) = (try store.snapshot(), try work.snapshot())
        let a1 = try store.row(at: ListIndexPath(section: 0, row: 1)).id
        #expect(throws: ListStoreError.rowDestinationOutOfRange(ListIndexPath(section: 0, row: 9), maxRow: 2)) {
            try store.transferRow(id: a1, toList: "Work", section: 0, at: 9)
        }
        #expect(throws: ListStoreError.sectionIndexOutOfRange(index: 4, sectionCount: 1)) { try store.transferRow(id: a1, toList: "Work", section: 4) }
        #expect(throws: ListStoreError.unknownList("Nope")) { try store.transferRow(id: a1, toList: "Nope", section: 0) }
        let w0 = try work.row(at: ListIndexPath(section: 0, row: 0)).id
        #expect(throws: ListStoreError.rowInAnotherList(w0, list: "Work")) { try store.transferRow(id: w0, toList: "Work", section: 0) }
        #expect(throws: ListStoreError.sectionInsertionIndexOutOfRange(index: 3, sectionCount: 1)) {
            try store.transferSection(id: try store.section(at: 0).id, toList: "Work", at: 3)
        }
        #expect(try store.snapshot().sections == before.sections)
        #expect(try work.snapshot().sections == workBefore.sections)
        // The same moves without the bad input succeed.
        try store.transferRow(id: a1, toList: "Work", section: 0)
        #expect(try work.snapshot().titles == [["w0", "w1", "a1"]])
    }

    @Test func idsOfAnotherListAreRefusedNamingThatList() throws {
        let (store, work) = try Self.twoLists()
        let w0 = try work.row(at: ListIndexPath(section: 0, row: 0)).id
        let w = try work.section(at: 0).id
        #expect(throws: ListStoreError.rowInAnotherList(w0, list: "Work")) { try store.deleteRows(ids: [w0]) }
        #expect(throws: ListStoreError.rowInAnotherList(w0, list: "Work")) { try store.row(id: w0) }
        #expect(throws: ListStoreError.rowInAnotherList(w0, list: "Work")) { try store.moveRow(id: w0, to: ListIndexPath(section: 0, row: 0)) }
        #expect(throws: ListStoreError.sectionInAnotherList(w, list: "Work")) { try store.renameSection(id: w, to: "x") }
        #expect(throws: ListStoreError.sectionInAnotherList(w, list: "Work")) { try store.section(id: w) }
        #expect(try store.indexPath(of: w0) == nil)  // not in this list
        #expect(try work.snapshot().titles == [["w0", "w1"]])
        // The same calls on the list the ids belong to work.
        try work.deleteRows(ids: [w0])
        #expect(try work.snapshot().titles == [["w1"]])
    }

    @Test func listsAreAddedRenamedReorderedAndDeletedWithTheirSectionsAndRows() throws {
        let (store, work) = try Self.twoLists()
        try store.addList(named: "First", at: 0)
        #expect(try store.lists().map(\.name) == ["First", ListStore.defaultListName, "Work"])
        try store.renameList(named: "Work", to: "Office")
        #expect(try work.listName() == "Office")  // the handle follows the list
        try store.moveList(named: "Office", to: 0)
        #expect(try store.lists().map(\.name) == ["Office", "First", ListStore.defaultListName])
        #expect(try store.lists().map(\.index) == [0, 1, 2])
        let deleted = try store.deleteList(named: "Office")
        #expect(deleted.deletedSections.count == 1)
        #expect(try store.lists().map(\.name) == ["First", ListStore.defaultListName])
        #expect(try store.snapshot().titles == [["a0", "a1", "a2"], ["b0"]])
        let db = try store.withLockedConnection { db in try db.scalarInt("SELECT count(*) FROM rows") }
        #expect(db == 4)  // Work's rows went with it
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func badListInputIsAOneLineErrorAndChangesNothing() throws {
        let (store, _) = try Self.twoLists()
        let before = try store.lists()
        let failures: [(ListStoreError, () throws -> Void)] = [
            (.unknownList("Nope"), { _ = try store.list(named: "Nope") }),
            (.duplicateListName("Work"), { try store.addList(named: "Work") }),
            (.invalidListName("", reason: "a list name cannot be empty"), { try store.addList(named: "") }),
            (.duplicateListName("Work"), { try store.renameList(named: ListStore.defaultListName, to: "Work") }),
            (.cannotDeleteDefaultList(ListStore.defaultListName), { try store.deleteList(named: ListStore.defaultListName) }),
            (.listIndexOutOfRange(index: 5, listCount: 2), { try store.moveList(named: "Work", to: 5) }),
            (.listIndexOutOfRange(index: 7, listCount: 3), { try store.addList(named: "X", at: 7) }),
            (.unknownList("Nope"), { try store.deleteList(named: "Nope") }),
        ]
        for (expected, call) in failures {
            #expect(throws: expected) { try call() }
            #expect(!expected.description.contains("\n"))
            #expect(try store.lists() == before)
        }
        #expect(try store.addList(named: "Ok").listName() == "Ok")
    }

    /// A list name is one name only byte for byte, as the file's `UNIQUE` and ``ListStore/list(named:)``
    /// have it: "café" with "é" as one scalar and with "e" and U+0301, which Swift's `==` takes for one
    /// string, are two lists — added, found and imported as two, each refused again only as itself.
    @Test func listNamesAreComparedByteForByteNotByCanonicalEquivalence() throws {
        let store = try ListStore.inMemory()
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        let first = try store.addList(named: composed)
        try first.insertSection(title: "composed")
        let second = try store.addList(named: decomposed)
        try second.insertSection(title: "decomposed")
        #expect(try store.list(named: composed).snapshot().sections.map(\.title) == ["composed"])
        #expect(try store.list(named: decomposed).snapshot().sections.map(\.title) == ["decomposed"])
        #expect(throws: ListStoreError.duplicateListName(decomposed)) { try store.addList(named: decomposed) }
        try store.importLists(named: [decomposed, composed], replacing: true) { index, importer in
            try importer.addSection(title: "imported \(index)")
        }
        #expect(try store.list(named: decomposed).snapshot().sections.map(\.title) == ["imported 0"])
        #expect(try store.list(named: composed).snapshot().sections.map(\.title) == ["imported 1"])
        #expect(throws: ListStoreError.duplicateListName(composed)) {
            try store.importLists(named: [composed, "other", composed]) { _, _ in }
        }
        #expect(try store.lists().count == 3)
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aListHandleSharesTheStoresConnectionsAndHub() throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("shared.sqlite"))
        let work = try store.addList(named: "Work")
        let again = try store.list(named: "Work")
        #expect(work.hub === store.hub && again.hub === store.hub)
        #expect(try store.list(named: ListStore.defaultListName) === store)
        #expect(work.defaultList.listID == store.listID)
        // A call from inside another handle's closure is the same store's lock: refused, not a deadlock.
        #expect(throws: ListStoreError.reentrantCall) { try store.write { _ in _ = try work.sectionCount() } }
    }

    @Test func observersOfOneListAreNotWokenByAnothersChanges() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("observed.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        // Observed from this store (its own commits) and from a second store on the file (the poller).
        var mine = store.observeWithoutSnapshots(includingOtherConnections: false).makeAsyncIterator()
        let other = try ListStore.open(at: path)
        var polled = other.observeWithoutSnapshots(pollInterval: .milliseconds(5)).makeAsyncIterator()
        var workOwn = work.observe(includingOtherConnections: false).makeAsyncIterator()
        guard case .started = try await nextElement(&mine), case .started = try await nextElement(&polled),
            case .initial(let initial) = try await nextElement(&workOwn)
        else {
            Issue.record("no start")
            return
        }
        #expect(initial.titles == [[]])
        for step in 0..<5 { try work.insertRow("w\(step)", intoSection: 0) }
        try other.deliverChangesFromOtherConnections()
        try store.insertRow("a0", intoSection: 0)
        // The default list's observers get exactly the one change of their list, after Work's five.
        guard case .changes(let own) = try await nextElement(&mine), case .changes(let seen) = try await nextElement(&polled) else {
            Issue.record("no change")
            return
        }
        #expect(own.insertedRows.map(\.row.title) == ["a0"])
        #expect(seen.insertedRows.map(\.row.title) == ["a0"])
        // Work's observer got its five, one each, and not the default list's.
        var titles: [String] = []
        for _ in 0..<5 {
            guard case .changes(let changes) = try await nextElement(&workOwn) else { break }
            titles += changes.insertedRows.map(\.row.title)
        }
        #expect(titles == ["w0", "w1", "w2", "w3", "w4"])
        try work.insertRow("w5", intoSection: 0)
        guard case .changes(let next) = try await nextElement(&workOwn) else {
            Issue.record("no change")
            return
        }
        #expect(next.insertedRows.map(\.row.title) == ["w5"])
    }

    @Test func aMoveBetweenListsReachesObserversOfBothInOtherProcessesToo() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("moved.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        let a0 = try store.insertRow("a0", intoSection: 0).id
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        let other = try ListStore.open(at: path)
        var source = other.observe(pollInterval: .milliseconds(5)).makeAsyncIterator()
        var target = try other.list(named: "Work").observe(pollInterval: .milliseconds(5)).makeAsyncIterator()
        guard case .initial(var sourceState) = try await nextElement(&source), case .initial(var targetState) = try await nextElement(&target) else {
            Issue.record("no start")
            return
        }
        try store.transferRow(id: a0, toList: "Work", section: 0)
        let (first, second) = (try await nextElement(&source), try await nextElement(&target))
        guard case .changes(let out) = first, case .changes(let into) = second else {
            Issue.record("a reset instead of change sets (the log entry of the move was not trusted): \(String(describing: first)), \(String(describing: second))")
            return
        }
        try sourceState.apply(out)
        try targetState.apply(into)
        #expect(sourceState.titles == [[]])
        #expect(targetState.titles == [["a0"]])
        #expect(try work.snapshot().sections == targetState.sections)
    }
}

/// Hand edits (the `sqlite3` shell, another program) of a file with several lists: a title changed by
/// hand reaches only its list's observers; an edit the log cannot attribute resets every list's; check
/// and repair know lists.
@Suite struct ListsHandEditTests {
    @Test func aHandEditOfATitleReachesItsListOnlyAndAnUnattributedOneResetsEveryList() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("hand.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        try store.insertRow("a0", intoSection: 0)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        let w0 = try work.insertRow("w0", intoSection: 0).id
        var main = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        var office = work.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        _ = try await nextElement(&main)
        _ = try await nextElement(&office)
        let shell = try Connection(path: path, mode: .readWrite)
        try shell.run("UPDATE rows SET title = 'by hand' WHERE id = ?1", [.integer(w0.rawValue)])
        try store.deliverChangesFromOtherConnections()
        guard case .changes(let changes) = try await nextElement(&office) else {
            Issue.record("no change set for Work")
            return
        }
        #expect(changes.updatedRows.map(\.row.title) == ["by hand"])
        // A row inserted by hand: the log cannot say which list it touched, so every list reads afresh.
        try shell.executeScript("INSERT INTO rows (section_id, position, title) SELECT id, 5 * 1048576, 'inserted' FROM sections WHERE title = 'W'")
        try store.deliverChangesFromOtherConnections()
        // The default list's observer was not woken by the title edit: its next element is the reset.
        guard case .reset(let mainState) = try await nextElement(&main), case .reset(let officeState) = try await nextElement(&office) else {
            Issue.record("no reset")
            return
        }
        #expect(mainState.sections.map { $0.rows.map(\.title) } == [["a0"]])
        #expect(officeState.sections.map { $0.rows.map(\.title) } == [["by hand", "inserted"]])
    }

    @Test func checkAndRepairKnowLists() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        try work.insertRow("w0", intoSection: 0)
        try work.insertSection(title: "W2")
        #expect(try store.checkInvariants().isEmpty)
        // With foreign keys off (the shell's default) a list deleted by hand leaves its sections behind,
        // and a section position changed by hand leaves a gap in one list only.
        let shell = try Connection(path: path, mode: .readWrite)
        try shell.executeScript("PRAGMA foreign_keys = OFF; UPDATE sections SET position = 5 WHERE title = 'W2'")
        let gap = try store.checkInvariants().map(\.description)
        #expect(gap.contains { $0.contains("section positions of list \"Work\" are not 0…1") }, "\(gap)")
        try shell.executeScript("PRAGMA foreign_keys = OFF; DELETE FROM lists WHERE name = 'Work'")
        let problems = try store.checkInvariants().map(\.description)
        #expect(problems.contains("2 sections belong to a list that does not exist (deleted outside ListStore)"), "\(problems)")
        let report = try store.repair()
        #expect(report.fixes.contains("sections: moved 2 sections of lists deleted outside ListStore to the end of the default list"), "\(report.fixes)")
        #expect(try store.checkInvariants().isEmpty)
        #expect(try store.snapshot().sections.map(\.title) == ["A", "W", "W2"])
        #expect(try store.snapshot().sections.map { $0.rows.map(\.title) } == [[], ["w0"], []])
    }

    /// Two lists, G and E, each with a section of rows; E observed (polling fast).
    static func observedLists(_ folder: TemporaryDirectory) throws -> (path: String, g: ListStore, e: ListStore, gRows: [RowID]) {
        let path = folder.path("hand.sqlite")
        let store = try ListStore.open(at: path, author: "App")
        let g = try store.addList(named: "G")
        let e = try store.addList(named: "E")
        let (gRows, _) = try g.insertRows(["Apples", "Pears"], intoSection: try g.insertSection(title: "Fruit").id)
        try e.insertRows(["Post"], intoSection: try e.insertSection(title: "Today").id)
        return (path, g, e, gRows)
    }

    /// A hand edit of a title in G: E's observer gets only its own change.
    @Test func aHandRenameInOneListDoesNotWakeAnotherListsObserver() async throws {
        let folder = try TemporaryDirectory()
        let (path, _, e, gRows) = try Self.observedLists(folder)
        var observed = e.observe(pollInterval: .milliseconds(10)).makeAsyncIterator()
        guard case .initial = try await nextElement(&observed, timeout: .seconds(20)) else {
            Issue.record("no initial state")
            return
        }
        try Shell.run("UPDATE rows SET title = 'Green apples' WHERE id = \(gRows[0].rawValue)", on: path)
        try e.deliverChangesFromOtherConnections()
        try e.insertRow("after", intoSection: 0)
        let next = try await nextElement(&observed, timeout: .seconds(20))
        guard case .changes(let changes) = next else {
            Issue.record("list E's observer got \(String(describing: next))")
            return
        }
        #expect(changes.insertedRows.map(\.row.title) == ["after"])
    }
}

extension ListsTests {
    @Test func aHandleOnADeletedListRefusesEditsAndChangesNothing() throws {
        let (store, work) = try Self.twoLists()
        try store.deleteList(named: "Work")
        let before = try store.snapshot()
        #expect(throws: ListStoreError.listDeleted(listID: work.listID)) { try work.insertSection(title: "x") }
        #expect(throws: ListStoreError.listDeleted(listID: work.listID)) { try work.listName() }
        #expect(try store.snapshot().sections == before.sections)
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Failed before the fix (found by a new user's trial): a handle on a list deleted since read as an empty list — `snapshot()`,
    /// `sectionCount()`, `sections()` return nothing and no error — while `listName()` and every edit
    /// throw `unknownList`. An app showing that handle draws an empty list instead of learning it is gone.
    @Test func readsOnAHandleOfADeletedListThrow() throws {
        let pair = try UndoKeepsOtherAuthorsEditsTests.Pair()
        let tmp = try pair.app.addList(named: "Tmp")
        try tmp.insertRows(["a", "b"], intoSection: try tmp.insertSection(title: "S").id)
        try pair.app.deleteList(named: "Tmp")
        #expect(throws: ListStoreError.self) { try tmp.listName() }
        #expect(throws: ListStoreError.self) { try tmp.snapshot() }
        #expect(throws: ListStoreError.self) { try tmp.sectionCount() }
    }

    /// Without the deletion, the same reads on a handle work.
    @Test func readsOnAHandleOfALiveList() throws {
        let pair = try UndoKeepsOtherAuthorsEditsTests.Pair()
        let tmp = try pair.app.addList(named: "Tmp")
        try tmp.insertRows(["a", "b"], intoSection: try tmp.insertSection(title: "S").id)
        #expect(try tmp.snapshot().rowCount == 2)
        #expect(try tmp.sectionCount() == 1)
    }
}
