import Testing

@testable import ListStore

/// Several edits in one write transaction: all or nothing, each seeing the ones before it, and one
/// change set for the whole that UIKit's batch updates accept and that turns the state before the
/// transaction into the state after it.
@Suite struct WriteTransactionTests {
    /// One valid random edit, by index or by id, chosen from the state the transaction has reached.
    static func randomEdit(_ tx: ListTransaction, _ random: inout SeededGenerator) throws {
        let sections = try tx.snapshot().sections
        let rows = sections.enumerated().flatMap { s, section in section.rows.enumerated().map { (ListIndexPath(section: s, row: $0.offset), $0.element.id) } }
        let anyRow = rows.randomElement(using: &random)
        let anySection = sections.indices.randomElement(using: &random)
        switch Int.random(in: 0..<20, using: &random) {
        case 0 where sections.count < 6:
            try tx.insertSection(title: "s", at: Int.random(in: 0...sections.count, using: &random))
        case 1 where anySection != nil:
            let s = anySection ?? 0
            if Bool.random(using: &random) {
                try tx.renameSection(at: s, to: "renamed \(Int.random(in: 0..<3, using: &random))")
            } else {
                try tx.renameSection(id: sections[s].id, to: "by id \(Int.random(in: 0..<3, using: &random))")
            }
        case 2 where sections.count > 1:
            let from = Int.random(in: 0..<sections.count, using: &random)
            let to = Int.random(in: 0..<sections.count, using: &random)
            if Bool.random(using: &random) { try tx.moveSection(from: from, to: to) } else { try tx.moveSection(id: sections[from].id, to: to) }
        case 3 where sections.count > 3:
            let index = Int.random(in: 0..<sections.count, using: &random)
            if Bool.random(using: &random) { try tx.deleteSections(at: [index]) } else { try tx.deleteSections(ids: [sections[index].id]) }
        case 4 where anySection != nil && rows.count < 200, 5 where anySection != nil && rows.count < 200:
            let s = anySection ?? 0
            let titles = (0..<Int.random(in: 1...3, using: &random)).map { "r\($0)" }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: try tx.insertRows(titles, intoSection: s, at: Int.random(in: 0...sections[s].rows.count, using: &random))
            case 1: try tx.insertRows(titles, intoSection: sections[s].id)
            case 2 where anyRow != nil: try tx.insertRows(titles, before: anyRow?.1 ?? RowID(rawValue: 0))
            default: if let anyRow { try tx.insertRows(titles, after: anyRow.1) } else { try tx.insertRows(titles, intoSection: s) }
            }
        case 6 where rows.count < 200:
            try tx.appendRowToEverySection("every")
        case 7, 8:
            guard let (path, id) = anyRow else { break }
            let payload = PayloadUpdate.set("{\"n\":\(Int.random(in: 0..<3, using: &random))}")
            if Bool.random(using: &random) { try tx.updateRow(at: path, title: "edited", payload: payload) } else { try tx.updateRow(id: id, payload: payload) }
        case 9, 10, 11, 12:
            guard let (from, id) = anyRow, let s = anySection else { break }
            let limit = s == from.section ? sections[s].rows.count - 1 : sections[s].rows.count
            let to = ListIndexPath(section: s, row: Int.random(in: 0...limit, using: &random))
            switch Int.random(in: 0..<5, using: &random) {
            case 0: try tx.moveRow(from: from, to: to)
            case 1: try tx.moveRow(id: id, to: to)
            case 2: try tx.moveRow(id: id, toSection: sections[s].id, at: Bool.random(using: &random) ? to.row : nil)
            case 3: if let anchor = rows.randomElement(using: &random)?.1 { try tx.moveRow(id: id, before: anchor) }
            default: if let anchor = rows.randomElement(using: &random)?.1 { try tx.moveRow(id: id, after: anchor) }
            }
        case 13, 14, 15:
            let chosen = Array(Set((0..<Int.random(in: 1...4, using: &random)).compactMap { _ in rows.randomElement(using: &random) }.map(\.1)))
            guard !chosen.isEmpty else { break }
            if Bool.random(using: &random) { try tx.deleteRows(ids: chosen) } else { try tx.deleteRows(at: try chosen.compactMap { try tx.indexPath(of: $0) }) }
        default:
            if sections.isEmpty { try tx.insertSection(title: "first") }
        }
    }

    struct Rollback: Error {}

    @Test func thousandsOfRandomTransactionsReplayWithUIKitsRules() throws {
        let store = try ListStore.inMemory()
        var random = SeededGenerator(seed: 2_026)
        var before = try store.snapshot()
        var kinds = Set<String>()
        var multiEdit = 0
        for step in 0..<2_000 {
            let edits = Int.random(in: 1...6, using: &random)
            let rollBack = Int.random(in: 0..<10, using: &random) == 0
            let changes: ChangeSet
            do {
                changes = try store.write { tx in
                    for _ in 0..<edits { try Self.randomEdit(tx, &random) }
                    if rollBack { throw Rollback() }
                }.changes
            } catch is Rollback {
                #expect(try store.snapshot() == before, "step \(step): a transaction that threw changed the store")
                continue
            }
            let after = try store.snapshot()
            do { try UIKitReplay.checkAll(changes, from: before, to: after) } catch {
                Issue.record("step \(step) (seed 2026, \(edits) edits): \(error)\n\(changes)")
                return
            }
            // (A non-empty change set for an unchanged store is possible: a row moved away and back.)
            if changes.isEmpty { #expect(before == after, "step \(step) (seed 2026): an empty change set for a changed store") }
            if edits > 1 { multiEdit += 1 }
            kinds.formUnion(ChangeSetReplayTests.kinds(changes))
            before = after
            if step % 200 == 0 { #expect(try store.checkInvariants().isEmpty) }
        }
        #expect(multiEdit > 1_000)
        #expect(kinds == ["deletedSections", "insertedSections", "movedSections", "updatedSections", "deletedRows", "insertedRows", "movedRows", "updatedRows"])
    }

    @Test func editsSeeEachOtherAndTheWholeIsOneChangeSet() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "Inbox")
        let ids = try store.insertRows(["a", "b", "c", "d"], intoSection: 0).ids
        let (count, changes) = try store.write { tx -> Int in
            try tx.deleteRows(at: [ListIndexPath(section: 0, row: 0), ListIndexPath(section: 0, row: 2)])  // a, c
            let header = try tx.insertRow("header", intoSection: 0, at: 0)
            #expect(try tx.row(at: ListIndexPath(section: 0, row: 0)).id == header)
            try tx.moveRow(id: ids[3], before: ids[1])  // d before b
            return try tx.totalRowCount()
        }
        #expect(count == 3)
        #expect(try store.snapshot().titles == [["header", "d", "b"]])
        #expect(changes.deletedRows.map(\.indexPath) == [ListIndexPath(section: 0, row: 0), ListIndexPath(section: 0, row: 2)])
        #expect(changes.insertedRows.map(\.indexPath) == [ListIndexPath(section: 0, row: 0)])
        #expect(changes.movedRows == [.init(from: ListIndexPath(section: 0, row: 3), to: ListIndexPath(section: 0, row: 1), id: ids[3])])
    }

    @Test func aThrowingTransactionChangesNothingAndATransactionCannotBeUsedAfterwards() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "A")
        try store.insertRows(["a", "b"], intoSection: 0)
        let before = try store.snapshot()
        var escaped: ListTransaction?
        #expect(throws: ListStoreError.rowIndexOutOfRange(ListIndexPath(section: 0, row: 5), rowCount: 1)) {
            try store.write { tx in
                escaped = tx
                try tx.deleteRows(at: [ListIndexPath(section: 0, row: 0)])
                try tx.insertSection(title: "B")
                try tx.deleteRows(at: [ListIndexPath(section: 0, row: 5)])
            }
        }
        #expect(try store.snapshot() == before)
        #expect(throws: ListStoreError.transactionFinished) { try escaped?.insertSection(title: "late") }
        #expect(throws: ListStoreError.transactionFinished) { try escaped?.sectionCount() }
    }

    @Test func observersGetOneChangeSetPerTransaction() async throws {
        let store = try ListStore.inMemory()
        var updates = store.observe(includingOtherConnections: false).makeAsyncIterator()
        // The state is read on a background thread: commits before it arrives are part of it, so the
        // writes follow it.
        guard case .initial? = try await nextElement(&updates) else {
            Issue.record("no initial state")
            return
        }
        let first = try store.insertSection(title: "A").changes
        let changes = try store.write { tx in
            try tx.insertRows(["a", "b"], intoSection: 0)
            try tx.insertSection(title: "B", at: 0)
            try tx.renameSection(at: 1, to: "A2")
        }.changes
        #expect(try await nextElement(&updates) == .changes(first))
        #expect(try await nextElement(&updates) == .changes(changes))
        // Rows inserted into a renamed section: UIKit cannot reload it and insert into it, so it is replaced.
        #expect(changes.deletedSections.map(\.index) == [0])
        #expect(changes.insertedSections.map(\.index) == [0, 1])
        #expect(changes.insertedRows.isEmpty)
    }
}
