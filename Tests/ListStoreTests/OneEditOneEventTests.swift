import Foundation
import SQLiteLayer
import StoreShorthands
import TestSupport
import Testing

@testable import ListStore

/// One edit, one description (issue 33): every edit primitive describes what it did once, as a
/// ``ListEdit``, and its change set, its change-log events and its history step are derived from that.
/// So for every kind of edit the change set the caller gets, the one an observer on another connection
/// rebuilds from the change log, and what undo (and redo) restores agree; every edit is recorded once;
/// and no primitive writes rows or sections, or builds a description, of its own.
@Suite struct OneEditOneEventTests {
    /// A store on a fresh file and a second connection on it, reading the change log as an observer in
    /// another process does; the folder lives as long as the fixture.
    struct Fixture {
        let folder: TemporaryDirectory
        let store: ListStore
        let observer: Connection

        init() throws {
            folder = try TemporaryDirectory()
            let path = folder.path("edits.sqlite")
            store = try ListStore.open(at: path)
            observer = try Connection(path: path, mode: .readWrite)
            try store.write { tx in
                let a = try tx.insertSection(title: "A")
                try tx.insertRows(["a0", NewRow(title: "a1", payload: #"{"n":1}"#), "a2", "a3"], intoSection: a)
                let b = try tx.insertSection(title: "B")
                try tx.insertRows(["b0", "b1"], intoSection: b)
                try tx.insertSection(title: "C")
            }
        }

        /// The change log's head as the observer's connection sees it now.
        func head() throws -> LogHead { try observer.readTransaction { try LogHead.read(observer) } }

        /// Each list's change set, rebuilt from the change log entries after `head` as observers rebuild it.
        func logged(since head: LogHead) throws -> [Int64: ChangeSet] {
            try observer.readTransaction {
                let now = try LogHead.read(observer)
                let logged = try #require(try ChangeLog.changes(after: head.lastSequence, ceilings: head.ceilings, head: now, observer))
                #expect(logged.resets.isEmpty, "an edit's entry is replayable, not a reset")
                return logged.lists.mapValues(Self.unversioned)
            }
        }

        static func unversioned(_ changes: ChangeSet) -> ChangeSet {
            var copy = changes
            copy.version = .unversioned
            return copy
        }

        /// The change set `write` (an undo, a redo) returned: it is the one the log gives, and replays from
        /// `old` to the store's state now, as UIKit replays it.
        func expectAgreement(_ changes: ChangeSet, since head: LogHead, from old: ListSnapshot, _ what: String) throws -> ListSnapshot {
            let now = try store.snapshot()
            #expect(try logged(since: head)[store.listID] == Self.unversioned(changes), "\(what): the log rebuilds another change set")
            #expect(try old.applying(changes).sections == now.sections, "\(what): the change set does not lead to the state")
            try UIKitReplay.check(changes, from: old, to: now)
            return now
        }

        /// Runs `edit` in a write, expecting it to be recorded once, with `events` change-log events and
        /// `steps` history steps (one per section an edit of rows touches); then checks
        /// its change set against the log and the states, undoes it (back to the state before) and redoes
        /// it (the state after), each checked the same way.
        func check(_ what: String, events: Int = 1, steps: Int = 1, _ edit: (ListTransaction) throws -> Void) throws {
            let before = try store.snapshot()
            var head = try self.head()
            let (_, changes) = try store.write { tx in
                let (edits, logged, kept) = (tx.editCount, tx.events.count, tx.history?.steps.count)
                try edit(tx)
                #expect(tx.editCount == edits + 1, "\(what): recorded \(tx.editCount - edits) times")
                #expect(tx.events.count == logged + events, "\(what): logged \(tx.events.count - logged) events")
                #expect(kept.map { tx.history?.steps.count == $0 + steps } ?? false, "\(what): kept another number of history steps")
            }
            #expect(!changes.isEmpty, "\(what) changed nothing")
            let after = try expectAgreement(changes, since: head, from: before, what)

            head = try self.head()
            let undone = try store.undo()
            let restored = try expectAgreement(undone, since: head, from: after, "undo of \(what)")
            #expect(restored.sections == before.sections, "undo of \(what) does not restore the state before it")

            head = try self.head()
            let redone = try store.redo()
            let again = try expectAgreement(redone, since: head, from: restored, "redo of \(what)")
            #expect(again.sections == after.sections, "redo of \(what) does not give the state after it")
            try store.undo()
        }

        func id(_ section: Int, _ row: Int) throws -> RowID { try store.snapshot().sections[section].rows[row].id }
        func sectionID(_ index: Int) throws -> SectionID { try store.snapshot().sections[index].id }
    }

    @Test func everyKindOfEditAgreesWithItsLogAndItsUndo() throws {
        let f = try Fixture()
        let (a1, a2, a3, b0) = (try f.id(0, 1), try f.id(0, 2), try f.id(0, 3), try f.id(1, 0))
        let (b, c) = (try f.sectionID(1), try f.sectionID(2))
        try f.check("insert rows") { try $0.insertRows(["n0", "n1"], intoSection: 1, at: 1) }
        try f.check("insert rows at the end") { try $0.insertRows(["n0"], intoSection: 0) }
        try f.check("insert into an empty section") { try $0.insertRows(["c0"], intoSection: c) }
        try f.check("insert more rows than history keeps values of") {
            try $0.insertRows((0..<(HistoryCapture.insertValuesKept + RowWriter.rowsPerStatement + 3)).map { NewRow(title: "m\($0)") }, intoSection: 0, at: 2)
        }
        try f.check("insert before a row") { try $0.insertRows(["x"], before: a2) }
        try f.check("insert after a row") { try $0.insertRows(["y"], after: a2) }
        try f.check("append to every section", events: 3, steps: 3) { try $0.appendRowToEverySection(NewRow(title: "all", payload: "[1]")) }
        try f.check("update a row") { try $0.updateRow(id: a1, title: "A1", payload: .remove) }
        try f.check("update a payload") { try $0.updateRow(at: ListIndexPath(section: 0, row: 0), payload: .set(#"{"k":2}"#)) }
        try f.check("move a row down its section") { try $0.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: 3)) }
        try f.check("move a row up its section") { try $0.moveRow(id: a3, before: a1) }
        try f.check("move a row to another section") { try $0.moveRow(id: a1, toSection: c, at: 0) }
        try f.check("move a row next to one in another section") { try $0.moveRow(id: b0, after: a2) }
        try f.check("delete rows of two sections", steps: 2) {
            try $0.deleteRows(at: [ListIndexPath(section: 1, row: 1), ListIndexPath(section: 0, row: 2), ListIndexPath(section: 0, row: 0)])
        }
        try f.check("delete rows by id", steps: 2) { try $0.deleteRows(ids: [b0, a3]) }
        try f.check("insert a section") { try $0.insertSection(title: "D", at: 1) }
        try f.check("rename a section") { try $0.renameSection(at: 0, to: "Alpha") }
        try f.check("move a section") { try $0.moveSection(from: 0, to: 2) }
        try f.check("delete sections with their rows") { try $0.deleteSections(at: [2, 0]) }
        try f.check("delete a section by id") { try $0.deleteSections(ids: [b]) }
    }

    /// Several edits in one transaction: each recorded once, the whole transaction's change set (built by
    /// the tracker from the edits' events) the one the log gives, and one undo takes all of them back.
    @Test func aTransactionOfRandomEditsRecordsEachOnceAndAgrees() throws {
        var random = SeededGenerator(seed: 33)
        let f = try Fixture()
        for round in 0..<12 {
            let before = try f.store.snapshot()
            let head = try f.head()
            let (count, changes) = try f.store.write { tx -> Int in
                var recorded = 0
                for _ in 0..<Int.random(in: 2...6, using: &random) {
                    let edits = tx.editCount
                    guard try Self.randomEdit(tx, &random) else { continue }
                    #expect(tx.editCount == edits + 1, "seed \(random.seed), round \(round): one edit recorded \(tx.editCount - edits) times")
                    recorded += 1
                }
                return recorded
            }
            guard count > 0 else { continue }
            let after = try f.expectAgreement(changes, since: head, from: before, "seed \(random.seed), round \(round)")
            let undoHead = try f.head()
            let undone = try f.store.undo()
            let restored = try f.expectAgreement(undone, since: undoHead, from: after, "seed \(random.seed), round \(round): undo")
            #expect(restored.sections == before.sections)
            try f.store.redo()
        }
    }

    /// One random edit that changes something (false when the store has nothing it could change).
    static func randomEdit(_ tx: ListTransaction, _ random: inout SeededGenerator) throws -> Bool {
        let sections = try tx.snapshot().sections
        let paths = sections.enumerated().flatMap { s, section in section.rows.indices.map { ListIndexPath(section: s, row: $0) } }
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            try tx.insertSection(title: "s\(random.next() % 100)", at: Int.random(in: 0...sections.count, using: &random))
        case 1 where !sections.isEmpty:
            let s = Int.random(in: 0..<sections.count, using: &random)
            let rows = (0..<Int.random(in: 1...20, using: &random)).map { NewRow(title: "r\($0)") }
            try tx.insertRows(rows, intoSection: s, at: Int.random(in: 0...sections[s].rows.count, using: &random))
        case 2 where !paths.isEmpty:
            try tx.deleteRows(at: Array(Set((0..<3).compactMap { _ in paths.randomElement(using: &random) })).sorted())
        case 3 where paths.count > 1:
            guard let from = paths.randomElement(using: &random), let to = paths.randomElement(using: &random), from != to else { return false }
            try tx.moveRow(from: from, to: to)
        case 4 where !paths.isEmpty:
            guard let path = paths.randomElement(using: &random) else { return false }
            try tx.updateRow(at: path, title: "u\(random.next())")
        case 5 where sections.count > 1:
            try tx.moveSection(from: 0, to: sections.count - 1)
        case 6 where sections.count > 2:
            try tx.deleteSections(at: [Int.random(in: 0..<sections.count, using: &random)])
        default:
            return false
        }
        return true
    }

    /// A move between lists: one edit recorded by both lists' transactions, each list's change set the
    /// one the log gives for it; deleting a list, the log's change set deletes its sections.
    @Test func movesBetweenListsAndADeletedListAgreeWithTheLog() throws {
        let f = try Fixture()
        let other = try f.store.addList(named: "Other")
        try other.insertSection(title: "O")
        try other.insertRows(["o0", "o1"], intoSection: 0)

        var head = try f.head()
        let row = try f.store.transferRow(id: try f.id(0, 1), toList: "Other", section: 0, at: 1)
        var logged = try f.logged(since: head)
        #expect(logged[f.store.listID] == Fixture.unversioned(row.source))
        #expect(logged[other.listID] == Fixture.unversioned(row.target))
        #expect(row.source.deletedRows.count == 1 && row.target.insertedRows.count == 1)

        head = try f.head()
        let section = try f.store.transferSection(id: try f.sectionID(1), toList: "Other")
        logged = try f.logged(since: head)
        #expect(logged[f.store.listID] == Fixture.unversioned(section.source))
        #expect(logged[other.listID] == Fixture.unversioned(section.target))
        #expect(section.target.insertedSections.first?.section.rows.map(\.title) == ["b0", "b1"])

        head = try f.head()
        let deleted = try f.store.deleteList(named: "Other")
        #expect(try f.logged(since: head)[other.listID] == Fixture.unversioned(deleted))
        #expect(deleted.deletedSections.map(\.index) == [0, 1])
    }

    // MARK: The sources

    static let sources = LayeringTests.root.appendingPathComponent("Sources/ListStore")

    /// The text of every Swift file under `Sources/ListStore/<folder>`, by path from there.
    static func files(in folder: String) throws -> [String: String] {
        let base = sources.appendingPathComponent(folder)
        var found: [String: String] = [:]
        guard let names = FileManager.default.enumerator(atPath: base.path) else { return found }
        for case let name as String in names where name.hasSuffix(".swift") {
            found["\(folder)/\(name)"] = try String(contentsOf: base.appendingPathComponent(name), encoding: .utf8)
        }
        return found
    }

    /// Rows and sections are inserted in one place each, and no edit primitive takes a history step,
    /// builds a change set or a change-log event itself: each hands its ``ListEdit`` to `record`.
    @Test func noPrimitiveBypassesItsListEdit() throws {
        var all: [String: String] = [:]
        for folder in LayeringTests.layers { all.merge(try Self.files(in: folder)) { first, _ in first } }
        #expect(all.count > 50, "the sources were not found at \(Self.sources.path)")
        for (phrase, home) in [("INSERT INTO rows", "Positions/RowWriter.swift"), ("INSERT INTO sections", "Positions/SectionWriter.swift")] {
            #expect(all.filter { $0.value.contains(phrase) }.keys.sorted() == [home], "\(phrase) outside \(home)")
        }
        // ListTransaction.record is the one caller of the history; the import is a structure write (no
        // events, no history: a barrier) whose change set lists the sections it wrote.
        let primitives = all.filter { $0.key.hasPrefix("Editing/") && !["Editing/ListTransaction.swift", "Editing/Import.swift"].contains($0.key) }
        #expect(primitives.count >= 8)
        let byHand = [
            "history?.", "history.", "ChangeSet()", "insertedRows", "deletedRows", "movedRows", "updatedRows", "insertedSections", "deletedSections",
            "movedSections", "updatedSections", "EditEvent.runs", "record(changes",
        ]
        for (path, text) in primitives {
            for phrase in byHand { #expect(!text.contains(phrase), "\(path) builds a description by hand: \(phrase)") }
        }
        let store = all.filter { $0.key.hasPrefix("Store/") || $0.key.hasPrefix("Maintenance/") }
        for (path, text) in store {
            for phrase in [".sectionsDeleted([[", ".rowsDeleted([[", ".rowsInserted(ids:"] {
                #expect(!text.contains(phrase), "\(path) builds a change-log event by hand: \(phrase)")
            }
        }
    }
}
