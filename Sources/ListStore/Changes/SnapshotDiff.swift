/// Change sets computed by comparing two snapshots by ids: how changes made elsewhere (another process,
/// the `sqlite3` shell) are reported. Moves are inferred, keeping the longest run of items that stayed
/// in order in place and listing the others as moved.
extension ChangeSet {
    /// What changed from `old` to `new`, in the same coordinates as a mutation's change set, and
    /// valid for UIKit's batch updates: a row that both moved and changed content is deleted and
    /// inserted; a section that moved or was renamed while its rows changed (or moved and was renamed)
    /// is deleted and inserted whole, since UIKit cannot reload or move a section and change its rows
    /// in one batch. The change set's version is `new`'s.
    public static func between(_ old: ListSnapshot, _ new: ListSnapshot) -> ChangeSet {
        let oldSectionIndex = Dictionary(old.sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newSectionIndex = Dictionary(new.sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let kept = new.sections.enumerated().compactMap { index, section in
            oldSectionIndex[section.id].map { (old: $0, new: index, id: section.id) }
        }
        let inOrder = longestIncreasingRun(kept.map(\.old))
        let moved = Set(kept.filter { !inOrder.contains($0.old) }.map(\.old))
        let renamed = Set(kept.filter { old.sections[$0.old].title != new.sections[$0.new].title }.map(\.old))
        let deleted = Set(old.sections.indices.filter { newSectionIndex[old.sections[$0].id] == nil })
        let inserted = Set(new.sections.indices.filter { oldSectionIndex[new.sections[$0].id] == nil })
        let newIndexOf = Dictionary(kept.map { ($0.old, $0.new) }, uniquingKeysWith: { first, _ in first })

        // Rows as if only deleted and inserted sections were whole; then replace the kept sections whose
        // row changes UIKit could not combine with their move or rename, and list the rows again.
        let first = rowChanges(old, new, gone: deleted, arrived: inserted, sectionAfter: newIndexOf)
        let replaced = Set(
            kept.map(\.old).filter { index in
                let rowsChanged = first.touchedOld.contains(index) || newIndexOf[index].map(first.touchedNew.contains) == true
                return mustReplaceSection(moved: moved.contains(index), renamed: renamed.contains(index), rowsChanged: rowsChanged)
            })
        var changes =
            replaced.isEmpty
            ? first.changes
            : rowChanges(old, new, gone: deleted.union(replaced), arrived: inserted.union(replaced.compactMap { newIndexOf[$0] }), sectionAfter: newIndexOf).changes

        for index in deleted.union(replaced) { changes.deletedSections.append(.init(index: index, id: old.sections[index].id)) }
        for index in inserted.union(replaced.compactMap { newIndexOf[$0] }) {
            changes.insertedSections.append(.init(index: index, section: new.sections[index]))
        }
        for section in kept where !replaced.contains(section.old) {
            if moved.contains(section.old) {
                changes.movedSections.append(.init(from: section.old, to: section.new, id: section.id))
            } else if renamed.contains(section.old) {
                changes.updatedSections.append(.init(index: section.old, id: section.id, title: new.sections[section.new].title))
            }
        }
        changes.version = new.version
        return changes.sorted()
    }

    /// The row changes from `old` to `new` when the old sections `gone` and the new sections `arrived`
    /// are listed whole (their rows are not listed), with the sections whose rows changed.
    private static func rowChanges(
        _ old: ListSnapshot, _ new: ListSnapshot, gone: Set<Int>, arrived: Set<Int>,
        sectionAfter: [Int: Int]
    ) -> (changes: ChangeSet, touchedOld: Set<Int>, touchedNew: Set<Int>) {
        var changes = ChangeSet()
        var touchedOld = Set<Int>()
        var touchedNew = Set<Int>()
        var oldRows: [RowID: (path: ListIndexPath, row: ListRow)] = [:]
        for (s, section) in old.sections.enumerated() {
            for (r, row) in section.rows.enumerated() { oldRows[row.id] = (ListIndexPath(section: s, row: r), row) }
        }
        var newRows = Set<RowID>()
        for section in new.sections { for row in section.rows { newRows.insert(row.id) } }

        func delete(_ path: ListIndexPath, _ id: RowID) {
            touchedOld.insert(path.section)
            if !gone.contains(path.section) { changes.deletedRows.append(.init(indexPath: path, id: id)) }
        }
        func insert(_ path: ListIndexPath, _ row: ListRow) {
            touchedNew.insert(path.section)
            if !arrived.contains(path.section) { changes.insertedRows.append(.init(indexPath: path, row: row)) }
        }
        func move(_ from: ListIndexPath, _ to: ListIndexPath, _ id: RowID) {
            touchedOld.insert(from.section)
            touchedNew.insert(to.section)
            changes.movedRows.append(.init(from: from, to: to, id: id))
        }
        func changed(_ a: ListRow, _ b: ListRow) -> Bool { a.title != b.title || a.payload != b.payload }

        for (oldPath, row) in oldRows.values where !newRows.contains(row.id) { delete(oldPath, row.id) }
        for (s, section) in new.sections.enumerated() {
            // Rows that were already in this section, in their new order, by old index.
            var stayed: [(old: Int, new: Int, row: ListRow)] = []
            var stayedFrom: Int?
            for (r, row) in section.rows.enumerated() {
                let newPath = ListIndexPath(section: s, row: r)
                guard let (oldPath, oldRow) = oldRows[row.id] else {
                    insert(newPath, row)
                    continue
                }
                if gone.contains(oldPath.section) || arrived.contains(s) {
                    // One side is covered by a whole-section change; the other is an insert or delete.
                    insert(newPath, row)
                    delete(oldPath, row.id)
                } else if sectionAfter[oldPath.section] == s {
                    stayed.append((oldPath.row, r, row))
                    stayedFrom = oldPath.section
                } else if changed(oldRow, row) {
                    delete(oldPath, row.id)
                    insert(newPath, row)
                } else {
                    move(oldPath, newPath, row.id)
                }
            }
            guard let oldSection = stayedFrom else { continue }
            let rowsInOrder = longestIncreasingRun(stayed.map(\.old))
            for entry in stayed {
                let oldPath = ListIndexPath(section: oldSection, row: entry.old)
                let newPath = ListIndexPath(section: s, row: entry.new)
                let contentChanged = oldRows[entry.row.id].map { changed($0.row, entry.row) } ?? false
                if rowsInOrder.contains(entry.old) {
                    if contentChanged {
                        touchedOld.insert(oldSection)
                        changes.updatedRows.append(.init(indexPath: oldPath, row: entry.row))
                    }
                } else if contentChanged {
                    delete(oldPath, entry.row.id)
                    insert(newPath, entry.row)
                } else {
                    move(oldPath, newPath, entry.row.id)
                }
            }
        }
        return (changes, touchedOld, touchedNew)
    }

    /// The values of one longest strictly increasing subsequence of `values` (patience sorting, O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // index into `values` of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run = Set<Int>()
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            run.insert(values[cursor])
            cursor = previous[cursor]
        }
        return run
    }
}
