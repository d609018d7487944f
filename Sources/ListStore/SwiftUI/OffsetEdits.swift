import Foundation

/// SwiftUI `List`'s own arguments as edits of what was drawn: `onMove(fromOffsets:toOffset:)` gives the
/// rows' offsets in one section and a destination offset in the list *before* the move (what
/// `Array.move(fromOffsets:toOffset:)` takes), where ``moveRow(from:to:)`` takes UIKit's index *after*
/// it; `onDelete(atOffsets:)` gives offsets in one section.
///
/// Each acts on the rows drawn at ``version`` wherever they are now, as every call of the transaction
/// does: a row deleted since refuses the whole write with ``ListStoreError/drawnRowDeleted(_:id:asOf:)``
/// (nothing changes), and the drop point is translated as an insertion point is.
extension AsOfTransaction {
    /// SwiftUI's `onMove` in the section drawn at `section`: the rows drawn at `offsets` go, in their
    /// drawn order, to the gap drawn at `destination` — before the row drawn there, after the rows
    /// above it; the section's drawn row count for its end — exactly as
    /// `Array.move(fromOffsets: offsets, toOffset: destination)` rearranges the drawn rows.
    package func moveRows(fromOffsets offsets: IndexSet, toOffset destination: Int, inSection section: Int) throws {
        try moveRows(at: offsets.map { ListIndexPath(section: section, row: $0) }, toSection: section, atOffset: destination)
    }

    /// The rows drawn at `offsets` of the section drawn at `section`, dropped into the section drawn at
    /// `target` at its drawn gap `destination` (counted in that section as drawn, before the move): a
    /// drag across sections. The rows keep their drawn order. With `target == section`, this is
    /// ``moveRows(fromOffsets:toOffset:inSection:)``.
    package func moveRows(fromOffsets offsets: IndexSet, inSection section: Int, toSection target: Int, atOffset destination: Int) throws {
        try moveRows(at: offsets.map { ListIndexPath(section: section, row: $0) }, toSection: target, atOffset: destination)
    }

    /// The rows drawn at `indexPaths` (any sections, any order) dropped into the section drawn at
    /// `target` at its drawn gap `destination`: they end up together there, in their drawn order (by
    /// index path), between the rows drawn around the gap that are not moved. A repeated index path is
    /// refused with ``ListStoreError/duplicateIndexPath(_:)``.
    package func moveRows(at indexPaths: [ListIndexPath], toSection target: Int, atOffset destination: Int) throws {
        if let repeated = firstRepeated(indexPaths) { throw ListStoreError.duplicateIndexPath(repeated) }
        // Every drawn place is translated before the first edit: the rows, then the gap they go to.
        let ids = try indexPaths.sorted().map { try row(at: $0).id }
        let gap = try indexPath(ofGapDrawnAt: ListIndexPath(section: target, row: destination))
        guard let first = ids.first else { return }
        guard let start = try current.indexPath(of: first) else { throw ListStoreError.unknownRow(first) }
        // `to` is the index after the move: a row leaving from above the gap in its section shifts it up.
        let leavesFromAbove = start.section == gap.section && start.row < gap.row
        try current.moveRow(id: first, to: leavesFromAbove ? ListIndexPath(section: gap.section, row: gap.row - 1) : gap)
        for (previous, id) in zip(ids, ids.dropFirst()) { try current.moveRow(id: id, after: previous) }
    }

    /// SwiftUI's `onDelete` in the section drawn at `section`: deletes the rows drawn at `offsets`.
    package func deleteRows(atOffsets offsets: IndexSet, inSection section: Int) throws {
        try deleteRows(at: offsets.map { ListIndexPath(section: section, row: $0) })
    }
}
