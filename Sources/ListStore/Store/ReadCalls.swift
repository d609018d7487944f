import SQLiteLayer

/// Reads, each in one read transaction, so what each returns is one committed state. For several reads
/// of the same state, use ``read(_:)``.
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

    /// The number of sections.
    public func sectionCount() throws -> Int { try read { try $0.sectionCount() } }

    /// The sections in display order, with their row counts (see ``ListReader/sections()``).
    public func sections() throws -> [ListSection] { try read { try $0.sections() } }

    /// The section at `index`.
    public func section(at index: Int) throws -> ListSection { try read { try $0.section(at: index) } }

    /// The section with id `id`, wherever it is now.
    public func section(id: SectionID) throws -> ListSection { try read { try $0.section(id: id) } }

    /// The current index of the section with id `id`, or nil when it no longer exists.
    public func index(of id: SectionID) throws -> Int? { try read { try $0.index(of: id) } }

    /// The number of rows in all sections.
    public func totalRowCount() throws -> Int { try read { try $0.totalRowCount() } }

    /// The number of rows in section `section`.
    public func rowCount(inSection section: Int) throws -> Int { try read { try $0.rowCount(inSection: section) } }

    /// The rows of section `section` in order; with `range`, only those rows (see ``ListReader/rows(inSection:range:)``).
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

    /// The row at `indexPath`: the row an edit given that index path acts on.
    public func row(at indexPath: ListIndexPath) throws -> ListRow { try read { try $0.row(at: indexPath) } }

    /// The row with `id`, wherever it is now.
    public func row(id: RowID) throws -> ListRow { try read { try $0.row(id: id) } }

    /// The current index path of the row with `id`, or nil when it no longer exists.
    public func indexPath(of id: RowID) throws -> ListIndexPath? {
        if let found = try withoutTransaction({ [listID] db in
            try MemoReads.indexPath(of: id.rawValue, db, list: listID, checksList: listID != Self.defaultListID)
        }) {
            return found
        }
        return try read { try $0.indexPath(of: id) }
    }

    /// Every section with every row, in display order, read in one transaction (see ``ListReader/snapshot()``).
    public func snapshot() throws -> ListSnapshot { try read { try $0.snapshot() } }

    /// One section with all of its rows, read in one transaction (without reading the other sections).
    public func snapshot(ofSection index: Int) throws -> SectionSnapshot { try read { try $0.snapshot(ofSection: index) } }

    /// The section with id `id` with all of its rows, wherever it is now.
    public func snapshot(ofSection id: SectionID) throws -> SectionSnapshot { try read { try $0.snapshot(ofSection: id) } }

    /// Reads every section and row whatever the damage; the caller provides the transaction.
    func readSnapshot(_ db: Connection) throws -> ListSnapshot { try ListReader.snapshot(db, list: listID, checked: false) }
}
