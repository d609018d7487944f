/// What a diffable data source must redraw when it applies a snapshot rebuilt from the new state.
///
/// A snapshot rebuilt from ids (`NSDiffableDataSourceSnapshot` with section ids and row ids) tells the
/// data source only what came, went and moved. Cells and headers whose id it keeps are not redrawn, so
/// every row and section that is still there but looks different must be named: renamed or replaced
/// sections, rows with a new title or payload — also those a change set lists as a deletion plus an
/// insertion of the same id (a row that moved *and* changed, a row inside a replaced section), which
/// the rebuilt snapshot sees as a plain move.
///
/// ```swift
/// let reloads = try mirror.applyReturningReloads(changes)
/// snapshot.reconfigureItems(reloads.itemsToReconfigure)
/// snapshot.reloadSections(reloads.sectionsToReload)
/// ```
public struct DiffableReloads: Hashable, Sendable {
    /// Rows there before and after whose title or payload differs: `reconfigureItems`. Sorted by id, each once.
    public var itemsToReconfigure: [RowID]
    /// Sections there before and after whose title differs: `reloadSections` (their headers). Sorted by id, each once.
    public var sectionsToReload: [SectionID]

    /// Reloads of these rows and sections.
    public init(itemsToReconfigure: [RowID] = [], sectionsToReload: [SectionID] = []) {
        self.itemsToReconfigure = itemsToReconfigure
        self.sectionsToReload = sectionsToReload
    }

    /// True when nothing that stays must be redrawn.
    public var isEmpty: Bool { itemsToReconfigure.isEmpty && sectionsToReload.isEmpty }

    /// What changed in appearance from `before` to `after` for the rows and sections in both, found by
    /// comparing every one: for a `.reset(state)` or `.initial(state)` that replaces a mirror already
    /// shown. Costs O(rows + sections) of both snapshots.
    public init(from before: ListSnapshot, to after: ListSnapshot) {
        var oldRows: [RowID: ListRow] = [:]
        var oldTitles: [SectionID: String] = [:]
        for section in before.sections {
            oldTitles[section.id] = section.title
            for row in section.rows { oldRows[row.id] = row }
        }
        var items: [RowID] = []
        var sections: [SectionID] = []
        for section in after.sections {
            if let title = oldTitles[section.id], title != section.title { sections.append(section.id) }
            for row in section.rows {
                if let old = oldRows[row.id], old != row { items.append(row.id) }
            }
        }
        self.init(itemsToReconfigure: items.sorted(), sectionsToReload: sections.sorted())
    }
}

extension ChangeSet {
    /// What a diffable data source must redraw for this change set, applied to `before` (the state it
    /// was made from): the rows and sections in both states whose appearance differs. Reads only the
    /// entries of the change set and the rows of the sections it deletes, never the whole state: a row
    /// that comes back under its id (an insertion, or a row of an inserted section) left its old place as
    /// a deletion, or inside a deleted section — there its old value is found. Throws
    /// ``ListSnapshot/ApplyError`` when the change set does not fit `before`.
    func diffableReloads(from before: ListSnapshot) throws -> DiffableReloads {
        func fail(_ text: String) -> ListSnapshot.ApplyError { ListSnapshot.ApplyError(description: text) }
        func oldRow(at path: ListIndexPath, id: RowID) throws -> ListRow {
            guard let row = before[path], row.id == id else { throw fail("row \(path) is not \(id)") }
            return row
        }
        func oldSection(at index: Int, id: SectionID) throws -> SectionSnapshot {
            guard before.sections.indices.contains(index), before.sections[index].id == id else { throw fail("section \(index) is not \(id)") }
            return before.sections[index]
        }

        var leftRows: [RowID: ListRow] = [:]
        var leftTitles: [SectionID: String] = [:]
        for deletion in deletedRows { leftRows[deletion.id] = try oldRow(at: deletion.indexPath, id: deletion.id) }
        for deletion in deletedSections {
            let section = try oldSection(at: deletion.index, id: deletion.id)
            leftTitles[section.id] = section.title
            for row in section.rows { leftRows[row.id] = row }
        }

        var items = Set<RowID>()
        var sections = Set<SectionID>()
        for update in updatedRows where try oldRow(at: update.indexPath, id: update.id) != update.row { items.insert(update.id) }
        for update in updatedSections where try oldSection(at: update.index, id: update.id).title != update.title { sections.insert(update.id) }
        for insertion in insertedRows {
            if let old = leftRows[insertion.id], old != insertion.row { items.insert(insertion.id) }
        }
        for insertion in insertedSections {
            if let title = leftTitles[insertion.id], title != insertion.section.title { sections.insert(insertion.id) }
            for row in insertion.section.rows {
                if let old = leftRows[row.id], old != row { items.insert(row.id) }
            }
        }
        return DiffableReloads(itemsToReconfigure: items.sorted(), sectionsToReload: sections.sorted())
    }
}

extension ListSnapshot {
    /// Applies `changes` like ``apply(_:)`` and returns what a diffable data source showing this snapshot
    /// must redraw once it applies a snapshot rebuilt from the result (see ``DiffableReloads``): rows and
    /// sections that stay but look different, including rows that moved *and* changed and the rows and
    /// headers of replaced sections. One call, so the comparison always sees the state before the change.
    /// Costs what ``apply(_:)`` costs plus O(entries of `changes` + rows of the sections it deletes).
    /// Throws ``ApplyError`` (and leaves the snapshot as it was) when the change set does not fit.
    public mutating func applyReturningReloads(_ changes: ChangeSet) throws -> DiffableReloads {
        let reloads = try changes.diffableReloads(from: self)
        try apply(changes)
        return reloads
    }
}
