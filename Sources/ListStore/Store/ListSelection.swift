/// The rows selected in a Mail-style edit mode, held by identity.
///
/// Because it holds row ids rather than index paths, it stays right while rows move or other rows are
/// inserted and deleted; rows deleted elsewhere simply drop out. Draw checkmarks at its index paths in the
/// snapshot the table view shows (``indexPaths(in:)``), and delete the selection in one transaction
/// (``deleteSelected(in:actionName:)``).
public struct ListSelection: Hashable, Sendable {
    /// The selected rows' ids.
    public private(set) var ids: Set<RowID> = []

    /// An empty selection.
    public init() {}

    /// A selection of `ids`.
    public init(_ ids: some Sequence<RowID>) { self.ids = Set(ids) }

    /// Whether the row with `id` is selected.
    public func contains(_ id: RowID) -> Bool { ids.contains(id) }

    /// The number of selected ids (some may have been deleted elsewhere since: see ``removeDeleted(in:)``).
    public var count: Int { ids.count }

    /// True when nothing is selected.
    public var isEmpty: Bool { ids.isEmpty }

    /// Selects the row with `id` if it was not selected, and deselects it otherwise.
    public mutating func toggle(_ id: RowID) {
        if ids.remove(id) == nil { ids.insert(id) }
    }

    /// Toggles the row drawn at `indexPath` in `mirror` (the snapshot a table view shows): the row the
    /// user tapped, whatever was committed since, with no store read. Throws
    /// ``ListStoreError/Family/notFound`` for a path the mirror does not have.
    public mutating func toggle(drawnAt indexPath: ListIndexPath, in mirror: ListSnapshot) throws {
        guard let row = mirror[indexPath] else {
            guard mirror.sections.indices.contains(indexPath.section) else {
                throw ListStoreError.sectionIndexOutOfRange(index: indexPath.section, sectionCount: mirror.sections.count)
            }
            throw ListStoreError.rowIndexOutOfRange(indexPath, rowCount: mirror.sections[indexPath.section].rows.count)
        }
        toggle(row.id)
    }

    /// Deselects everything.
    public mutating func removeAll() { ids.removeAll() }

    /// The index paths of the selected rows in `mirror` (the snapshot a table view shows: draw the
    /// checkmarks there), sorted; rows the mirror no longer has have none. One pass over the mirror.
    public func indexPaths(in mirror: ListSnapshot) -> [ListIndexPath] {
        var found: [ListIndexPath] = []
        for (sectionIndex, section) in mirror.sections.enumerated() {
            for (rowIndex, row) in section.rows.enumerated() where ids.contains(row.id) {
                found.append(ListIndexPath(section: sectionIndex, row: rowIndex))
            }
        }
        return found
    }

    /// Forgets the selected rows `mirror` no longer has (deleted since, here or elsewhere), so that
    /// ``count`` counts only rows the table view shows.
    public mutating func removeDeleted(in mirror: ListSnapshot) {
        var shown: Set<RowID> = []
        for section in mirror.sections {
            for row in section.rows where ids.contains(row.id) { shown.insert(row.id) }
        }
        ids = shown
    }

    /// The current index paths of the selected rows that still exist in `store`, sorted.
    package func indexPaths(in store: ListStore) throws -> [ListIndexPath] {
        try store.indexPaths(of: Array(ids)).values.sorted()
    }

    /// Forgets the selected rows that no longer exist in `store`.
    package mutating func removeDeleted(in store: ListStore) throws {
        ids = Set(try store.indexPaths(of: Array(ids)).keys)
    }
}

extension ListSelection {
    /// Deletes the selected rows that still exist, wherever they are now, in one transaction named
    /// `actionName` (the undo menu's "Undo Delete 3 Rows"), and empties the selection. Rows already
    /// deleted elsewhere are skipped, not an error.
    @discardableResult
    public mutating func deleteSelected(in store: ListStore, actionName: String? = nil) throws -> ChangeSet {
        let ids = self.ids.sorted()
        let changes = try store.write(actionName: actionName) { transaction in
            let existing = ids.filter { id in
                (try? transaction.db.location(of: id, list: transaction.list)) != nil
            }
            try transaction.deleteRows(ids: existing)
        }.changes
        removeAll()
        return changes
    }
}

extension ListStore {
    /// The current index paths of the rows with `ids` that still exist, in one read.
    package func indexPaths(of ids: [RowID]) throws -> [RowID: ListIndexPath] {
        try withReadTransaction { db in
            var found: [RowID: ListIndexPath] = [:]
            for id in ids {
                if let location = try? db.location(of: id, list: listID) { found[id] = location.path }
            }
            return found
        }
    }
}
