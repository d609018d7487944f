/// Edits given index paths as drawn at a version (``ListVersion``): what a table view hands an app for
/// a tap, a swipe or a drag is the index path of what it drew, which another process may have changed
/// since.
extension ListStore {
    /// Runs `body` as one write transaction (`BEGIN IMMEDIATE … COMMIT`, all-or-nothing, like
    /// ``write(_:)-3oqvi``) whose calls take index paths as drawn at `version` — the ``ListSnapshot/version``
    /// of the mirror a table view drew — and act on the rows and sections those paths named then,
    /// wherever they are now (see ``AsOfTransaction`` for how paths, gaps and several edits are
    /// translated). The translation reads the change log inside the transaction, under the write lock, so
    /// nothing can commit between it and the edits.
    ///
    /// Throws ``ListStoreError/drawnRowDeleted(_:id:asOf:)`` or ``ListStoreError/drawnSectionDeleted(index:id:asOf:)``
    /// when something drawn was deleted since, and ``ListStoreError/versionNotTranslatable(_:reason:)``
    /// when the change log cannot translate from `version`; nothing is changed then.
    ///
    /// ```swift
    /// // A swipe on what the table view drew from `mirror`:
    /// try store.write(asOf: mirror.version) { tx in
    ///     try tx.deleteRows(at: [swipedPath])
    /// }
    /// ```
    @discardableResult
    public func write(asOf version: ListVersion, _ body: (AsOfTransaction) throws -> Void) throws -> ChangeSet {
        try writeReturning(asOf: version) { transaction -> Void in try body(transaction) }.changes
    }

    /// ``write(asOf:_:)`` returning what `body` returned (the ids an insert gave, say) with the change set.
    public func writeReturning<T>(asOf version: ListVersion, _ body: (AsOfTransaction) throws -> T) throws -> (value: T, changes: ChangeSet) {
        var value: T?
        let changes = try mutateSeeingLogState { db, found in
            let transaction = ListTransaction(db, list: listID, sizes: rowBlockSizes)
            defer { transaction.close() }
            startHistory(of: transaction)
            value = try body(AsOfTransaction(transaction, try DrawnPaths(version, found: found, list: listID, db)))
            let changes = try transaction.finish()
            try recordHistory(of: transaction)
            return (changes, transaction.logEntry)
        }
        guard let value else { throw ListStoreError.transactionFinished }
        return (value, changes)
    }

    /// The version of the state the store shows now (see ``ListVersion``).
    public func version() throws -> ListVersion { try read { try $0.version() } }

    /// The row drawn at `indexPath` in a state of version `version`, with its values now: a read (no
    /// write lock), translated as ``write(asOf:_:)`` translates.
    public func row(at indexPath: ListIndexPath, asOf version: ListVersion) throws -> ListRow {
        try withReadTransaction { db in
            let paths = try DrawnPaths(version, found: try LogHead.read(db).state, list: listID, db)
            return try ListReader.row(id: try paths.row(indexPath, own: [], db).id.rawValue, db)
        }
    }

    // MARK: One edit each

    /// Deletes the rows drawn at `indexPaths` at `version` (a swipe, an edit-mode selection), wherever they are now.
    @discardableResult
    public func deleteRows(at indexPaths: [ListIndexPath], asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.deleteRows(at: indexPaths) }
    }

    /// Updates the row drawn at `indexPath` at `version`.
    @discardableResult
    public func updateRow(at indexPath: ListIndexPath, asOf version: ListVersion, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        try write(asOf: version) { try $0.updateRow(at: indexPath, title: title, payload: payload) }
    }

    /// Moves the row drawn at `from` at `version` to the drop `to` (UIKit's destination, in the drawn list).
    @discardableResult
    public func moveRow(from: ListIndexPath, to: ListIndexPath, asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.moveRow(from: from, to: to) }
    }

    /// Inserts `rows` into the section drawn at `section` at `version`, at the drawn gap `index` (the end when nil).
    @discardableResult
    public func insertRows(
        _ rows: [any NewRowConvertible], intoSection section: Int, at index: Int? = nil, asOf version: ListVersion
    ) throws -> (ids: [RowID], changes: ChangeSet) {
        let (ids, changes) = try writeReturning(asOf: version) { try $0.insertRows(rows, intoSection: section, at: index) }
        return (ids, changes)
    }

    /// Inserts one row into the section drawn at `section` at `version`, at the drawn gap `index` (the end when nil).
    @discardableResult
    public func insertRow(
        _ row: some NewRowConvertible, intoSection section: Int, at index: Int? = nil, asOf version: ListVersion
    ) throws -> (id: RowID, changes: ChangeSet) {
        let (id, changes) = try writeReturning(asOf: version) { try $0.insertRow(row, intoSection: section, at: index) }
        return (id, changes)
    }

    /// Inserts an empty section at the drawn gap `index` at `version` (the end when nil).
    @discardableResult
    public func insertSection(title: String, at index: Int? = nil, asOf version: ListVersion) throws -> (id: SectionID, changes: ChangeSet) {
        let (id, changes) = try writeReturning(asOf: version) { try $0.insertSection(title: title, at: index) }
        return (id, changes)
    }

    /// Renames the section drawn at `index` at `version`.
    @discardableResult
    public func renameSection(at index: Int, to title: String, asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.renameSection(at: index, to: title) }
    }

    /// Moves the section drawn at `from` at `version` to the drop `to` (its index after the move, in the drawn list).
    @discardableResult
    public func moveSection(from: Int, to: Int, asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.moveSection(from: from, to: to) }
    }

    /// Deletes the sections drawn at `indexes` at `version`, with their rows.
    @discardableResult
    public func deleteSections(at indexes: [Int], asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.deleteSections(at: indexes) }
    }
}
