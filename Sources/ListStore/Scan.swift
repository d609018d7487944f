import SQLiteLayer

/// One step of ``ListStore/scan(_:)``: a section (before its rows), or one of its rows.
public enum ScannedItem: Sendable {
    /// A section, with its index, id, title and number of rows; its rows follow.
    case section(index: Int, id: SectionID, title: String, rowCount: Int)
    /// A row of the last section reported, at its index path.
    case row(ListIndexPath, Row)
}

extension ListStore {
    /// Visits every section and row in display order, in one read transaction, without holding the
    /// store in memory: for exporting or printing stores of any size. Other threads using this store
    /// wait until the scan ends; other processes do not.
    public func scan(_ visit: (ScannedItem) throws -> Void) throws {
        try read { db in
            let sections = try db.cached("SELECT id, title, row_count FROM sections ORDER BY position").bind([])
                .map { (id: $0.int64(0), title: $0.text(1), count: $0.int(2)) }
            let rows = try db.cached("SELECT id, title, payload FROM rows WHERE section_id = ?1 ORDER BY position")
            for (index, section) in sections.enumerated() {
                try visit(.section(index: index, id: SectionID(rawValue: section.id), title: section.title, rowCount: section.count))
                var row = 0
                try rows.bind([.integer(section.id)]).forEachRow { statement in
                    try visit(.row(ListIndexPath(section: index, row: row),
                                   Row(id: RowID(rawValue: statement.int64(0)), title: statement.text(1), payload: statement.optionalText(2))))
                    row += 1
                }
            }
        }
    }
}
