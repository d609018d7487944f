import SQLiteLayer

/// A row about to be deleted, with what its delete's undo needs: its place, its values, and the ids of
/// the rows just before and after it in its section then (by position: whatever the counts say).
struct DepartingRow: Equatable {
    let place: RowPlace
    let title: String
    let payload: String?
    /// The row just before it (nil: it is the section's first).
    let previous: Int64?
    /// The row just after it (nil: it is the section's last).
    let next: Int64?
}

extension SectionRows {
    /// The rows at `indexes` (any order, no repeats) with their values and neighbours, found as
    /// ``places(at:)`` finds them: a row's neighbours come with it from the same look-up through its
    /// block, and only a row at a block's edge needs its neighbour outside looked up.
    func departingRows(at indexes: [Int]) throws -> [Int: DepartingRow] {
        let blocks = self.blocks
        return try visitBlocks(holding: indexes) { block, page, wanted in
            if wanted.count > 2 {
                let rows = try blocks.rows(of: block)
                return try wanted.map { index in
                    let offset = index &- block.base
                    guard offset >= 0, offset < rows.count else { return nil }
                    return try departing(
                        rows[offset], index: index, block: block, page: page, previous: offset > 0 ? rows[offset - 1].id : nil,
                        next: offset + 1 < rows.count ? rows[offset + 1].id : nil)
                }
            }
            return try wanted.map { index in
                let offset = index &- block.base
                guard offset >= 0 else { return nil }
                // The row and its neighbours in the block: from the one before it (when it is not the block's first).
                let rows = try db.cached(
                    fixed: "SELECT id, position FROM rows WHERE section_id = ?1 AND position >= ?2 AND position < ?3 ORDER BY position LIMIT ?5 OFFSET ?4"
                ).bind([.integer(sectionID), .int(block.start), .int(block.end ?? Int.max), .int(max(offset - 1, 0)), .int(offset > 0 ? 3 : 2)])
                    .map { (id: $0.int64(0), position: $0.int(1)) }
                let at = offset > 0 ? 1 : 0
                guard at < rows.count else { return nil }
                return try departing(
                    rows[at], index: index, block: block, page: page, previous: at > 0 ? rows[0].id : nil, next: at + 1 < rows.count ? rows[at + 1].id : nil)
            }
        }
    }

    /// The rows at `places` (rows of this section, found by id) with their values and neighbours.
    func departingRows(_ places: [RowPlace]) throws -> [DepartingRow] {
        try places.map { place in
            guard let found = try departing((place.id, place.position), index: place.index, block: place.block, page: place.page, previous: nil, next: nil)
            else { throw ListStoreError.unknownRow(RowID(rawValue: place.id)) }
            return found
        }
    }

    /// `row` with its values, and its neighbours: `previous` and `next` where the caller found them in
    /// the row's block, else looked up here (nil there: none in the block).
    private func departing(
        _ row: (id: Int64, position: Int), index: Int, block: RowExtent, page: RowExtent, previous: Int64?, next: Int64?
    ) throws -> DepartingRow? {
        guard
            let values = try db.cached(fixed: "SELECT title, payload FROM rows WHERE id = ?1").bind([.integer(row.id)])
                .first({ (title: $0.text(0), payload: $0.optionalText(1)) })
        else { return nil }
        let before = try previous ?? blocks.rowBefore(row.position)
        let after = try next ?? blocks.rowAfter(row.position)
        return DepartingRow(
            place: RowPlace(id: row.id, position: row.position, index: index, block: block, page: page), title: values.title, payload: values.payload,
            previous: before, next: after)
    }
}
