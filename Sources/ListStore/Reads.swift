import SQLiteLayer

/// Reads. Each call reads in one transaction, so what it returns is one committed state.
extension ListStore {
    /// The number of sections.
    public func sectionCount() throws -> Int {
        try read { try SectionOrder.count($0) }
    }

    /// The sections in display order, with their row counts. The position of a section in the array
    /// is its index. Throws `sectionOrderDamaged` when hand edits broke the section order, as edits do.
    public func sections() throws -> [Section] {
        try read { db in
            try SectionOrder.verify(db)
            return try db.cached("""
                SELECT id, title, row_count FROM sections ORDER BY position
                """).bind([]).map { Section(id: SectionID(rawValue: $0.int64(0)), title: $0.text(1), rowCount: $0.int(2)) }
        }
    }

    /// The section at `index`.
    public func section(at index: Int) throws -> Section {
        try read { db in
            try SectionOrder.verify(db)
            let id = try SectionRows.locate(section: index, db).sectionID
            guard let section = try db.cached("SELECT id, title, row_count FROM sections WHERE id = ?1").bind([.integer(id)])
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
        try read { db in try Self.checkedSection(section, db).count }
    }

    /// The rows of section `section` in order; with `range`, only those rows (a page), read through the
    /// position index without touching the rest of the section. A range past the end is clamped.
    /// The position of a row in the array is its index (offset by the range's start): a section whose
    /// positions were damaged by hand is refused with `positionsDamaged`, as edits refuse it.
    public func rows(inSection section: Int, range: Range<Int>? = nil) throws -> [Row] {
        try read { db in
            let rows = try Self.checkedSection(section, db)
            let lower = max(range?.lowerBound ?? 0, 0)
            let upper = min(range?.upperBound ?? rows.count, rows.count)
            guard lower < upper else { return [] }
            var result: [Row] = []
            result.reserveCapacity(upper - lower)
            try db.cached("""
                SELECT id, title, payload, position FROM rows
                WHERE section_id = ?1 AND position >= ?2 AND position < ?3 ORDER BY position
                """).bind([.integer(rows.sectionID), .int(rows.base + lower), .int(rows.base + upper)]).forEachRow { statement in
                guard statement.int(3) == rows.base + lower + result.count else { throw ListStoreError.positionsDamaged(section: section) }
                result.append(Self.row(statement))
            }
            guard result.count == upper - lower else { throw ListStoreError.positionsDamaged(section: section) }
            return result
        }
    }

    /// The row at `indexPath`: the row an edit given that index path acts on.
    public func row(at indexPath: ListIndexPath) throws -> Row {
        try read { db in
            let id = try Self.checkedSection(indexPath.section, db).rowID(at: indexPath.row, db)
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

    /// Every section with every row, in display order, read in one transaction. Positions in the
    /// arrays are indexes: a file whose positions were damaged by hand is refused
    /// (`sectionOrderDamaged`, `positionsDamaged`), as edits refuse it; ``scan(_:)`` still reads it.
    public func snapshot() throws -> ListSnapshot {
        try read { db in
            try SectionOrder.verify(db)
            return try readSnapshot(db, checked: true)
        }
    }

    /// One section with all of its rows, read in one transaction (without reading the other sections).
    /// Refuses a damaged section or section order, as ``snapshot()`` does.
    public func snapshot(ofSection index: Int) throws -> SectionSnapshot {
        try read { db in
            let section = try Self.checkedSection(index, db)
            let title = try db.scalarText("SELECT title FROM sections WHERE id = ?1", [.integer(section.sectionID)]) ?? ""
            var rows: [Row] = []
            try db.cached("SELECT id, title, payload, position FROM rows WHERE section_id = ?1 ORDER BY position")
                .bind([.integer(section.sectionID)]).forEachRow { statement in
                    guard statement.int(3) == section.base + rows.count else { throw ListStoreError.positionsDamaged(section: index) }
                    rows.append(Self.row(statement))
                }
            guard rows.count == section.count else { throw ListStoreError.positionsDamaged(section: index) }
            return SectionSnapshot(id: SectionID(rawValue: section.sectionID), title: title, rows: rows)
        }
    }

    /// Section `index`, with the checks an edit runs before using it: the section order and the
    /// section's row positions (three index look-ups).
    private static func checkedSection(_ index: Int, _ db: Connection) throws -> SectionRows {
        try SectionOrder.verify(db)
        return try SectionRows.load(section: index, db)
    }

    /// Reads every section and row; the caller provides the transaction. With `checked`, throws
    /// `positionsDamaged` unless every row sits at its index (`position - row_base`) and every section's
    /// recorded count is its number of rows; without, lists rows in position order whatever the damage.
    func readSnapshot(_ db: Connection, checked: Bool = false) throws -> ListSnapshot {
        let stored = try db.cached("SELECT id, position, title, row_base, row_count FROM sections ORDER BY position").bind([])
            .map(StoredSection.init)
        var sections = stored.map { SectionSnapshot(id: SectionID(rawValue: $0.id), title: $0.title, rows: []) }
        let slot = Dictionary(stored.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        try db.cached("SELECT section_id, id, title, payload, position FROM rows ORDER BY section_id, position").bind([]).forEachRow { row in
            guard let index = slot[row.int64(0)] else { return }
            if checked && Addressing.rowIndex(position: row.int(4), base: stored[index].rowBase) != sections[index].rows.count {
                throw ListStoreError.positionsDamaged(section: index)
            }
            sections[index].rows.append(Row(id: RowID(rawValue: row.int64(1)), title: row.text(2), payload: row.optionalText(3)))
        }
        if checked, let damaged = stored.indices.first(where: { stored[$0].rowCount != sections[$0].rows.count }) {
            throw ListStoreError.positionsDamaged(section: damaged)
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
