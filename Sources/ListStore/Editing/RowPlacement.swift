import SQLiteLayer

/// The steps the row edits share to write new rows and to say where rows went: the anchors and
/// neighbours a ``ListEdit`` carries.
extension ListTransaction {
    /// Writes new `rows` into `section` from row index `start` on (both checked) and describes them.
    func writeRows(_ rows: [NewRow], into section: inout SectionRows, at start: Int) throws -> ListEdit.InsertedRows {
        let last = section.count
        let positions = try section.insertionPositions(at: start, width: rows.count)
        let keys = try MergeRegisters.keys(
            rows.count, in: .rows, container: section.sectionID, around: (positions.first ?? 0, positions.last ?? 0), db)
        let ids = try RowWriter.insert(rows, intoSection: section.sectionID, at: positions, orderKeys: keys, db)
        try section.noteInserted(positions, atIndex: start)
        let anchor = try anchor(index: start, last: last, section: section.sectionID) { positions.first }
        let written = zip(ids, rows).map { ListRow(id: $0, title: $1.title, payload: $1.payload) }
        return ListEdit.InsertedRows(section: section.sectionID, sectionIndex: section.sectionIndex, at: start, anchor: anchor, rows: written)
    }

    /// What rows now at row index `index` of section `section` (the last of them at `last`) follow:
    /// the section's start or end, else the row before them, found by the position `position` gives
    /// (the first of them) — the only case that reads.
    func anchor(index: Int, last: Int, section: Int64, position: () throws -> Int?) throws -> ListEdit.Anchor {
        if index == 0 { return .sectionStart }
        if index >= last { return .sectionEnd }
        guard let position = try position(), let previous = try RowBlocks(sectionID: section, db: db).rowBefore(position) else { return .sectionStart }
        return .afterRow(previous)
    }

    /// The rows just before and after `place` in section `section`, by position.
    func neighbours(of place: RowPlace, inSection section: Int64) throws -> ListEdit.Neighbours {
        let rows = RowBlocks(sectionID: section, db: db)
        return ListEdit.Neighbours(previous: try rows.rowBefore(place.position), next: try rows.rowAfter(place.position))
    }

    /// The position of row `id` now.
    func position(ofRow id: Int64) throws -> Int? {
        try db.cached("SELECT position FROM rows WHERE id = ?1").bind([.integer(id)]).first { $0.int(0) }
    }
}
