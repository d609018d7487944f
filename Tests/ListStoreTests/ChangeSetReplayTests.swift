import Testing

@testable import ListStore

/// Replays a change set on the old snapshot the way UIKit's batch updates do, and checks that it gives
/// the new snapshot: the property that makes "change the data, then tell the table" impossible to get wrong.
enum UIKitReplay {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func check(_ changes: ChangeSet, from old: ListSnapshot, to new: ListSnapshot) throws {
        try checkSortedAndUnique(changes)
        // Sections: remove deletions and move sources, place insertions and move destinations, fill the rest in old order.
        let removedSections = Set(changes.deletedSections.map(\.index)).union(changes.movedSections.map(\.from))
        for section in changes.deletedSections where old.sections.indices.contains(section.index) == false || old.sections[section.index].id != section.id {
            throw Failure(description: "deleted section \(section.index) is not \(section.id) before the change")
        }
        var slots = [SectionID?](repeating: nil, count: old.sections.count - changes.deletedSections.count + changes.insertedSections.count)
        guard slots.count == new.sections.count else { throw Failure(description: "section count \(slots.count) ≠ \(new.sections.count)") }
        for section in changes.insertedSections { slots[section.index] = section.id }
        for move in changes.movedSections {
            guard old.sections[move.from].id == move.id, slots[move.to] == nil else { throw Failure(description: "bad section move \(move)") }
            slots[move.to] = move.id
        }
        var oldIndexOfNew: [Int: Int] = [:]
        var survivors = old.sections.indices.filter { !removedSections.contains($0) }.makeIterator()
        for index in slots.indices where slots[index] == nil {
            guard let survivor = survivors.next() else { throw Failure(description: "not enough surviving sections") }
            slots[index] = old.sections[survivor].id
            oldIndexOfNew[index] = survivor
        }
        for move in changes.movedSections { oldIndexOfNew[move.to] = move.from }
        guard survivors.next() == nil else { throw Failure(description: "surviving sections left over") }
        guard slots.map({ $0! }) == new.sections.map(\.id) else { throw Failure(description: "section ids differ after replay") }

        // Rows, per section that existed before.
        for (newIndex, section) in new.sections.enumerated() {
            guard let oldIndex = oldIndexOfNew[newIndex] else { continue }  // an inserted section: its rows come with it
            let oldRows = old.sections[oldIndex].rows
            let removed = Set(changes.deletedRows.filter { $0.indexPath.section == oldIndex }.map(\.indexPath.row))
                .union(changes.movedRows.filter { $0.from.section == oldIndex }.map(\.from.row))
            for row in changes.deletedRows where row.indexPath.section == oldIndex {
                guard oldRows.indices.contains(row.indexPath.row), oldRows[row.indexPath.row].id == row.id else {
                    throw Failure(description: "deleted row \(row.indexPath) is not \(row.id)")
                }
            }
            var rowSlots = [RowID?](repeating: nil, count: section.rows.count)
            for row in changes.insertedRows where row.indexPath.section == newIndex {
                guard rowSlots.indices.contains(row.indexPath.row), rowSlots[row.indexPath.row] == nil else { throw Failure(description: "bad insert \(row)") }
                rowSlots[row.indexPath.row] = row.id
            }
            for move in changes.movedRows where move.to.section == newIndex {
                guard rowSlots.indices.contains(move.to.row), rowSlots[move.to.row] == nil else { throw Failure(description: "bad move \(move)") }
                rowSlots[move.to.row] = move.id
            }
            var rowSurvivors = oldRows.indices.filter { !removed.contains($0) }.makeIterator()
            for index in rowSlots.indices where rowSlots[index] == nil {
                guard let survivor = rowSurvivors.next() else { throw Failure(description: "section \(newIndex): row counts do not add up") }
                rowSlots[index] = oldRows[survivor].id
            }
            guard rowSurvivors.next() == nil else { throw Failure(description: "section \(newIndex): surviving rows left over") }
            guard rowSlots.map({ $0! }) == section.rows.map(\.id) else { throw Failure(description: "section \(newIndex): row ids differ after replay") }
        }
        for move in changes.movedRows {
            guard old[move.from]?.id == move.id, new[move.to]?.id == move.id else { throw Failure(description: "move \(move) does not match") }
        }

        // Updates: exactly the rows whose content changed and that are neither moved nor re-inserted.
        let listedAsOther = Set(changes.deletedRows.map(\.id)).union(changes.insertedRows.map(\.id)).union(changes.movedRows.map(\.id))
        var newRows: [RowID: ListRow] = [:]
        for section in new.sections { for row in section.rows { newRows[row.id] = row } }
        for row in changes.updatedRows {
            guard let before = old[row.indexPath], before.id == row.id, let after = newRows[row.id], before != after else {
                throw Failure(description: "updated row \(row.indexPath) is wrong")
            }
        }
        let updated = Set(changes.updatedRows.map(\.id))
        for (s, section) in old.sections.enumerated() where !Set(changes.deletedSections.map(\.index)).contains(s) {
            for row in section.rows where !listedAsOther.contains(row.id) {
                if let after = newRows[row.id], after != row, !updated.contains(row.id) {
                    throw Failure(description: "row \(row.id) changed but is not listed as updated")
                }
            }
        }

        // The same changes as CollectionDifferences over ids.
        guard let sectionDifference = changes.sectionDifference,
            old.sections.map(\.id).applying(sectionDifference) == new.sections.map(\.id)
        else {
            throw Failure(description: "the section CollectionDifference does not give the new section ids")
        }
        guard let rowDifferences = changes.rowDifferences(oldSectionCount: old.sections.count) else {
            throw Failure(description: "the row CollectionDifferences are inconsistent")
        }
        for difference in rowDifferences {
            guard
                old.sections[difference.sectionBefore].rows.map(\.id).applying(difference.difference)
                    == new.sections[difference.sectionAfter].rows.map(\.id)
            else {
                throw Failure(description: "section \(difference.sectionBefore): the row CollectionDifference does not give the new row ids")
            }
        }
    }

    /// Everything a change set from `old` to `new` must be: replayed with UIKit's rules it gives `new`,
    /// it keeps UIKit's batch rules, applied to `old` as a mirror it gives `new`, and what it says a
    /// diffable data source must redraw is exactly what comparing `old` and `new` finds.
    static func checkAll(_ changes: ChangeSet, from old: ListSnapshot, to new: ListSnapshot) throws {
        try check(changes, from: old, to: new)
        try checkBatchRules(changes, oldSectionCount: old.sections.count)
        guard try old.applying(changes) == new else { throw Failure(description: "applying the change set does not give the new state") }
        var mirror = old
        let reloads = try mirror.applyReturningReloads(changes)
        let expected = DiffableReloads(from: old, to: new)
        guard reloads == expected else { throw Failure(description: "the diffable reloads are \(reloads), not \(expected)") }
    }

    static func checkSortedAndUnique(_ changes: ChangeSet) throws {
        func sortedUnique<T: Hashable>(_ values: [T], _ name: String, by precedes: (T, T) -> Bool) throws {
            guard values == values.sorted(by: precedes), Set(values).count == values.count else { throw Failure(description: "\(name) not sorted and unique") }
        }
        try sortedUnique(changes.deletedSections, "deleted sections", by: ChangeSet.SectionChange.precedes)
        try sortedUnique(changes.insertedSections, "inserted sections", by: ChangeSet.SectionInsertion.precedes)
        try sortedUnique(changes.movedSections, "moved sections", by: ChangeSet.SectionMove.precedes)
        try sortedUnique(changes.deletedRows, "deleted rows", by: ChangeSet.RowChange.precedes)
        try sortedUnique(changes.insertedRows, "inserted rows", by: ChangeSet.RowValue.precedes)
        try sortedUnique(changes.movedRows, "moved rows", by: ChangeSet.RowMove.precedes)
        try sortedUnique(changes.updatedRows, "updated rows", by: ChangeSet.RowValue.precedes)
        let deletedSections = Set(changes.deletedSections.map(\.index))
        let insertedSections = Set(changes.insertedSections.map(\.index))
        if changes.deletedRows.contains(where: { deletedSections.contains($0.indexPath.section) })
            || changes.insertedRows.contains(where: { insertedSections.contains($0.indexPath.section) })
        {
            throw Failure(description: "rows of a deleted or inserted section are listed separately")
        }
    }

    /// UIKit's stricter rules, which the replay alone does not catch: a section appears at most once among
    /// deletions, updates and move sources, and at most once among insertions and move targets; no row
    /// entries inside moved or reloaded sections.
    static func checkBatchRules(_ changes: ChangeSet, oldSectionCount: Int) throws {
        let sources = changes.deletedSections.map(\.id) + changes.updatedSections.map(\.id) + changes.movedSections.map(\.id)
        guard Set(sources).count == sources.count else { throw Failure(description: "a section is deleted, updated or moved twice") }
        let targets = changes.insertedSections.map(\.id) + changes.movedSections.map(\.id)
        guard Set(targets).count == targets.count else { throw Failure(description: "a section is inserted or moved twice") }
        let rowSources = changes.deletedRows.map(\.id) + changes.updatedRows.map(\.id) + changes.movedRows.map(\.id)
        guard Set(rowSources).count == rowSources.count else { throw Failure(description: "a row is deleted, updated or moved twice") }
        let frozenBefore = Set(changes.movedSections.map(\.from)).union(changes.updatedSections.map(\.index))
        let mapping = changes.sectionIndexMapping(oldCount: oldSectionCount)
        let frozenAfter = Set(changes.movedSections.map(\.to)).union(changes.updatedSections.compactMap { mapping[$0.index] })
        if (changes.deletedRows.map(\.indexPath) + changes.updatedRows.map(\.indexPath) + changes.movedRows.map(\.from)).contains(where: { frozenBefore.contains($0.section) })
            || (changes.insertedRows.map(\.indexPath) + changes.movedRows.map(\.to)).contains(where: { frozenAfter.contains($0.section) })
        {
            throw Failure(description: "rows of a moved or reloaded section are listed")
        }
    }
}

@Suite struct ChangeSetReplayTests {
    /// A valid random mutation of `store` (at least one kind of each), returning its change set.
    static func randomMutation(_ store: ListStore, _ snapshot: ListSnapshot, _ random: inout SeededGenerator) throws -> ChangeSet {
        let sections = snapshot.sections
        let nonEmpty = sections.indices.filter { !sections[$0].rows.isEmpty }
        let rowTotal = snapshot.rowCount
        func anyPath() -> ListIndexPath? {
            guard let s = nonEmpty.randomElement(using: &random) else { return nil }
            return ListIndexPath(section: s, row: Int.random(in: 0..<sections[s].rows.count, using: &random))
        }
        switch Int.random(in: 0..<12, using: &random) {
        case 0 where sections.count < 6:
            return try store.insertSection(title: "s\(Int.random(in: 0..<9, using: &random))", at: Int.random(in: 0...sections.count, using: &random)).changes
        case 1 where !sections.isEmpty:
            return try store.renameSection(at: Int.random(in: 0..<sections.count, using: &random), to: ["a", "b"].randomElement(using: &random)!)
        case 2 where sections.count > 1:
            return try store.moveSection(from: Int.random(in: 0..<sections.count, using: &random), to: Int.random(in: 0..<sections.count, using: &random))
        case 3 where sections.count > 3:
            let indexes = Array(Set((0..<2).map { _ in Int.random(in: 0..<sections.count, using: &random) }))
            return try store.deleteSections(at: indexes)
        case 4, 5:
            guard !sections.isEmpty, rowTotal < 300 else { break }
            let s = Int.random(in: 0..<sections.count, using: &random)
            let rows = (0..<Int.random(in: 1...3, using: &random)).map { _ in NewRow(title: "r\(Int.random(in: 0..<5, using: &random))") }
            return try store.insertRows(rows, intoSection: s, at: Int.random(in: 0...sections[s].rows.count, using: &random)).changes
        case 6 where rowTotal < 300:
            return try store.appendRowToEverySection("every").changes
        case 7:
            guard let path = anyPath() else { break }
            return try store.updateRow(at: path, title: Bool.random(using: &random) ? "edited" : nil, payload: .set("{\"n\":\(Int.random(in: 0..<3, using: &random))}"))
        case 8, 9:
            guard let from = anyPath() else { break }
            let s = Int.random(in: 0..<sections.count, using: &random)
            let limit = s == from.section ? sections[s].rows.count - 1 : sections[s].rows.count
            return try store.moveRow(from: from, to: ListIndexPath(section: s, row: Int.random(in: 0...limit, using: &random)))
        case 10, 11:
            let paths = Set((0..<Int.random(in: 1...5, using: &random)).compactMap { _ in anyPath() })
            guard !paths.isEmpty else { break }
            return try store.deleteRows(at: Array(paths))
        default:
            break
        }
        return try store.insertSection(title: "fallback", at: 0).changes
    }

    @Test func everyMutationsChangeSetReplaysOntoTheNewSnapshot() throws {
        let store = try ListStore.inMemory()
        var random = SeededGenerator(seed: 4_242)
        var before = try store.snapshot()
        var kinds = Set<String>()
        for step in 0..<5_000 {
            let changes = try Self.randomMutation(store, before, &random)
            let after = try store.snapshot()
            do { try UIKitReplay.checkAll(changes, from: before, to: after) } catch {
                Issue.record("step \(step): \(error)\n\(changes)")
                return
            }
            if changes.isEmpty { #expect(before == after, "an empty change set must mean an unchanged store") }
            kinds.formUnion(Self.kinds(changes))
            before = after
        }
        #expect(kinds == ["deletedSections", "insertedSections", "movedSections", "updatedSections", "deletedRows", "insertedRows", "movedRows", "updatedRows"])
    }

    @Test func snapshotDiffsReplayToo() throws {
        // Several mutations at once, as another process might commit them, compared by ids.
        let store = try ListStore.inMemory()
        var random = SeededGenerator(seed: 77)
        var before = try store.snapshot()
        for step in 0..<3_000 {
            var current = before
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                _ = try Self.randomMutation(store, current, &random)
                current = try store.snapshot()
            }
            let diff = ChangeSet.between(before, current)
            do { try UIKitReplay.checkAll(diff, from: before, to: current) } catch {
                Issue.record("step \(step): \(error)\n\(diff)")
                return
            }
            #expect(diff.isEmpty == (before == current))
            before = current
        }
    }

    @Test func singleMutationChangeSets() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "A")
        try store.insertSection(title: "B")
        let ids = try store.insertRows(["a0", "a1", "a2"], intoSection: 0).ids
        let moved = try store.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 1, row: 0))
        #expect(moved.movedRows == [.init(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 1, row: 0), id: ids[0])])
        #expect(try store.moveRow(from: ListIndexPath(section: 0, row: 1), to: ListIndexPath(section: 0, row: 1)).isEmpty)
        #expect(try store.renameSection(at: 0, to: "A").isEmpty)
        #expect(try store.updateRow(at: ListIndexPath(section: 0, row: 0), title: "a1").isEmpty)
        let deleted = try store.deleteSections(at: [1])
        #expect(deleted.deletedSections.map(\.index) == [1])
        #expect(deleted.deletedRows.isEmpty, "rows of a deleted section are implied")
    }

    static func kinds(_ changes: ChangeSet) -> Set<String> {
        var kinds = Set<String>()
        if !changes.deletedSections.isEmpty { kinds.insert("deletedSections") }
        if !changes.insertedSections.isEmpty { kinds.insert("insertedSections") }
        if !changes.movedSections.isEmpty { kinds.insert("movedSections") }
        if !changes.updatedSections.isEmpty { kinds.insert("updatedSections") }
        if !changes.deletedRows.isEmpty { kinds.insert("deletedRows") }
        if !changes.insertedRows.isEmpty { kinds.insert("insertedRows") }
        if !changes.movedRows.isEmpty { kinds.insert("movedRows") }
        if !changes.updatedRows.isEmpty { kinds.insert("updatedRows") }
        return kinds
    }
}
