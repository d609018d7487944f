import SQLiteLayer

/// Moves between lists inside one write transaction: this transaction's list gives, `target`'s (another
/// ``ListTransaction`` on the same connection, scoped to the other list) receives. The one ``ListEdit``
/// of a move is recorded by both: each derives its own side in its own list's coordinates — a deletion
/// here, an insertion there — so each list's observers get a change set of their list only.
extension ListTransaction {
    /// Moves the row with `id` (of this list) into section `sectionIndex` of `target`'s list, at row
    /// index `index` there (at the end when nil). The row keeps its id, title and payload.
    func moveRow(_ id: RowID, toSection sectionIndex: Int, at index: Int?, in target: ListTransaction) throws {
        try whileOpen {
            try verifiedSectionCount()
            let (path, sectionID, place) = try db.rowPlace(of: id, list: list)
            var source = try SectionRows.load(sectionID: sectionID, index: path.section, db, sizes: sizes)
            var destination = try target.checkedSection(at: sectionIndex)
            let row = index ?? destination.count
            guard (0...destination.count).contains(row) else {
                throw ListStoreError.rowDestinationOutOfRange(ListIndexPath(section: sectionIndex, row: row), maxRow: destination.count)
            }
            let last = destination.count
            try source.move(place, into: &destination, at: row)
            let moved = try ListReader.row(id: id.rawValue, db)
            let anchor = try target.anchor(index: row, last: last, section: destination.sectionID) { try self.position(ofRow: id.rawValue) }
            let edit = ListEdit.rowTransferred(
                .init(
                    row: moved, fromList: list, from: path, source: sectionID, toList: target.list, to: ListIndexPath(section: sectionIndex, row: row),
                    target: destination.sectionID, anchor: anchor))
            try record(edit)
            try target.record(edit)
        }
    }

    /// Moves the section with `id` (of this list), with its rows, to index `index` of `target`'s list (at
    /// the end when nil). It keeps its id, title and rows.
    func moveSection(_ id: SectionID, to index: Int?, in target: ListTransaction) throws {
        try whileOpen {
            let section = try checkedSection(id: id)
            let count = try target.verifiedSectionCount()
            let at = index ?? count
            guard (0...count).contains(at) else { throw ListStoreError.sectionInsertionIndexOutOfRange(index: at, sectionCount: count) }
            let from = section.sectionIndex
            try SectionOrder.shift(from: at, by: 1, db, list: target.list)
            try db.run("UPDATE sections SET list_id = ?2, position = ?3 WHERE id = ?1", [.integer(id.rawValue), .integer(target.list), .int(at)])
            try SectionOrder.recordCountChange(by: -1, db, list: list)
            try SectionOrder.recordCountChange(by: 1, db, list: target.list)
            try SectionOrder.closeGaps(from: from, db, list: list)
            let edit = ListEdit.sectionTransferred(.init(section: try target.snapshot(ofSection: id), fromList: list, from: from, toList: target.list, to: at))
            try record(edit)
            try target.record(edit)
        }
    }
}
