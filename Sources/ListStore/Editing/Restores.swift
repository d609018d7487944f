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
        let last = section.count
        let positions = try section.insertionPositions(at: start, width: rows.count)
        let insert = try RowWriter.One(db)
        for (row, position) in zip(rows, positions) {
            do {
                try insert.insert(id: row.id, section: section.sectionID, position: position, title: row.title, payload: row.payload, orderKey: nil)
            } catch let error as SQLiteError where error.extendedCode == 1555 {  // SQLITE_CONSTRAINT_PRIMARYKEY
                throw UndoConflict("row #\(row.id) exists again (an import or a hand edit gave its id to another row)")
            } catch { throw db.explainingFull(error, inserting: "rows") }
        }
        try section.noteInserted(positions, atIndex: start)
        let anchor = try anchor(index: start, last: last, section: section.sectionID) { positions.first }
        let restored = rows.map { ListRow(id: RowID(rawValue: $0.id), title: $0.title, payload: $0.payload) }
        try record(.rowsRestored(.init(section: section.sectionID, sectionIndex: section.sectionIndex, at: start, anchor: anchor, rows: restored)))
    }

    /// Puts section `id` back, empty, titled `title`, at `index` (clamped to the sections there are).
    func restoreSection(id: Int64, title: String, at index: Int) throws -> SectionRows {
        try validateTitle(title)
        let count = try verifiedSectionCount()
        let position = min(max(index, 0), count)
        try SectionOrder.shift(from: position, by: 1, db, list: list)
        do {
            try SectionWriter.insert(id: id, title: title, at: position, list: list, db)
        } catch let error as SQLiteError where error.extendedCode == 1555 {
            throw UndoConflict("section #\(id) exists again (an import or a hand edit gave its id to another section)")
        } catch { throw db.explainingFull(error, inserting: "sections") }
        try SectionOrder.recordCountChange(by: 1, db, list: list)
        try RowBlocks.createFirstExtents(ofSection: id, db)
        try record(.sectionRestored(.init(id: id, title: title, index: position)))
        return try checkedSection(id: SectionID(rawValue: id))
    }
}

/// Why a step of an undo or redo cannot be taken back now; the store reports it as
/// ``ListStoreError/undoRefused(action:entry:redo:reason:)``, the whole transaction rolled back.
struct UndoConflict: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
