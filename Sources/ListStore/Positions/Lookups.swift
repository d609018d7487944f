import SQLiteLayer

/// Input checks shared by the mutations. They run inside the write transaction, against the file as
/// it is now, and throw a ``ListStoreError`` naming the offending input.
extension Connection {
    /// The id of section `index`, or a `sectionIndexOutOfRange` error.
    func sectionID(at index: Int) throws -> Int64 {
        if index >= 0, let id = try cached("SELECT id FROM sections WHERE position = ?1").bind([.int(index)]).first({ $0.int64(0) }) {
            return id
        }
        throw ListStoreError.sectionIndexOutOfRange(index: index, sectionCount: try SectionOrder.count(self))
    }

    /// The index of the section with id `id`, or nil when there is none.
    func sectionIndex(id: Int64) throws -> Int? {
        try cached("SELECT position FROM sections WHERE id = ?1").bind([.integer(id)]).first { $0.int(0) }
    }

    /// The index of section `id`, or an `unknownSection` error.
    func existingSectionIndex(_ id: SectionID) throws -> Int {
        guard let index = try sectionIndex(id: id.rawValue) else { throw ListStoreError.unknownSection(id) }
        return index
    }

    /// The current index path of row `id`, with its section's id, or `unknownRow` (by the addressing
    /// rule: a few index look-ups and sums over one page's blocks and the section's pages).
    func location(of id: RowID) throws -> (path: ListIndexPath, section: Int64) {
        let found = try rowPlace(of: id)
        return (found.path, found.section)
    }

    /// ``location(of:)`` with the row's place in its blocks.
    func rowPlace(of id: RowID) throws -> (path: ListIndexPath, section: Int64, place: RowPlace) {
        guard let found = try RowBlocks.place(ofRow: id.rawValue, self) else {
            guard
                let section = try cached("SELECT s.position FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE r.id = ?1")
                    .bind([.integer(id.rawValue)]).first({ $0.int(0) })
            else { throw ListStoreError.unknownRow(id) }
            throw ListStoreError.positionsDamaged(section: section)
        }
        return (ListIndexPath(section: found.sectionIndex, row: found.place.index), found.sectionID, found.place)
    }
}
