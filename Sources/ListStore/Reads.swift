import SQLiteLayer

/// Reads. Each call reads in one transaction, so what it returns is one committed state.
extension ListStore {
    /// The number of sections.
    public func sectionCount() throws -> Int {
        try read { try SectionOrder.count($0) }
    }

    /// The sections in display order, with their row counts.
    public func sections() throws -> [Section] {
        try read { db in
            try db.cached("""
                SELECT id, title, row_count FROM sections ORDER BY position
                """).bind([]).map { Section(id: SectionID(rawValue: $0.int64(0)), title: $0.text(1), rowCount: $0.int(2)) }
        }
    }

    /// The section at `index`.
    public func section(at index: Int) throws -> Section {
        try read { db in
            guard index >= 0, let section = try db.cached("SELECT id, title, row_count FROM sections WHERE position = ?1").bind([.int(index)])
                .first({ Section(id: SectionID(rawValue: $0.int64(0)), title: $0.text(1), rowCount: $0.int(2)) }) else {
                throw ListStoreError.sectionIndexOutOfRange(index: index, sectionCount: try SectionOrder.count(db))
            }
            return section
        }
    }

    /// The number of rows in all sections (from the sections' counts, not a scan of the rows).
    public func totalRowCount() throws -> Int {
        try read { db in try db.scalarInt("SELECT coalesce(sum(row_count), 0) FROM sections") ?? 0 }
    }

    /// The number of rows in section `section`.
    public func rowCount(inSection section: Int) throws -> Int {
        try read { db in try SectionRows.locate(section: section, db).count }
    }

    /// The rows of section `section` in order; with `range`, only those rows (a page), read through the
    /// position index without touching the rest of the section. A range past the end is clamped.
    public func rows(inSection section: Int, range: Range<Int>? = nil) throws -> [Row] {
        try read { db in
            let rows = try SectionRows.locate(section: section, db)
            let lower = max(range?.lowerBound ?? 0, 0)
            let upper = min(range?.upperBound ?? rows.count, rows.count)
            guard lower < upper else { return [] }
            return try db.cached("""
                SELECT id, title, payload FROM rows
                WHERE section_id = ?1 AND position >= ?2 AND position < ?3 ORDER BY position
                """).bind([.integer(rows.sectionID), .int(rows.base + lower), .int(rows.base + upper)]).map(Self.row)
        }
    }

    /// The row at `indexPath`.
    public func row(at indexPath: ListIndexPath) throws -> Row {
        try read { db in
            let id = try SectionRows.locate(section: indexPath.section, db).rowID(at: indexPath.row, db)
            return try Self.row(id: id, db)
        }
    }

    /// The row with `id`, wherever it is now.
    public func row(id: RowID) throws -> Row {
        try read { db in try Self.row(id: id.rawValue, db) }
    }

    /// The current index path of the row with `id`, or nil when it no longer exists.
    public func indexPath(of id: RowID) throws -> ListIndexPath? {
        try read { db in
            do { return try db.location(of: id).path } catch ListStoreError.unknownRow { return nil }
        }
    }

    /// Every section with every row, in display order, read in one transaction.
    public func snapshot() throws -> ListSnapshot {
        try read { db in try readSnapshot(db) }
    }

    /// One section with all of its rows, read in one transaction (without reading the other sections).
    public func snapshot(ofSection index: Int) throws -> SectionSnapshot {
        try read { db in
            let id = try SectionRows.locate(section: index, db).sectionID
            let title = try db.scalarText("SELECT title FROM sections WHERE id = ?1", [.integer(id)]) ?? ""
            let rows = try db.cached("SELECT id, title, payload FROM rows WHERE section_id = ?1 ORDER BY position")
                .bind([.integer(id)]).map(Self.row)
            return SectionSnapshot(id: SectionID(rawValue: id), title: title, rows: rows)
        }
    }

    /// Reads every section and row; the caller provides the transaction.
    func readSnapshot(_ db: Connection) throws -> ListSnapshot {
        var sections = try db.cached("SELECT id, title FROM sections ORDER BY position").bind([])
            .map { SectionSnapshot(id: SectionID(rawValue: $0.int64(0)), title: $0.text(1), rows: []) }
        let slot = Dictionary(uniqueKeysWithValues: sections.enumerated().map { ($1.id.rawValue, $0) })
        try db.cached("SELECT section_id, id, title, payload FROM rows ORDER BY section_id, position").bind([]).forEachRow { row in
            guard let index = slot[row.int64(0)] else { return }
            sections[index].rows.append(Row(id: RowID(rawValue: row.int64(1)), title: row.text(2), payload: row.optionalText(3)))
        }
        return ListSnapshot(sections: sections)
    }

    private static func row(id: Int64, _ db: Connection) throws -> Row {
        guard let row = try db.cached("SELECT id, title, payload FROM rows WHERE id = ?1").bind([.integer(id)]).first(row) else {
            throw ListStoreError.unknownRow(RowID(rawValue: id))
        }
        return row
    }

    private static func row(_ statement: Statement) -> Row {
        Row(id: RowID(rawValue: statement.int64(0)), title: statement.text(1), payload: statement.optionalText(2))
    }
}
