/// Row edits, each its own write transaction: shorthands for ``ListStore/write(_:)-3oqvi`` with one edit.
/// Inserts return the new ids, as the transaction's inserts do, with the change set.
extension ListStore {
    /// Inserts `rows` into section `section`, in order, starting at row index `index` (at the end when nil).
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], intoSection section: Int, at index: Int? = nil) throws -> (ids: [RowID], changes: ChangeSet) {
        try returningIDs { try $0.insertRows(rows, intoSection: section, at: index) }
    }

    /// Inserts `rows` into the section with id `section`, starting at row index `index` (at the end when nil).
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], intoSection section: SectionID, at index: Int? = nil) throws -> (ids: [RowID], changes: ChangeSet) {
        try returningIDs { try $0.insertRows(rows, intoSection: section, at: index) }
    }

    /// Inserts `rows` just before the row with id `anchor`.
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], before anchor: RowID) throws -> (ids: [RowID], changes: ChangeSet) {
        try returningIDs { try $0.insertRows(rows, before: anchor) }
    }

    /// Inserts `rows` just after the row with id `anchor`.
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], after anchor: RowID) throws -> (ids: [RowID], changes: ChangeSet) {
        try returningIDs { try $0.insertRows(rows, after: anchor) }
    }

    /// Inserts one row into section `section` at `index` (at the end when nil).
    @discardableResult
    public func insertRow(_ row: some NewRowConvertible, intoSection section: Int, at index: Int? = nil) throws -> (id: RowID, changes: ChangeSet) {
        try returningID { try $0.insertRow(row, intoSection: section, at: index) }
    }

    /// Inserts one row into the section with id `section` at `index` (at the end when nil).
    @discardableResult
    public func insertRow(_ row: some NewRowConvertible, intoSection section: SectionID, at index: Int? = nil) throws -> (id: RowID, changes: ChangeSet) {
        try returningID { try $0.insertRow(row, intoSection: section, at: index) }
    }

    /// Appends `row` to the end of every section, in one transaction (a table view's "add" button).
    @discardableResult
    public func appendRowToEverySection(_ row: some NewRowConvertible) throws -> (ids: [RowID], changes: ChangeSet) {
        try returningIDs { try $0.appendRowToEverySection(row) }
    }

    /// Changes the title and/or payload of the row at `indexPath`; nil `title` keeps the title.
    @discardableResult
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        try write { try $0.updateRow(at: indexPath, title: title, payload: payload) }
    }

    /// Changes the title and/or payload of the row with `id`, wherever it is now.
    @discardableResult
    public func updateRow(id: RowID, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        try write { try $0.updateRow(id: id, title: title, payload: payload) }
    }

    /// Moves the row at `from` so that its index path after the move is `to`.
    @discardableResult
    public func moveRow(from: ListIndexPath, to: ListIndexPath) throws -> ChangeSet {
        try write { try $0.moveRow(from: from, to: to) }
    }

    /// Moves the row with `id` so that its index path after the move is `to`.
    @discardableResult
    public func moveRow(id: RowID, to: ListIndexPath) throws -> ChangeSet {
        try write { try $0.moveRow(id: id, to: to) }
    }

    /// Moves the row with `id` into the section with id `section`, at `index` (at the end when nil).
    @discardableResult
    public func moveRow(id: RowID, toSection section: SectionID, at index: Int? = nil) throws -> ChangeSet {
        try write { try $0.moveRow(id: id, toSection: section, at: index) }
    }

    /// Moves the row with `id` to just before the row with id `anchor`.
    @discardableResult
    public func moveRow(id: RowID, before anchor: RowID) throws -> ChangeSet {
        try write { try $0.moveRow(id: id, before: anchor) }
    }

    /// Moves the row with `id` to just after the row with id `anchor`.
    @discardableResult
    public func moveRow(id: RowID, after anchor: RowID) throws -> ChangeSet {
        try write { try $0.moveRow(id: id, after: anchor) }
    }

    /// Deletes the rows at `indexPaths` (any sections, any order) in one transaction. Exactly the
    /// addressed rows go, by identity: other rows with equal titles stay.
    @discardableResult
    public func deleteRows(at indexPaths: [ListIndexPath]) throws -> ChangeSet {
        try write { try $0.deleteRows(at: indexPaths) }
    }

    /// Deletes the rows with `ids`, wherever they are now, in one transaction.
    @discardableResult
    public func deleteRows(ids: [RowID]) throws -> ChangeSet {
        try write { try $0.deleteRows(ids: ids) }
    }

    /// One write transaction whose edit returns the new rows' ids: the ids, in the order the edit
    /// returned them (the rows' order), with the change set.
    private func returningIDs(_ insert: (ListTransaction) throws -> [RowID]) throws -> (ids: [RowID], changes: ChangeSet) {
        let (ids, changes) = try writeReturning(insert)
        return (ids, changes)
    }

    /// One write transaction whose edit returns the new row's id: the id with the change set.
    private func returningID(_ insert: (ListTransaction) throws -> RowID) throws -> (id: RowID, changes: ChangeSet) {
        let (id, changes) = try writeReturning(insert)
        return (id, changes)
    }
}
