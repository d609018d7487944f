import SQLiteLayer

/// The edits only undo and redo make: rows and sections put back with their own ids. AUTOINCREMENT
/// never gives out an id twice, so an old id is free unless an import or a hand edit took it, which
/// refuses the restore (``UndoConflict``).
extension ListTransaction {
    /// Puts `rows` back, in order, into `section` from row index `index` on, with their own ids.
    func restoreRows(_ rows: [HistoryRow], into section: inout SectionRows, at index: Int) throws {
        guard !rows.isEmpty else { return }
        let start = min(max(index, 0), section.count)
        for row in rows {
            try validateTitle(row.title)
            try db.validatePayload(row.payload)
        }
        let positions = try section.insertionPositions(at: start, width: rows.count)
        let insert = try db.cached("INSERT INTO rows (id, section_id, position, title, payload) VALUES (?1, ?2, ?3, ?4, ?5)")
        for (row, position) in zip(rows, positions) {
            do {
                try insert.bind([.integer(row.id), .integer(section.sectionID), .int(position), .text(row.title), .optionalText(row.payload)]).run()
            } catch let error as SQLiteError where error.extendedCode == 1555 {  // SQLITE_CONSTRAINT_PRIMARYKEY
                throw UndoConflict("row #\(row.id) exists again (an import or a hand edit gave its id to another row)")
            } catch { throw db.explainingFull(error, inserting: "rows") }
        }
        try section.noteInserted(positions, atIndex: start)
        try history?.rowsRestored(section: section.sectionID, rows: rows)
        var changes = ChangeSet()
        changes.insertedRows = rows.enumerated().map { offset, row in
            .init(
                indexPath: ListIndexPath(section: section.sectionIndex, row: start + offset),
                row: ListRow(id: RowID(rawValue: row.id), title: row.title, payload: row.payload))
        }
        let ids = rows.map { RowID(rawValue: $0.id) }
        try record(changes, [.rowsRestored(ids: EditEvent.runs(ids), section: section.sectionID, sectionIndex: section.sectionIndex, at: start)])
    }

    /// Puts section `id` back, empty, titled `title`, at `index` (clamped to the sections there are).
    func restoreSection(id: Int64, title: String, at index: Int) throws -> SectionRows {
        try validateTitle(title)
        let count = try verifiedSectionCount()
        let position = min(max(index, 0), count)
        try SectionOrder.shift(from: position, by: 1, db, list: list)
        do {
            try db.run("INSERT INTO sections (id, list_id, position, title) VALUES (?1, ?4, ?2, ?3)", [.integer(id), .int(position), .text(title), .integer(list)])
        } catch let error as SQLiteError where error.extendedCode == 1555 {
            throw UndoConflict("section #\(id) exists again (an import or a hand edit gave its id to another section)")
        } catch { throw db.explainingFull(error, inserting: "sections") }
        try SectionOrder.recordCountChange(by: 1, db, list: list)
        try RowBlocks.createFirstExtents(ofSection: id, db)
        history?.sectionInserted(id, title: title, restored: true)
        var changes = ChangeSet()
        changes.insertedSections = [.init(index: position, section: SectionSnapshot(id: SectionID(rawValue: id), title: title, rows: []))]
        try record(changes, [.sectionRestored(id: id, index: position)])
        return try checkedSection(id: SectionID(rawValue: id))
    }
}

/// Why a step of an undo or redo cannot be taken back now; the store reports it as
/// ``ListStoreError/undoRefused(action:entry:redo:reason:)``, the whole transaction rolled back.
struct UndoConflict: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
