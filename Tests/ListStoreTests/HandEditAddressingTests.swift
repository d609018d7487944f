import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Files changed by hand (as the `sqlite3` shell or Python's `sqlite3` would, foreign keys off): the
/// index path a read shows is the one an edit given that path acts on — or the edit refuses and
/// changes nothing — and no value in the file crashes a read, an edit, `check` or `repair`.
@Suite struct HandEditAddressingTests {
    static let max = "9223372036854775807"
    static let min = "-9223372036854775808"

    /// Hand edits that `integrity_check` accepts, each damaging what ListStore keeps in its own way.
    /// (Moving, inserting or deleting rows by hand is not among them: the triggers count such edits;
    /// `PositionSchemeTests` edits by hand. Damage is a count that no longer matches the rows.)
    static let damages: [String] = [
        "DELETE FROM sections WHERE title = 'S1'",
        // REPLACE deletes the row it lands on without firing the delete trigger: one row fewer than counted.
        "UPDATE OR REPLACE rows SET position = (SELECT position FROM rows WHERE title = 'S0 r3') WHERE title = 'S0 r1'",
        "UPDATE OR REPLACE rows SET position = (SELECT position FROM rows WHERE title = 'S0 r0') WHERE title = 'S0 r4'",
        Shell.uncounted("DELETE FROM rows WHERE title = 'S0 r2'", without: "rows_counted_on_delete"),
        Shell.uncounted(
            "INSERT INTO rows (section_id, position, title) VALUES (3, (SELECT position + 1 FROM rows WHERE title = 'S2 r0'), 'uncounted')",
            without: "rows_counted_on_insert"),
        // From S2's last block into its first, uncounted: both blocks count wrong, the section and its page right.
        Shell.uncounted(
            "UPDATE rows SET position = (SELECT position - 1 FROM rows WHERE title = 'S2 r0') WHERE title = 'S2 r4'", without: "rows_counted_on_move"),
        "UPDATE sections SET row_count = row_count + 3 WHERE title = 'S2'",
        "UPDATE sections SET row_count = row_count - 2 WHERE title = 'S2'",
        "UPDATE row_blocks SET row_count = row_count + 1 WHERE section_id = 1 AND start = \(min)",
        "UPDATE row_blocks SET row_count = \(max) WHERE section_id = 1 AND start > \(min)",
        "UPDATE row_blocks SET row_count = \(min) WHERE section_id = 3",
        "UPDATE row_pages SET row_count = 0 WHERE section_id = 1",
        "UPDATE row_pages SET row_count = \(max) WHERE section_id = 1",
        "DELETE FROM row_blocks WHERE section_id = 1 AND start > \(min)",
        "DELETE FROM row_blocks WHERE section_id = 3 AND start = \(min)",
        "DELETE FROM row_pages WHERE section_id = 1",
        "INSERT INTO row_blocks (section_id, start, row_count) VALUES (1, 1, 0)",
        "INSERT INTO row_blocks (section_id, start, row_count) VALUES (99, \(min), 4)",
        "UPDATE sections SET row_count = \(min) WHERE title = 'S0'",
        "UPDATE sections SET row_count = \(max) WHERE title = 'S0'",
        "UPDATE rows SET position = \(max) WHERE title = 'S0 r4'",
        "UPDATE rows SET position = \(min) WHERE title = 'S0 r0'",
        "UPDATE sections SET position = \(max) WHERE title = 'S2'",
        "UPDATE sections SET position = \(min) WHERE title = 'S0'",
        "UPDATE sections SET position = -1 WHERE title = 'S1'",
        "UPDATE sections SET position = position + 10",
        "UPDATE rows SET section_id = 99 WHERE title = 'S2 r0'",
        // Beyond ±2^61, where ListStore never writes (the differences of two positions could overflow).
        "UPDATE rows SET position = position + 4611686018427387904 WHERE title LIKE 'S1 %'",
        "INSERT INTO rows (id, section_id, position, title) VALUES (\(max), 1, 5, 'max id')",
        "UPDATE sqlite_sequence SET seq = \(max) WHERE name = 'rows'",
        "UPDATE rows SET payload = '{bad' WHERE title = 'S1 r1'",
        "UPDATE rows SET title = '' WHERE title = 'S1 r2'",
        "UPDATE rows SET title = CAST(x'ff41' AS TEXT) WHERE title = 'S1 r3'",
        "UPDATE sections SET title = 'a' || char(0) || 'b' WHERE title = 'S2'",
        // The list's recorded section count (schema 12) left behind or set by hand. A gap in the middle
        // leaves the highest position where it was: edits go on (no index names the gap), `check` finds it.
        Shell.uncounted("DELETE FROM sections WHERE title = 'S1'", without: "sections_counted_on_delete"),
        Shell.uncounted("DELETE FROM sections WHERE title = 'S2'", without: "sections_counted_on_delete"),
        Shell.uncounted("INSERT INTO sections (position, title) VALUES (3, 'uncounted')", without: "sections_counted_on_insert"),
        Shell.uncounted("UPDATE sections SET list_id = 2 WHERE title = 'S2'", without: "sections_counted_on_list_change")
            .replacingOccurrences(of: "UPDATE sections", with: "INSERT INTO lists (id, name, position) VALUES (2, 'other', 1); UPDATE sections"),
        "UPDATE lists SET section_count = section_count + 1",
        "UPDATE lists SET section_count = 0",
        "UPDATE lists SET section_count = \(max)",
        "UPDATE lists SET section_count = \(min)",
        // REPLACE deletes the section it lands on without firing the delete trigger, even with triggers on.
        "UPDATE OR REPLACE sections SET position = 0 WHERE title = 'S1'",
        "INSERT INTO lists (id, name, position) VALUES (2, 'other', 1); REPLACE INTO sections (id, list_id, position, title) VALUES (2, 2, 0, 'x')",
    ]

    /// Blocks of at most four rows: each section of five has two blocks (three rows and two), so that
    /// damage can fall in a block before another.
    static let smallBlocks = RowBlockSizes(blockCapacity: 4, pageCapacity: 4)

    /// Three sections of five rows with distinct titles (sections #1, #2, #3, in blocks of three and two
    /// rows), then `damage` run through a plain SQLite connection, as the shell would (``Shell/run(_:on:)``).
    static func damagedStore(_ directory: TemporaryDirectory, _ damage: String, name: String = "hand.sqlite") throws -> ListStore {
        let path = directory.path(name)
        let store = try ListStore.open(at: path, rowBlockSizes: smallBlocks)
        for section in 0..<3 {
            try store.insertSection(title: "S\(section)")
            try store.insertRows((0..<5).map { NewRow(title: "S\(section) r\($0)") }, intoSection: section)
        }
        try store.moveRow(from: ListIndexPath(section: 0, row: 4), to: ListIndexPath(section: 0, row: 0))  // across blocks and back
        try store.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: 4))
        try Shell.run(damage, on: path)
        return store
    }

    /// What a scan shows: every row's path and id, every section's index and id.
    static func shown(_ store: ListStore) throws -> (rows: [(ListIndexPath, RowID)], sections: [(Int, SectionID)]) {
        var rows: [(ListIndexPath, RowID)] = []
        var sections: [(Int, SectionID)] = []
        try store.scan { item in
            switch item {
            case .section(let index, let id, _, _): sections.append((index, id))
            case .row(let path, let row): rows.append((path, row.id))
            }
        }
        return (rows, sections)
    }

    static func rowIDs(_ store: ListStore) throws -> Set<RowID> { Set(try shown(store).rows.map(\.1)) }

    /// `body`'s value, or nil when the store refused it with a ``ListStoreError`` (added to `refusals`) —
    /// the one refusal these tests allow. Any other error (a raw SQLite error, a decoding failure) is
    /// thrown: unlike `try?`, it fails the test instead of passing for a refusal.
    static func unlessRefused<T>(_ refusals: inout [ListStoreError], _ body: () throws -> T) throws -> T? {
        do { return try body() } catch let error as ListStoreError {
            refusals.append(error)
            return nil
        }
    }

    /// Refusing every read and edit is right only when the section order itself is damaged (then no
    /// index can be trusted); otherwise the loops above would have checked nothing.
    static func expectSomethingChecked(
        _ damage: String, agreed: Int, refusals: [ListStoreError],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let orderDamaged = refusals.allSatisfy {
            switch $0.reason {
            case .sectionOrderDamaged, .sectionCountDamaged: return true
            default: return false
            }
        }
        #expect(
            agreed > 0 || orderDamaged, "\(damage): every read and edit was refused, not for damaged section positions: \(refusals.prefix(3))",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: damages)
    func readsAndRowEditsAgreeOnEveryShownPath(damage: String) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.damagedStore(directory, damage)
        var agreed = 0
        var refusals: [ListStoreError] = []
        for (path, id) in try Self.shown(store).rows {
            // A read of that path gives that row, or refuses.
            if let row = try Self.unlessRefused(&refusals, { try store.row(at: path) }) {
                #expect(row.id == id, "\(damage): row(at: \(path))")
                agreed += 1
            }
            if let changes = try Self.unlessRefused(&refusals, { try store.updateRow(at: path, title: "renamed \(id.rawValue)") }) {
                #expect(changes.updatedRows.map(\.id) == [id], "\(damage): update \(path)")
                #expect(try store.row(id: id).title == "renamed \(id.rawValue)")
                agreed += 1
            }
        }
        Self.expectSomethingChecked(damage, agreed: agreed, refusals: refusals)
        // Delete every shown path in turn, re-reading after each: exactly the row shown there goes.
        // (At most 16 rows exist, so 40 attempts end the loop only when deletes stop removing rows.)
        let attemptLimit = 40
        var attempts = 0
        while let (path, id) = try Self.shown(store).rows.first(where: { $0.0.row >= 0 && $0.0.section >= 0 }) {
            guard attempts < attemptLimit else {
                Issue.record("\(damage): still deleting after \(attemptLimit) deletes of a store of at most 16 rows")
                break
            }
            attempts += 1
            let before = try Self.rowIDs(store)
            do {
                let changes = try store.deleteRows(at: [path])
                #expect(changes.deletedRows.map(\.id) == [id], "\(damage): delete \(path)")
                #expect(try Self.rowIDs(store) == before.subtracting([id]), "\(damage): delete \(path) took other rows")
            } catch is ListStoreError {
                #expect(try Self.rowIDs(store) == before, "\(damage): a refused delete changed rows")
                break
            }
        }
    }

    @Test(arguments: damages)
    func readsAndSectionEditsAgreeOnEveryShownIndex(damage: String) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.damagedStore(directory, damage)
        var agreed = 0
        var refusals: [ListStoreError] = []
        for (index, id) in try Self.shown(store).sections {
            if let section = try Self.unlessRefused(&refusals, { try store.section(at: index) }) {
                #expect(section.id == id, "\(damage): section(at: \(index))")
                agreed += 1
            }
            if let changes = try Self.unlessRefused(&refusals, { try store.renameSection(at: index, to: "renamed \(id.rawValue)") }) {
                #expect(changes.updatedSections.map(\.id) == [id], "\(damage): rename \(index)")
                agreed += 1
            }
        }
        let (index, id) = try #require(try Self.shown(store).sections.last, "\(damage): no section is shown")
        if let changes = try Self.unlessRefused(&refusals, { try store.deleteSections(at: [index]) }) {
            #expect(changes.deletedSections.map(\.id) == [id], "\(damage): delete section \(index)")
            #expect(!(try Self.shown(store).sections.map(\.1).contains(id)))
            agreed += 1
        }
        Self.expectSomethingChecked(damage, agreed: agreed, refusals: refusals)
    }

    /// Reads that hand out arrays (`sections()`, `snapshot()`) give each section and row at the array
    /// position an index read and an edit use, or refuse.
    @Test(arguments: damages)
    func arrayReadsAgreeWithIndexesOrRefuse(damage: String) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.damagedStore(directory, damage)
        var refusals: [ListStoreError] = []
        if let sections = try Self.unlessRefused(&refusals, { try store.sections() }) {
            // An array of sections is handed out only when every position in it is an index that names its section.
            for (index, section) in sections.enumerated() {
                let read = try Self.unlessRefused(&refusals) { try store.section(at: index).id }
                #expect(read == section.id, "\(damage): sections()[\(index)]")
            }
        }
        if let snapshot = try Self.unlessRefused(&refusals, { try store.snapshot() }) {
            for (index, section) in snapshot.sections.enumerated() {
                let read = try Self.unlessRefused(&refusals) { try store.section(at: index).id }
                #expect(read == section.id, "\(damage): snapshot().sections[\(index)]")
                for (row, value) in section.rows.enumerated() {
                    let read = try Self.unlessRefused(&refusals) { try store.row(at: ListIndexPath(section: index, row: row)).id }
                    #expect(read == nil || read == value.id, "\(damage): snapshot row \(index):\(row)")
                }
            }
        }
    }

    @Test(arguments: damages)
    func checkReportsTheDamageAndRepairLeavesAFileEveryEditAccepts(damage: String) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.damagedStore(directory, damage)
        let problems = try store.checkInvariants()
        #expect(!problems.isEmpty, "\(damage): check said ok")
        let before = try Self.rowIDs(store)
        let report = try store.repair()
        // Repair drops nothing: rows whose section was deleted come back in a recovered section.
        #expect(try Self.rowIDs(store).isSuperset(of: before), "\(damage): repair lost rows")
        #expect(try store.checkInvariants() == report.unresolved, "\(damage): \(report)")
        #expect(report.unresolved.allSatisfy { !$0.isRepairable && $0.remedy != nil })
        // The structure is sound again: snapshots read, and edits at both ends and in the middle work.
        let snapshot = try store.snapshot()
        #expect(snapshot.sections.count >= 2)
        if report.unresolved.allSatisfy({ !$0.description.contains("largest possible id") }) {
            try store.insertRow("after repair", intoSection: 0, at: 0)
            try store.insertSection(title: "new")
        }
        try store.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 1, row: 0))
        try store.deleteRows(at: [ListIndexPath(section: 1, row: 0)])
        #expect(try store.checkInvariants() == report.unresolved)
        // Running the remedies repair names clears what it left.
        if !report.unresolved.isEmpty {
            for problem in report.unresolved {
                guard let remedy = problem.remedy, let sql = remedy.components(separatedBy: ";").first, sql.hasPrefix("UPDATE") else { continue }
                let shell = try Connection(path: directory.path("hand.sqlite"), mode: .readWrite)
                try shell.executeScript(sql)
            }
            _ = try store.repair()
            #expect(try store.checkInvariants().isEmpty, "\(damage): remedies did not clear \(report.unresolved)")
        }
    }

    @Test func anInteriorGapWithAWrongCountIsSeenByReadsThatListRows() throws {
        let directory = try TemporaryDirectory()
        // The cheap checks cannot see this one: REPLACE deletes S2 r1 uncounted, so the section's count is
        // still the sum of its page's, but its first block counts three rows and holds two.
        let store = try Self.damagedStore(directory, "UPDATE OR REPLACE rows SET position = (SELECT position FROM rows WHERE title = 'S2 r1') WHERE title = 'S2 r0'")
        #expect(throws: ListStoreError.positionsDamaged(section: 2)) { try store.snapshot() }
        #expect(throws: ListStoreError.positionsDamaged(section: 2)) { try store.rows(inSection: 2) }
        #expect(throws: ListStoreError.positionsDamaged(section: 2)) { try store.snapshot(ofSection: 2) }
        #expect(throws: ListStoreError.positionsDamaged(section: 2)) { try store.row(at: ListIndexPath(section: 2, row: 2)) }
        #expect(throws: ListStoreError.positionsDamaged(section: 2)) { try store.rows(inSection: 2, range: 1..<3) }
        #expect(try store.rows(inSection: 2, range: 3..<5).map(\.title) == ["S2 r3", "S2 r4"])
        #expect(try store.rows(inSection: 2, range: 0..<2).map(\.title) == ["S2 r0", "S2 r2"])
        let shown = try Self.shown(store).rows.filter { $0.0.section == 2 }.map(\.0.row)
        #expect(shown == [0, 1, 3, 4])
        // An edit at a shown path acts on the row shown there; at the gap it refuses.
        #expect(throws: ListStoreError.positionsDamaged(section: 2)) { try store.deleteRows(at: [ListIndexPath(section: 2, row: 2)]) }
        #expect(try store.row(at: ListIndexPath(section: 2, row: 3)).title == "S2 r3")
        #expect(
            try store.checkInvariants().map(\.description) == [
                "section 2 records 5 rows but has 4",
                "the blocks and pages of section 2 do not count its 4 rows (row_blocks, row_pages): indexes may skip or repeat",
            ])
    }

    @Test func usedUpIDsAreNamedByTheLibraryNotTakenForAFullDisk() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.damagedStore(directory, "INSERT INTO rows (id, section_id, position, title) VALUES (\(Self.max), 1, 5, 'max id')")
        #expect(throws: ListStoreError.identifiersExhausted(table: "rows")) { try store.insertRow("x", intoSection: 1) }
        #expect(throws: ListStoreError.identifiersExhausted(table: "rows")) { try store.appendRowToEverySection("x") }
        let shell = try Connection(path: directory.path("hand.sqlite"), mode: .readWrite)
        try shell.executeScript("UPDATE sqlite_sequence SET seq = \(Self.max) WHERE name = 'sections'")
        #expect(throws: ListStoreError.identifiersExhausted(table: "sections")) { try store.insertSection(title: "x") }
    }
}
