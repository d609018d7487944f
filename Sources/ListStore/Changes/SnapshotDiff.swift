/// Change sets computed by comparing two snapshots by ids: how changes made elsewhere (another process,
/// the `sqlite3` shell) are reported. Moves are inferred, keeping the longest run of items that stayed
/// in order in place and listing the others as moved.
extension ChangeSet {
    /// What changed from `old` to `new`, in the same coordinates as a mutation's change set.
    /// A row that both moved and changed content is listed as deleted and inserted, since UIKit
    /// cannot reload and move one row in the same batch.
    public static func between(_ old: ListSnapshot, _ new: ListSnapshot) -> ChangeSet {
        var changes = ChangeSet()
        let oldSectionIndex = Dictionary(old.sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let newSectionIndex = Dictionary(new.sections.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })

        // Sections.
        for (index, section) in old.sections.enumerated() where newSectionIndex[section.id] == nil {
            changes.deletedSections.append(.init(index: index, id: section.id))
        }
        for (index, section) in new.sections.enumerated() where oldSectionIndex[section.id] == nil {
            changes.insertedSections.append(.init(index: index, id: section.id))
        }
        let keptSections = new.sections.enumerated().compactMap { index, section in
            oldSectionIndex[section.id].map { (old: $0, new: index, id: section.id) }
        }
        let sectionsInOrder = longestIncreasingRun(keptSections.map(\.old))
        for section in keptSections where !sectionsInOrder.contains(section.old) {
            changes.movedSections.append(.init(from: section.old, to: section.new, id: section.id))
        }
        for section in keptSections where old.sections[section.old].title != new.sections[section.new].title {
            changes.updatedSections.append(.init(index: section.old, id: section.id))
        }

        // Rows.
        var oldRows: [RowID: (path: ListIndexPath, row: ListRow)] = [:]
        for (s, section) in old.sections.enumerated() {
            for (r, row) in section.rows.enumerated() { oldRows[row.id] = (ListIndexPath(section: s, row: r), row) }
        }
        var newRows: [RowID: ListIndexPath] = [:]
        for (s, section) in new.sections.enumerated() {
            for (r, row) in section.rows.enumerated() { newRows[row.id] = ListIndexPath(section: s, row: r) }
        }
        let deletedSectionIndexes = Set(changes.deletedSections.map(\.index))
        let insertedSectionIndexes = Set(changes.insertedSections.map(\.index))
        let sectionAfter = Dictionary(keptSections.map { ($0.old, $0.new) }, uniquingKeysWith: { first, _ in first })

        func delete(_ path: ListIndexPath, _ id: RowID) {
            if !deletedSectionIndexes.contains(path.section) { changes.deletedRows.append(.init(indexPath: path, id: id)) }
        }
        func insert(_ path: ListIndexPath, _ id: RowID) {
            if !insertedSectionIndexes.contains(path.section) { changes.insertedRows.append(.init(indexPath: path, id: id)) }
        }

        for (oldPath, row) in oldRows.values where newRows[row.id] == nil { delete(oldPath, row.id) }
        for (s, section) in new.sections.enumerated() {
            // Rows that were already in this section, in their new order, by old index.
            var stayed: [(old: Int, new: Int, row: ListRow)] = []
            for (r, row) in section.rows.enumerated() {
                let newPath = ListIndexPath(section: s, row: r)
                guard let (oldPath, oldRow) = oldRows[row.id] else { insert(newPath, row.id); continue }
                let changedContent = oldRow.title != row.title || oldRow.payload != row.payload
                if deletedSectionIndexes.contains(oldPath.section) || insertedSectionIndexes.contains(s) {
                    // One side is covered by a whole-section change; the other is an insert or delete.
                    insert(newPath, row.id)
                    delete(oldPath, row.id)
                } else if sectionAfter[oldPath.section] == s {
                    stayed.append((oldPath.row, r, row))
                } else if changedContent {
                    delete(oldPath, row.id)
                    insert(newPath, row.id)
                } else {
                    changes.movedRows.append(.init(from: oldPath, to: newPath, id: row.id))
                }
            }
            guard let oldSection = stayed.first.flatMap({ oldRows[$0.row.id]?.path.section }) else { continue }
            let inOrder = longestIncreasingRun(stayed.map(\.old))
            for entry in stayed {
                let oldPath = ListIndexPath(section: oldSection, row: entry.old)
                let newPath = ListIndexPath(section: s, row: entry.new)
                let changedContent = oldRows[entry.row.id].map { $0.row.title != entry.row.title || $0.row.payload != entry.row.payload } ?? false
                if inOrder.contains(entry.old) {
                    if changedContent { changes.updatedRows.append(.init(indexPath: oldPath, id: entry.row.id)) }
                } else if changedContent {
                    delete(oldPath, entry.row.id)
                    insert(newPath, entry.row.id)
                } else {
                    changes.movedRows.append(.init(from: oldPath, to: newPath, id: entry.row.id))
                }
            }
        }
        return changes.sorted()
    }

    /// The values of one longest strictly increasing subsequence of `values` (patience sorting, O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []          // index into `values` of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
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
