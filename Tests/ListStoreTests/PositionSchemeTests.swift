import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Sparse row positions counted in blocks and pages (migration 0007): rows go between their
/// neighbours without moving others, the `list_rows` view shows true zero-based indexes, rows inserted,
/// moved and deleted by hand anywhere are counted by the triggers, and damaged counts are refused
/// before an edit acts on them.
@Suite struct PositionSchemeTests {
    func viewIndexes(_ path: String) throws -> [[Int]] {
        let db = try Connection(path: path, mode: .readOnly)
        return try db.cached("SELECT section_index, row_index FROM list_rows").bind([]).map { [$0.int(0), $0.int(1)] }
    }

    /// What the `list_rows` view shows: each row's index path and id, in its order.
    func viewRows(_ path: String) throws -> [(path: ListIndexPath, id: RowID)] {
        let db = try Connection(path: path, mode: .readOnly)
        return try db.cached("SELECT section_index, row_index, row_id FROM list_rows").bind([])
            .map { (ListIndexPath(section: $0.int(0), row: $0.int(1)), RowID(rawValue: $0.int64(2))) }
    }

    @Test func positionsAreSparseAndTheViewStillShowsZeroBasedIndexes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("sparse.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "Feed")
        try store.insertRows(["c", "d"], intoSection: 0)
        try store.insertRow("b", intoSection: 0, at: 0)
        try store.insertRows(["z", "a"], intoSection: 0, at: 0)
        try store.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: 4))
        #expect(try store.snapshot().titles == [["a", "b", "c", "d", "z"]])
        // Inserts at the head and the tail, and the move, each took one gap (2^20) past the end row: no other row moved.
        let db = try Connection(path: path, mode: .readOnly)
        let positions = try db.cached("SELECT position FROM rows ORDER BY position").bind([]).map { $0.int(0) }
        #expect(positions == [-2, -1, 0, 1, 2].map { $0 * RowSpacing.gap })
        #expect(try viewIndexes(path) == (0..<5).map { [0, $0] })
        #expect(try store.rows(inSection: 0, range: 3..<10).map(\.title) == ["d", "z"])
        #expect(try store.row(at: ListIndexPath(section: 0, row: 0)).title == "a")
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aVersion1FileIsMigratedKeepingEveryRow() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v1.sqlite")
        do {
            // A file exactly as the previous version wrote it: schema 1, dense positions from 0.
            let db = try Connection(path: path, mode: .readWriteCreate)
            try db.executeScript("PRAGMA journal_mode = WAL")
            try Migrator(migrations: Array(Schema.migrations.prefix(1)), applicationID: Schema.applicationID).migrate(db)
            try db.executeScript(
                """
                INSERT INTO sections (position, title) VALUES (0, 'Roles'), (1, 'Monsters');
                INSERT INTO rows (section_id, position, title, payload) VALUES
                    (1, 0, 'Barbarian', NULL), (1, 1, 'Wizard', '{"level":2}'), (2, 0, 'Goblin', NULL);
                """)
            #expect(try Migrator.version(of: db) == 1)
        }
        let store = try ListStore.open(at: path)
        #expect(try store.snapshot().titles == [["Barbarian", "Wizard"], ["Goblin"]])
        #expect(try store.sections().map(\.rowCount) == [2, 1])
        #expect(try store.row(at: ListIndexPath(section: 0, row: 1)).payload == "{\"level\":2}")
        #expect(try store.checkInvariants().isEmpty)
        try store.insertRow("Paladin", intoSection: 0, at: 0)
        #expect(try viewIndexes(path) == [[0, 0], [0, 1], [0, 2], [1, 0]])
        let db = try Connection(path: path, mode: .readOnly)
        #expect(try Migrator.version(of: db) == Schema.migrator.latestVersion)
    }

    @Test func handDamagedCountsAreRefusedBeforeAnyEditActsOnThem() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        try store.insertSection(title: "B")
        try store.insertRows(["a0", "a1", "a2", "a3"], intoSection: 0)
        try store.insertRows(["b0"], intoSection: 1)
        // What someone used to keeping the count by hand might do in the sqlite3 shell: delete a row in
        // the middle (a legitimate edit: the triggers count it) and take it off the count once more.
        try Shell.run("DELETE FROM rows WHERE title = 'a1'; UPDATE sections SET row_count = row_count - 1 WHERE title = 'A'", on: path)
        let before = try store.scannedTitles()
        #expect(throws: ListStoreError.positionsDamaged(section: 0)) { try store.snapshot() }
        for edit in [
            { try store.insertRow("x", intoSection: 0, at: 0).changes }, { try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)]) },
            { try store.moveRow(from: ListIndexPath(section: 1, row: 0), to: ListIndexPath(section: 0, row: 0)) },
            { try store.appendRowToEverySection("x").changes },
        ] as [() throws -> ChangeSet] {
            #expect(throws: ListStoreError.positionsDamaged(section: 0)) { try edit() }
        }
        #expect(try store.scannedTitles() == before)
        #expect(ListStoreError.positionsDamaged(section: 0).description.contains("repair the store"))
        #expect((ListStoreError.positionsDamaged(section: 0) as any Error).localizedDescription == ListStoreError.positionsDamaged(section: 0).description)
        // The undamaged section can still be edited.
        try store.insertRow("b1", intoSection: 1)
        #expect(try store.checkInvariants().map(\.description) == ["section 0 records 2 rows but has 3"])
    }

    @Test func rowCountsFollowHandInsertsAndDeletesThroughTheTriggers() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("counts.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        try store.insertRows(["a0", "a1", "x"], intoSection: 0)
        try Shell.run(Shell.appendRow("a2 by hand", toSection: 1) + "; DELETE FROM rows WHERE title = 'x'", on: path)
        #expect(try store.rowCount(inSection: 0) == 3)
        try store.insertRow("a3", intoSection: 0)  // the hand edits were counted: allowed
        #expect(try store.snapshot().titles == [["a0", "a1", "a2 by hand", "a3"]])
        #expect(try viewIndexes(path) == (0..<4).map { [0, $0] })
        #expect(try store.checkInvariants().isEmpty)
    }

    /// Rows inserted, moved (within and across sections) and deleted by hand at any position —
    /// between two rows, before the first, after the last, far beyond ListStore's gaps — between edits
    /// of ListStore's own with blocks small enough to split and merge: after every step the store lists
    /// the rows in position order with indexes `0..<n`, the `list_rows` view shows the same paths, a read
    /// and an edit at each path name the row shown there, and `check` finds nothing.
    @Test(arguments: [RowBlockSizes(blockCapacity: 4, pageCapacity: 4), .standard])
    func handInsertsMovesAndDeletesAnywhereKeepReadsEditsAndTheViewAgreeing(sizes: RowBlockSizes) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("hand.sqlite")
        let store = try ListStore.open(at: path, rowBlockSizes: sizes)
        for section in 0..<3 {
            try store.insertSection(title: "S\(section)")
            try store.insertRows((0..<10).map { NewRow(title: "s\(section) \($0)") }, intoSection: section)
        }
        let shell = try Connection(path: path, mode: .readWrite)
        var random = SeededGenerator(seed: 0x5EED_0718)
        var handEdits = 0
        for step in 0..<240 {
            let context = "seed \(random.seed), step \(step)"
            // The rows by stored position, as anyone reading the table sees them: the order to expect.
            let stored = try shell.cached("SELECT s.position, r.id, r.position, s.id FROM rows AS r JOIN sections AS s ON s.id = r.section_id ORDER BY s.position, r.position")
                .bind([]).map { (section: $0.int(0), id: $0.int64(1), position: $0.int(2), sectionID: $0.int64(3)) }
            let sectionIDs = try shell.cached("SELECT id FROM sections ORDER BY position").bind([]).map { $0.int64(0) }
            let row = stored.randomElement(using: &random)
            let target = try #require(sectionIDs.randomElement(using: &random))
            let inTarget = stored.filter { $0.sectionID == target }.map(\.position)
            // A position in the target section: between two neighbours, before the first, after the last, or anywhere.
            var position: Int
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where inTarget.count >= 2:
                let k = Int.random(in: 1..<inTarget.count, using: &random)
                position = inTarget[k - 1] + (inTarget[k] - inTarget[k - 1]) / 2
            case 1: position = (inTarget.first ?? 0) - Int.random(in: 1...(1 << 30), using: &random)
            case 2: position = (inTarget.last ?? 0) + Int.random(in: 1...(1 << 30), using: &random)
            default: position = Int.random(in: -(1 << 60)...(1 << 60), using: &random)
            }
            if inTarget.contains(position) { position += 1 }
            if inTarget.contains(position) { continue }
            switch Int.random(in: 0..<8, using: &random) {
            case 0...2:
                try shell.executeScript("INSERT INTO rows (section_id, position, title) VALUES (\(target), \(position), 'hand \(step)')")
                handEdits += 1
            case 3...4:
                guard let row else { continue }
                try shell.executeScript("UPDATE rows SET section_id = \(target), position = \(position) WHERE id = \(row.id)")
                handEdits += 1
            case 5:
                guard let row else { continue }
                try shell.executeScript("DELETE FROM rows WHERE id = \(row.id)")
                handEdits += 1
            default:
                // One of ListStore's own edits at a random index, which splits and merges blocks.
                let section = Int.random(in: 0..<sectionIDs.count, using: &random)
                let count = try store.rowCount(inSection: section)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: try store.insertRows(["own \(step)a", "own \(step)b"], intoSection: section, at: Int.random(in: 0...count, using: &random))
                case 1 where count > 0:
                    let to = Int.random(in: 0..<sectionIDs.count, using: &random)
                    let toCount = try store.rowCount(inSection: to) - (to == section ? 1 : 0)
                    try store.moveRow(
                        from: ListIndexPath(section: section, row: Int.random(in: 0..<count, using: &random)),
                        to: ListIndexPath(section: to, row: Int.random(in: 0...toCount, using: &random)))
                default:
                    if count > 0 { try store.deleteRows(at: [ListIndexPath(section: section, row: Int.random(in: 0..<count, using: &random))]) }
                }
            }
            let expected = try shell.cached("SELECT s.position, r.id FROM rows AS r JOIN sections AS s ON s.id = r.section_id ORDER BY s.position, r.position")
                .bind([]).map { (section: $0.int(0), id: RowID(rawValue: $0.int64(1))) }
            let snapshot = try store.snapshot()
            var paths: [(path: ListIndexPath, id: RowID)] = []
            for (index, section) in snapshot.sections.enumerated() {
                for (rowIndex, row) in section.rows.enumerated() { paths.append((ListIndexPath(section: index, row: rowIndex), row.id)) }
            }
            try #require(paths.map(\.id) == expected.map(\.id), "\(context): the store does not list the rows in position order")
            try #require(paths.map(\.path.section) == expected.map(\.section), "\(context)")
            let view = try viewRows(path)
            try #require(view.map(\.path) == paths.map(\.path) && view.map(\.id) == paths.map(\.id), "\(context): list_rows shows other paths")
            for (path, id) in paths {
                try #require(try store.row(at: path).id == id, "\(context): row(at: \(path))")
                try #require(try store.indexPath(of: id) == path, "\(context): indexPath(of: \(id))")
            }
            if let (path, id) = paths.randomElement(using: &random) {
                let changes = try store.updateRow(at: path, title: "edited \(step)")
                try #require(changes.updatedRows.map(\.id) == [id], "\(context): an edit of \(path) acted on another row")
            }
            let problems = try store.checkInvariants()
            try #require(problems.isEmpty, "\(context): \(problems)")
        }
        #expect(handEdits > 100)
    }

    /// The index of a row found from its position counts the rows of the pages before its page and
    /// of the blocks before its block in that page, each once: a section of 300 rows has four blocks
    /// in one page, and every look-up by id (the index path of a row, an insert before a row, another
    /// connection's change set) names the row's own index, as a snapshot shows it. (It found the rows
    /// past a page's first block at their index plus the page's whole count.)
    @Test func rowsFoundByIDBeyondTheFirstBlockOfAPageHaveTheirOwnIndex() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("blocks.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        try store.insertRows((0..<300).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let blocks = try Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM row_blocks")
        #expect(blocks == 4, "a bulk insert cuts 300 rows into four blocks of 75, in one page")
        let rows = try store.snapshot().sections[0].rows
        for (index, row) in rows.enumerated() {
            #expect(try store.indexPath(of: row.id) == ListIndexPath(section: 0, row: index), "r\(index)")
        }
        try store.insertRows(["before r200"], before: rows[200].id)
        #expect(try store.row(at: ListIndexPath(section: 0, row: 200)).title == "before r200")
        #expect(try store.row(at: ListIndexPath(section: 0, row: 201)).title == "r200")
        // Another connection's insert at the end, as an observer of this store gets it.
        var updates = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        guard case .initial(var mirror) = try await ObservationTests.next(&updates) else {
            Issue.record("no initial state")
            return
        }
        let theirs = try ListStore.open(at: path).insertRow("last", intoSection: 0).changes
        try store.deliverChangesFromOtherConnections()
        let arrived = try ObservationTests.changes(try await ObservationTests.next(&updates, timeout: .seconds(30)))
        #expect(arrived.insertedRows == theirs.insertedRows)
        #expect(arrived.insertedRows.map(\.indexPath) == [ListIndexPath(section: 0, row: 301)])
        try mirror.apply(arrived)
        #expect(mirror == (try store.snapshot()))
    }
}
