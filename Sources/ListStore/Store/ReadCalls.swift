import SQLiteLayer

/// Reads: a ``ListReader`` in one read transaction, so that every read sees one committed state.
extension ListStore {
    /// Runs `body` with a ``ListReader`` inside one read transaction: every read it makes sees the same
    /// committed state, whatever other processes commit meanwhile. Returns what `body` returns.
    public func read<T>(_ body: (ListReader) throws -> T) throws -> T {
        var value: T?
        try withReadTransaction { db in
            let reader = ListReader(db, list: listID)
            defer { reader.close() }
            value = try body(reader)
        }
        guard let value else { throw ListStoreError.transactionFinished }
        return value
    }

    /// The rows of section `section` in order; with `range`, only those rows (see ``ListReader/rows(inSection:range:)``):
    /// a table view's page. Answered without a read transaction from what the last read learnt while no
    /// commit came since, so that scrolling a large list costs one look-up.
    public func rows(inSection section: Int, range: Range<Int>? = nil) throws -> [ListRow] {
        if let range,
            let rows = try withoutTransaction({ [listID] db in
                try MemoReads.rows(db, list: listID, checksList: listID != Self.defaultListID, section: section, range: range)
            })
        {
            return rows
        }
        return try read { try $0.rows(inSection: section, range: range) }
    }

    /// The current index path of the row with `id`, or nil when it no longer exists (a deep link, a
    /// selection), answered as ``rows(inSection:range:)`` is.
    public func indexPath(of id: RowID) throws -> ListIndexPath? {
        if let found = try withoutTransaction({ [listID] db in
            try MemoReads.indexPath(of: id.rawValue, db, list: listID, checksList: listID != Self.defaultListID)
        }) {
            return found
        }
        return try read { try $0.indexPath(of: id) }
    }

    /// Every section with its rows, as one committed state (``ListSnapshot``): what a table view draws.
    /// For other reads — a section, a page of rows, a row by id — use ``read(_:)``.
    public func snapshot() throws -> ListSnapshot { try read { try $0.snapshot() } }

    /// Reads every section and row whatever the damage; the caller provides the transaction.
    func readSnapshot(_ db: Connection) throws -> ListSnapshot { try ListReader.snapshot(db, list: listID, checked: false) }
}
