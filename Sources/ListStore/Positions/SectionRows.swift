import SQLiteLayer

/// The rows of one section inside a write transaction: where they are and how to shift them.
///
/// A row's index is `position - base`; positions are contiguous (`base ..< base + count`) but need not
/// start at 0. Head and tail inserts move the base instead of the rows; a middle edit shifts whichever
/// side is shorter; closing the gaps of a multi-row delete shifts each run of survivors once.
///
/// A shift moves the rows far up into a parking range first and then down to their final positions, so
/// UNIQUE(section_id, position) holds whatever order SQLite visits the rows in.
struct SectionRows {
    /// Real positions stay within ±2^47, far below the parking range.
    static let positionLimit = 1 << 47
    /// Where a shifted block waits between the two statements of a shift.
    static let parkingOffset = 1 << 52
    static let parkingThreshold = 1 << 51
    /// Where a moving row waits while the rows around it shift.
    static let movingRowSpot = 1 << 50
    /// The most positions one UPDATE covers: SQLite collects the rows to update first, so this bounds
    /// its memory whatever the size of the section.
    static let window = 16_384

    let sectionID: Int64
    /// The section's index, for index paths in errors and change sets.
    let sectionIndex: Int
    private(set) var base: Int
    private(set) var count: Int
    private let storedBase: Int

    /// Reads section `index` and checks, with three index look-ups, that its positions are exactly
    /// `base ..< base + count`; a hand-edited gap or a wrong count throws `positionsDamaged`. An edit
    /// checks the section order (``SectionOrder/verify(_:)``) once, before loading its sections.
    static func load(section index: Int, _ db: Connection) throws -> SectionRows {
        let rows = try locate(section: index, db)
        try rows.verify(db)
        return rows
    }

    /// Reads section `index` — the section whose stored position is `index`, the one reads show at
    /// that index — without checking its rows' positions: enough for reads, which must keep working on
    /// a damaged file.
    static func locate(section index: Int, _ db: Connection) throws -> SectionRows {
        guard index >= 0,
            let found = try db.cached("SELECT id, row_base, row_count FROM sections WHERE position = ?1")
                .bind([.int(index)]).first({ (id: $0.int64(0), base: $0.int(1), count: $0.int(2)) })
        else {
            throw ListStoreError.sectionIndexOutOfRange(index: index, sectionCount: try SectionOrder.count(db))
        }
        return SectionRows(sectionID: found.id, sectionIndex: index, base: found.base, count: found.count, storedBase: found.base)
    }

    /// Loads and checks the section with `id` (whose index is `index`).
    static func load(sectionID id: Int64, index: Int, _ db: Connection) throws -> SectionRows {
        guard
            let found = try db.cached("SELECT row_base, row_count FROM sections WHERE id = ?1")
                .bind([.integer(id)]).first({ (base: $0.int(0), count: $0.int(1)) })
        else {
            throw ListStoreError.unknownSection(SectionID(rawValue: id))
        }
        let rows = SectionRows(sectionID: id, sectionIndex: index, base: found.base, count: found.count, storedBase: found.base)
        try rows.verify(db)
        return rows
    }

    /// Throws `positionsDamaged` unless the base and count are within the position limit and the
    /// lowest and highest positions are exactly `base` and `base + count - 1` (three index look-ups).
    /// Damage these look-ups cannot see (an interior gap together with a wrong count) leaves reads and
    /// edits agreeing all the same: both address rows by `position - base` (``Addressing``).
    func verify(_ db: Connection) throws {
        let limit = Self.positionLimit
        guard count >= 0, count < limit, base > -limit, base < limit else {
            throw ListStoreError.positionsDamaged(section: sectionIndex)
        }
        let bounds = try db.cached(
            """
            SELECT (SELECT min(position) FROM rows WHERE section_id = ?1), (SELECT max(position) FROM rows WHERE section_id = ?1)
            """
        ).bind([.integer(sectionID)]).first { ($0.isNull(0) ? nil : $0.int(0), $0.isNull(1) ? nil : $0.int(1)) }
        let expected: (Int?, Int?) = count == 0 ? (nil, nil) : (base, base + count - 1)
        guard bounds?.0 == expected.0, bounds?.1 == expected.1 else {
            throw ListStoreError.positionsDamaged(section: sectionIndex)
        }
    }

    /// The id of the row at `index` (the row stored at `base + index`), or a `rowIndexOutOfRange` error.
    /// An index within the count whose position holds no row means the positions were damaged by hand.
    func rowID(at index: Int, _ db: Connection) throws -> Int64 {
        guard index >= 0, index < count else {
            throw ListStoreError.rowIndexOutOfRange(ListIndexPath(section: sectionIndex, row: index), rowCount: count)
        }
        guard let position = Addressing.position(ofRow: index, base: base),
            let id = try db.cached("SELECT id FROM rows WHERE section_id = ?1 AND position = ?2")
                .bind([.integer(sectionID), .int(position)]).first({ $0.int64(0) })
        else {
            throw ListStoreError.positionsDamaged(section: sectionIndex)
        }
        return id
    }

    /// Makes room for `width` rows at `index` (0...count) and returns the position of the first one.
    /// The caller inserts exactly `width` rows at the returned positions, then calls `save`.
    mutating func openGap(at index: Int, width: Int, _ db: Connection) throws -> Int {
        guard width > 0 else { return base + index }
        if index < count && index < count - index {
            try shift(from: base, upTo: base + index, by: -width, db)
            base -= width
        } else {
            try shift(from: base + index, upTo: base + count, by: width, db)
        }
        count += width
        return base + index
    }

    /// Closes the gaps left by rows that were at `deleted` (indexes before the delete, sorted, unique,
    /// already deleted). Each run of survivors between two gaps shifts once, on the cheaper side.
    mutating func closeGaps(at deleted: [Int], _ db: Connection) throws {
        guard let first = deleted.first, let last = deleted.last else { return }
        let removed = deleted.count
        let survivorsAfterFirstGap = count - first - removed
        let survivorsBeforeLastGap = last + 1 - removed
        if survivorsBeforeLastGap < survivorsAfterFirstGap {
            // Shift the head side up: the run before gap j moves by (removed - j).
            var lower = 0
            for (j, gap) in deleted.enumerated() {
                try park(from: base + lower, upTo: base + gap, by: removed - j, db)
                lower = gap + 1
            }
            base += removed
        } else {
            // Shift the tail side down: the run after gap j moves by -(j + 1).
            for (j, gap) in deleted.enumerated() {
                let upper = j + 1 < deleted.count ? deleted[j + 1] : count
                try park(from: base + gap + 1, upTo: base + upper, by: -(j + 1), db)
            }
        }
        try unpark(db)
        count -= removed
    }

    /// Takes the row at `index` out of the order (parks it) and closes its gap on the cheaper side.
    mutating func detach(rowID: Int64, at index: Int, _ db: Connection) throws {
        try db.run("UPDATE rows SET position = ?2 WHERE id = ?1", [.integer(rowID), .int(Self.movingRowSpot)])
        try closeGaps(at: [index], db)
    }

    /// Puts the parked row `rowID` at `index`, making room on the cheaper side.
    mutating func attach(rowID: Int64, at index: Int, _ db: Connection) throws {
        let position = try openGap(at: index, width: 1, db)
        try db.run("UPDATE rows SET section_id = ?2, position = ?3 WHERE id = ?1", [.integer(rowID), .integer(sectionID), .int(position)])
    }

    /// Moves the row at `from` to `to` within this section, by whichever is cheaper: shifting the rows
    /// between the two, or taking it out and putting it back (each on its own cheaper side).
    mutating func move(rowID: Int64, from: Int, to: Int, _ db: Connection) throws {
        guard from != to else { return }
        let between = abs(to - from)
        let outAndIn = min(from, count - 1 - from) + min(to, count - 1 - to)
        if outAndIn < between {
            try detach(rowID: rowID, at: from, db)
            try attach(rowID: rowID, at: to, db)
        } else {
            try db.run("UPDATE rows SET position = ?2 WHERE id = ?1", [.integer(rowID), .int(Self.movingRowSpot)])
            if from < to {
                try shift(from: base + from + 1, upTo: base + to + 1, by: -1, db)
            } else {
                try shift(from: base + to, upTo: base + from, by: 1, db)
            }
            try db.run("UPDATE rows SET position = ?2 WHERE id = ?1", [.integer(rowID), .int(base + to)])
        }
    }

    /// Writes the base back when it changed. (The count is kept by the schema's triggers.)
    func save(_ db: Connection) throws {
        guard base != storedBase else { return }
        guard base > -Self.positionLimit, base < Self.positionLimit else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
        try db.run("UPDATE sections SET row_base = ?2 WHERE id = ?1", [.integer(sectionID), .int(base)])
    }

    /// Adds `delta` to the positions `lower ..< upper` of this section.
    private func shift(from lower: Int, upTo upper: Int, by delta: Int, _ db: Connection) throws {
        guard lower < upper, delta != 0 else { return }
        try park(from: lower, upTo: upper, by: delta, db)
        try unpark(db)
    }

    private func park(from lower: Int, upTo upper: Int, by delta: Int, _ db: Connection) throws {
        // In windows of positions, so SQLite's list of rows to update stays small for huge sections.
        var start = lower
        while start < upper {
            let end = min(upper, start + Self.window)
            try db.run(
                "UPDATE rows SET position = position + ?4 WHERE section_id = ?1 AND position >= ?2 AND position < ?3",
                [.integer(sectionID), .int(start), .int(end), .int(delta + Self.parkingOffset)])
            start = end
        }
    }

    /// Moves every parked row of the section down to its final position, window by window.
    private func unpark(_ db: Connection) throws {
        let parked = try db.cached(
            """
            SELECT (SELECT min(position) FROM rows WHERE section_id = ?1 AND position >= ?2),
                   (SELECT max(position) FROM rows WHERE section_id = ?1 AND position >= ?2)
            """
        ).bind([.integer(sectionID), .int(Self.parkingThreshold)]).first { $0.isNull(0) ? nil : ($0.int(0), $0.int(1)) }
        guard let (lowest, highest) = parked ?? nil else { return }
        var start = lowest
        while start <= highest {
            let end = min(highest + 1, start + Self.window)
            try db.run(
                "UPDATE rows SET position = position - ?4 WHERE section_id = ?1 AND position >= ?2 AND position < ?3",
                [.integer(sectionID), .int(start), .int(end), .int(Self.parkingOffset)])
            start = end
        }
    }
}
