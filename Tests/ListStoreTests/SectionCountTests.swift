import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Each list's recorded section count (`lists.section_count`, schema 12): every way ListStore adds, removes
/// or moves sections keeps it, the triggers keep it for the `sqlite3` shell, and an edit checks the section
/// order against it without visiting the list's sections.
@Suite struct SectionCountTests {
    /// Every list's recorded count is the number of its sections, and its order sound.
    static func expectCountsRight(_ path: String, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let db = try Connection(path: path, mode: .readOnly)
        try db.readTransaction {
            #expect(try ListDamage.wrongSectionCounts(db).isEmpty, "\(step)", sourceLocation: sourceLocation)
            for list in try ListDamage.listIDs(db) {
                #expect(!(try SectionOrderState.read(db, list: list).isDamaged), "\(step): list \(list)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func everySectionEditKeepsTheRecordedCount() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("counts.sqlite")
        let store = try ListStore.open(at: path)
        let other = try store.addList(named: "other")
        for index in 0..<5 { try store.insertSection(title: "S\(index)", at: index == 3 ? 1 : nil) }
        try Self.expectCountsRight(path, "inserts")
        try store.deleteSections(at: [0, 3])
        try Self.expectCountsRight(path, "delete two")
        try store.undo()
        try Self.expectCountsRight(path, "undo of the delete (sections restored with their ids)")
        try store.redo()
        try Self.expectCountsRight(path, "redo")
        let moved = try store.section(at: 0).id
        _ = try store.transferSection(id: moved, toList: "other", at: 0)
        try Self.expectCountsRight(path, "move to another list")
        _ = try other.transferSection(id: moved, toList: ListStore.defaultListName)
        try Self.expectCountsRight(path, "move back")
        try store.moveSection(from: 0, to: 2)
        try Self.expectCountsRight(path, "move within the list")
        _ = try store.importDocument(
            ListDocument(sections: [ListDocument.Section(title: "I0"), ListDocument.Section(title: "I1")]),
            replacing: true)
        #expect(try store.sectionCount() == 2)
        try Self.expectCountsRight(path, "import replacing")
        try store.importLists(named: ["other", "third"], replacing: true) { index, importer in
            for section in 0..<(index + 2) { try importer.addSection(title: "L\(index) S\(section)") }
        }
        try Self.expectCountsRight(path, "import of several lists")
        try store.deleteList(named: "third")
        try Self.expectCountsRight(path, "list deleted")
        try Shell.run("PRAGMA foreign_keys = OFF; DELETE FROM sections WHERE title = 'I1'", on: path)  // the last: the positions stay dense
        try store.insertSection(title: "after the hand delete")
        #expect(try store.checkInvariants().isEmpty)
        try Self.expectCountsRight(path, "after a hand delete (counted by the trigger)")
    }

    /// What TheFile.md shows: a section added, deleted and moved to another list by hand,
    /// the triggers counting each, and ListStore's next edits accepting the file.
    @Test func handEditsThroughTheShellAreCountedByTheTriggers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("hand.sqlite")
        let store = try ListStore.open(at: path)
        _ = try store.addList(named: "Work")
        for index in 0..<3 { try store.insertSection(title: "S\(index)") }
        try Shell.run(
            "INSERT INTO sections (list_id, position, title) SELECT id, section_count, 'Later' FROM lists WHERE name = 'Work'", on: path)
        try Shell.run("INSERT INTO sections (list_id, position, title) SELECT id, section_count, 'Last' FROM lists WHERE id = 1", on: path)
        try Self.expectCountsRight(path, "hand inserts at the end")
        try Shell.run("DELETE FROM sections WHERE title = 'Last'", on: path)
        try Self.expectCountsRight(path, "hand delete of the last section")
        try Shell.run(
            "UPDATE sections SET list_id = (SELECT id FROM lists WHERE name = 'Work'), position = 1 WHERE title = 'S2'", on: path)
        try Self.expectCountsRight(path, "hand move of the last section to another list")
        #expect(try store.sections().map(\.title) == ["S0", "S1"])
        #expect(try store.list(named: "Work").sections().map(\.title) == ["Later", "S2"])
        try store.insertSection(title: "S2 again", at: 1)
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Damage to the count itself: edits refuse with an error that names the recorded count and the
    /// positions, `check` reports it, `repair` counts afresh, and edits work again.
    @Test func aCountSetByHandIsRefusedReportedAndRepaired() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try ListStore.open(at: path)
        for index in 0..<3 { try store.insertSection(title: "S\(index)") }
        try Shell.run("UPDATE lists SET section_count = 5 WHERE id = 1", on: path)
        #expect(throws: ListStoreError.sectionCountDamaged(recorded: 5, counted: 3)) { try store.insertSection(title: "x") }
        #expect(throws: ListStoreError.sectionCountDamaged(recorded: 5, counted: 3)) { try store.snapshot() }
        let message = ListStoreError.sectionCountDamaged(recorded: 5, counted: 3).description
        #expect(message.hasPrefix("the list's section count was changed outside ListStore (it records 5 sections and has 3)"), "\(message)")
        try Shell.run("UPDATE lists SET section_count = -9223372036854775808 WHERE id = 1", on: path)
        #expect(throws: ListStoreError.sectionCountDamaged(recorded: Int.min, counted: 3)) { try store.insertSection(title: "x") }
        #expect(ListStoreError.sectionOrderDamaged(sectionCount: 0, lowest: 0, highest: 2).description.contains("(0 sections at positions 0…2, where none should be)"))
        #expect(try store.checkInvariants().map(\.description).contains { $0.contains("the list records -9223372036854775808 sections but has 3") })
        let report = try store.repair()
        #expect(report.fixes == ["sections: counted 3 sections (the list recorded -9223372036854775808)"], "\(report.fixes)")
        #expect(try store.checkInvariants().isEmpty)
        try store.insertSection(title: "S3")
        #expect(try store.sections().map(\.title) == ["S0", "S1", "S2", "S3"])
    }

    /// A section deleted by hand with the counting trigger dropped, its rows left behind: repair reports
    /// the count the list recorded before it, then adds the section of recovered rows to the right count.
    @Test func repairCountsBeforeItAddsTheRecoveredSection() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("recovered.sqlite")
        let store = try ListStore.open(at: path)
        for index in 0..<3 {
            try store.insertSection(title: "S\(index)")
            _ = try store.insertRows([NewRow(title: "r\(index)")], intoSection: index)
        }
        try Shell.run(Shell.uncounted("DELETE FROM sections WHERE title = 'S2'", without: "sections_counted_on_delete"), on: path)
        let report = try store.repair()
        #expect(report.fixes.first == "sections: counted 2 sections (the list recorded 3)", "\(report.fixes)")
        #expect(try store.sections().map(\.title) == ["S0", "S1", ListStore.recoveredSectionTitle])
        #expect(try store.checkInvariants().isEmpty)
        try Self.expectCountsRight(path, "after repair")
    }

    /// A gap below the highest position with a recorded count one too high — a section deleted by
    /// `UPDATE OR REPLACE`, which fires no delete trigger even in the shell — passes the three look-ups.
    /// Edits refuse it all the same (the first edit after another connection's commit counts the
    /// sections), every read that hands out the sections in an array refuses it (an array position would
    /// not be an index), and index reads still agree with what edits would do: no index names the gap.
    /// `check` reports it and `repair` renumbers and counts.
    @Test func aGapTheRecordedCountHidesIsRefusedByArrayReadsAndObservers() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("gap.sqlite")
        let store = try ListStore.open(at: path)
        for index in 0..<4 {
            try store.insertSection(title: "S\(index)")
            _ = try store.insertRows([NewRow(title: "r\(index)")], intoSection: index)
        }
        try Shell.run("UPDATE OR REPLACE sections SET position = 1 WHERE title = 'S2'", on: path)  // S1 goes, S2 takes its place; 2 is free
        let gap = ListStoreError.sectionOrderDamaged(sectionCount: 3, lowest: 0, highest: 3)
        #expect(throws: gap) { try store.sections() }
        #expect(throws: gap) { try store.snapshot() }
        var updates = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        await #expect(throws: gap) { _ = try await updates.next() }
        // Index reads and edits agree: index 1 is S2, index 3 is S3, index 2 is no section.
        #expect(try store.section(at: 1).title == "S2")
        #expect(try store.section(at: 3).title == "S3")
        #expect(throws: (any Error).self) { try store.section(at: 2) }
        #expect(throws: gap) { try store.renameSection(at: 3, to: "S3 renamed") }
        #expect(throws: gap) { try store.insertRow("x", intoSection: 0) }
        #expect(try store.checkInvariants().map(\.description).contains { $0.hasPrefix("section positions are not 0…2: they run from 0 to 3") })
        _ = try store.repair()
        #expect(try store.sections().map(\.title) == ["S0", "S2", "S3", ListStore.recoveredSectionTitle])
        try store.renameSection(at: 2, to: "S3 renamed")
        #expect(try store.checkInvariants().isEmpty)
        try Self.expectCountsRight(path, "after repair")
    }

    /// Sections of a list deleted by hand go to the end of the default list, even when a hand edit put a
    /// section of the default list at the largest position: its positions are renumbered first (moving
    /// two sections past 2^63 − 1 trapped on the overflow; one failed on UNIQUE).
    @Test func repairMovesOrphanedSectionsPastADefaultListAtTheLargestPosition() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("orphans.sqlite")
        let store = try ListStore.open(at: path)
        let other = try store.addList(named: "other")
        try store.insertSection(title: "D0")
        try store.insertSection(title: "D1")
        try other.insertSection(title: "O0")
        try other.insertSection(title: "O1")
        try Shell.run("UPDATE sections SET position = 9223372036854775807 WHERE title = 'D1'; DELETE FROM lists WHERE name = 'other'", on: path)
        let report = try store.repair()
        #expect(report.fixes.contains { $0.hasPrefix("sections: renumbered 2 sections") }, "\(report.fixes)")
        #expect(try store.sections().map(\.title) == ["D0", "D1", "O0", "O1"])
        #expect(try store.checkInvariants().isEmpty)
        try Self.expectCountsRight(path, "after repair")
    }

    /// A file of schema 8 to 11 opened to inspect (not migrated) still reads: its section order is
    /// checked by counting, since it records no section count.
    @Test func anOlderFileUnderInspectionReadsWithoutTheRecordedCount() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v11.sqlite")
        do {
            let db = try Connection(path: path, mode: .readWriteCreate)
            try Migrator(migrations: Array(Schema.migrations.prefix(11)), applicationID: Schema.applicationID).migrate(db)
            try db.executeScript("INSERT INTO sections (position, title) VALUES (0, 'A'), (1, 'B'); INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'a')")
        }
        let store = try ListStore.open(at: path, mode: .inspect)
        #expect(try store.sections().map(\.title) == ["A", "B"])
        #expect(try store.snapshot().sections.map { $0.rows.map(\.title) } == [["a"], []])
        #expect(try store.fileSchemaVersion() == 11)
    }

    /// The writer counts a list's sections once after another connection commits, and not again while
    /// only it writes: a second store on the file (another connection) makes the next edit count again.
    @Test func editsCountTheSectionsOnceAfterAnotherConnectionCommits() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("others.sqlite")
        let store = try ListStore.open(at: path)
        for index in 0..<500 { try store.insertSection(title: "S\(index)") }
        _ = try store.insertRows([NewRow(title: "r")], intoSection: 3)
        func steps(_ edit: () throws -> Void) throws -> Int {
            let before = try store.writerVirtualMachineSteps()
            try edit()
            return try store.writerVirtualMachineSteps() - before
        }
        // The least of three edits: now and then a write also does other bounded work (the history's count).
        let alone = try (0..<3).map { step in try steps { _ = try store.insertRow("a\(step)", intoSection: 3) } }.min() ?? 0
        let other = try ListStore.open(at: path)
        _ = try other.insertRow("from another connection", intoSection: 7)
        let afterOther = try steps { _ = try store.insertRow("b", intoSection: 3) }
        let againAlone = try (0..<3).map { step in try steps { _ = try store.insertRow("c\(step)", intoSection: 3) } }.min() ?? 0
        #expect(afterOther > alone + 400, "the first edit after another connection's commit counts 500 sections: \(afterOther) against \(alone) steps")
        #expect(againAlone < alone + 100, "\(againAlone) against \(alone) steps")
        #expect(try store.checkInvariants().isEmpty)
    }

    /// The check an edit makes of the section order visits no section: an edit of a row in a list of
    /// 2,000 sections runs as many SQLite steps as the same edit in a list of 10 (counting the sections
    /// cost one step each, about 90 µs per edit at 1,000 sections).
    @Test func anEditsWorkDoesNotGrowWithTheNumberOfSections() throws {
        let directory = try TemporaryDirectory()
        var steps: [Int: Int] = [:]
        for sections in [10, 2_000] {
            let store = try ListStore.open(at: directory.path("\(sections).sqlite"))
            _ = try store.write { transaction in
                for index in 0..<sections { try transaction.insertSection(title: "S\(index)") }
            }.changes
            _ = try store.insertRows((0..<20).map { NewRow(title: "r\($0)") }, intoSection: 5)
            _ = try store.insertRow("warm", intoSection: 5, at: 3)
            let before = try store.writerVirtualMachineSteps()
            _ = try store.insertRow("timed", intoSection: 5, at: 7)
            _ = try store.updateRow(at: ListIndexPath(section: 5, row: 2), title: "renamed")
            _ = try store.deleteRows(at: [ListIndexPath(section: 5, row: 9)])
            steps[sections] = try store.writerVirtualMachineSteps() - before
        }
        let few = try #require(steps[10])
        let many = try #require(steps[2_000])
        #expect(many < few + 200, "three edits: \(few) steps at 10 sections, \(many) at 2,000")
    }
}
