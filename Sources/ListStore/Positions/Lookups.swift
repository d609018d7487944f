import SQLiteLayer

/// Input checks shared by the mutations. They run inside the write transaction, against the file as
/// it is now, and throw a ``ListStoreError`` naming the offending input.
extension Connection {
    /// The id of section `index` of list `list`, or a `sectionIndexOutOfRange` error.
    func sectionID(at index: Int, list: Int64) throws -> Int64 {
        if index >= 0,
            let id = try cached("SELECT id FROM sections WHERE list_id = ?2 AND position = ?1").bind([.int(index), .integer(list)]).first({ $0.int64(0) })
        {
            return id
        }
        throw ListStoreError.sectionIndexOutOfRange(index: index, sectionCount: try SectionOrder.count(self, list: list))
    }

    /// The index of the section with id `id` and the list it is in, or nil when there is none.
    func sectionIndexAndList(id: Int64) throws -> (index: Int, list: Int64)? {
        try cached("SELECT position, list_id FROM sections WHERE id = ?1").bind([.integer(id)]).first { ($0.int(0), $0.int64(1)) }
    }

    /// The index of the section with id `id` in list `list`, or nil when there is none there.
    func sectionIndex(id: Int64, list: Int64) throws -> Int? {
        guard let found = try sectionIndexAndList(id: id), found.list == list else { return nil }
        return found.index
    }

    /// The index of section `id` in list `list`: an `unknownSection` error when there is none, a
    /// `sectionInAnotherList` error naming the list it is in.
    func existingSectionIndex(_ id: SectionID, list: Int64) throws -> Int {
        guard let found = try sectionIndexAndList(id: id.rawValue) else { throw ListStoreError.unknownSection(id) }
        guard found.list == list else { throw ListStoreError.sectionInAnotherList(id, list: try listName(found.list)) }
        return found.index
    }

    /// The name of list `id` (its id as text when it has none: a hand edit deleted it).
    func listName(_ id: Int64) throws -> String {
        try cached("SELECT name FROM lists WHERE id = ?1").bind([.integer(id)]).first { $0.text(0) } ?? "#\(id)"
    }

    /// Throws `rowInAnotherList` unless the row in section `section` is in list `list`.
    func requireSection(_ section: Int64, ofRow id: RowID, inList list: Int64) throws {
        guard let found = try sectionIndexAndList(id: section), found.list != list else { return }
        throw ListStoreError.rowInAnotherList(id, list: try listName(found.list))
    }

    /// The current index path of row `id` in list `list`, with its section's id, or `unknownRow` (by
    /// the addressing rule: a few index look-ups and sums over one page's blocks and the section's
    /// pages); `rowInAnotherList` when the row is in another list.
    func location(of id: RowID, list: Int64) throws -> (path: ListIndexPath, section: Int64) {
        let found = try rowPlace(of: id, list: list)
        return (found.path, found.section)
    }

    /// ``location(of:list:)`` with the row's place in its blocks.
    func rowPlace(of id: RowID, list: Int64) throws -> (path: ListIndexPath, section: Int64, place: RowPlace) {
        let found = try rowPlace(of: id)
        try requireSection(found.section, ofRow: id, inList: list)
        return found
    }

    /// The row's place wherever it is, in any list.
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
