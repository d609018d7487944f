import SQLiteLayer

/// One step of ``ListStore/scan(_:)``: a section (before its rows), or one of its rows.
///
/// Indexes are the ones edits resolve: a section's index is its stored position and a row's index is
/// found through its section's block and page counts (see ``ListStore`` "Addressing"). On a file whose
/// counts were damaged by hand they may have gaps; `liststore check` reports that.
public enum ScannedItem: Sendable {
    /// A section, with its index, id, title and recorded number of rows; its rows follow.
    case section(index: Int, id: SectionID, title: String, rowCount: Int)
    /// A row of the last section reported, at its index path.
    case row(ListIndexPath, ListRow)
}

extension ListStore {
    /// Visits every section and row in display order, in one read transaction, without holding the
    /// store in memory: for exporting or printing stores of any size. The scan holds one connection until
    /// it ends: other threads' reads use other read connections; a write of this store waits only if the
    /// scan was given the writer connection (nobody else was using the store when it began).
    ///
    /// Unlike ``snapshot()``, a scan does not refuse a file whose positions were damaged by hand: it
    /// reports every row at the index path an edit given that path would act on.
    /// Returns the version of the state it visited (``ListVersion``), read in the same transaction.
    @discardableResult
    public func scan(_ visit: (ScannedItem) throws -> Void) throws -> ListVersion {
        try withReadTransaction { db in
            try Self.scanAll(db, list: listID, visit)
            return try StateVersion.read(db)
        }
    }

    /// ``scan(_:)`` in the caller's read transaction.
    static func scanAll(_ db: Connection, list: Int64, _ visit: (ScannedItem) throws -> Void) throws {
        let sections = try db.cached("SELECT id, position, title, row_count FROM sections WHERE list_id = ?1 ORDER BY position").bind([.integer(list)])
            .map(StoredSection.init)
        for section in sections { try Self.scan(section, db, visit) }
    }

    /// Visits section `index` (the section an edit given that index acts on) and its rows, like ``scan(_:)``.
    public func scan(section index: Int, _ visit: (ScannedItem) throws -> Void) throws {
        try withReadTransaction { db in
            let located = try SectionRows.locate(section: index, list: listID, db)
            guard
                let section = try db.cached("SELECT id, position, title, row_count FROM sections WHERE id = ?1")
                    .bind([.integer(located.sectionID)]).first(StoredSection.init)
            else {
                throw ListStoreError.sectionIndexOutOfRange(index: index, sectionCount: try SectionOrder.count(db, list: listID))
            }
            try Self.scan(section, db, visit)
        }
    }

    private static func scan(_ section: StoredSection, _ db: Connection, _ visit: (ScannedItem) throws -> Void) throws {
        try visit(.section(index: section.position, id: SectionID(rawValue: section.id), title: section.title, rowCount: section.rowCount))
        var indexer = try RowIndexer(sectionID: section.id, db)
        try db.cached("SELECT id, position, title, payload FROM rows WHERE section_id = ?1 ORDER BY position")
            .bind([.integer(section.id)]).forEachRow { statement in
                // A row outside every block (a hand edit removed its block) is shown at an index no edit names.
                let path = ListIndexPath(section: section.position, row: indexer.index(ofRowAt: statement.int(1)) ?? ListIndexPath.noRow)
                try visit(.row(path, ListRow(id: RowID(rawValue: statement.int64(0)), title: statement.text(2), payload: statement.optionalText(3))))
            }
    }
}
