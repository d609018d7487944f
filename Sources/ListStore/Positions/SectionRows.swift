import SQLiteLayer

/// The rows of one section inside a transaction: which row is at an index, and where new or moved rows go.
///
/// Rows are ordered by sparse positions and counted in blocks and pages (``RowBlocks``); a row's index
/// is found through the counts, never by counting rows (``Addressing``). An insert writes its rows at
/// positions between their neighbours' and adds to one block's count; a delete removes its rows and
/// subtracts; a move rewrites one row. Inserts landing one after another at one place (a hot spot)
/// take a small fixed step from the row inserted before them, and the rows on the other side are
/// shifted a few at a time before the room runs out; a full block splits without moving rows. Nothing
/// else is renumbered, except the rows of one block when two neighbours leave no room between them
/// elsewhere (and, as a last resort, the whole section).
struct SectionRows {
    let sectionID: Int64
    /// The section's index, for index paths in errors and change sets.
    let sectionIndex: Int
    /// The number of rows (the section's recorded count, which ``verify(_:)`` checks against its pages).
    private(set) var count: Int
    let sizes: RowBlockSizes

    /// Reads section `index` of list `list` and checks it (``verify(_:)``). An edit checks the section order
    /// (``SectionOrder/verify(_:)``) once, before loading its sections.
    static func load(section index: Int, list: Int64, _ db: Connection, sizes: RowBlockSizes = .standard) throws -> SectionRows {
        let rows = try locate(section: index, list: list, db, sizes: sizes)
        try rows.verify(db)
        return rows
    }

    /// Reads section `index` — the section whose stored position is `index`, the one reads show at that
    /// index — without checking its blocks: enough for reads that must keep working on a damaged file.
    static func locate(section index: Int, list: Int64, _ db: Connection, sizes: RowBlockSizes = .standard) throws -> SectionRows {
        guard index >= 0,
            let found = try db.cached("SELECT id, row_count FROM sections WHERE list_id = ?2 AND position = ?1")
                .bind([.int(index), .integer(list)]).first({ (id: $0.int64(0), count: $0.int(1)) })
        else {
            throw ListStoreError.sectionIndexOutOfRange(index: index, sectionCount: try SectionOrder.count(db, list: list))
        }
        ExtentMemo.record(db) { $0.sections[ExtentMemo.SectionKey(section: list, page: index)] = found }
        return SectionRows(sectionID: found.id, sectionIndex: index, count: found.count, sizes: sizes, db: db)
    }

    /// Loads and checks the section with `id` (whose index is `index`).
    static func load(sectionID id: Int64, index: Int, _ db: Connection, sizes: RowBlockSizes = .standard) throws -> SectionRows {
        guard let count = try db.cached("SELECT row_count FROM sections WHERE id = ?1").bind([.integer(id)]).first({ $0.int(0) }) else {
            throw ListStoreError.unknownSection(SectionID(rawValue: id))
        }
        let rows = SectionRows(sectionID: id, sectionIndex: index, count: count, sizes: sizes, db: db)
        try rows.verify(db)
        return rows
    }

    /// Throws `positionsDamaged` unless the section has its first block and page, its recorded count is
    /// the sum of its pages' counts and within range, and its rows' positions are within the range
    /// ListStore writes: a handful of index look-ups and one pass over the pages. Damage these cannot
    /// see (counts moved between blocks or pages) leaves reads and edits agreeing all the same: both
    /// find rows through the same counts (``Addressing``), and `check` finds it.
    func verify(_ db: Connection) throws {
        let memo = try ExtentMemo.current(db)
        if let memo, memo.verified[sectionID] == count { return }
        let found = try db.cached(
            """
            SELECT (SELECT count(*) FROM row_blocks WHERE section_id = ?1 AND start = ?2),
                   (SELECT count(*) FROM row_pages WHERE section_id = ?1 AND start = ?2),
                   (SELECT coalesce(sum(row_count), 0) FROM row_pages WHERE section_id = ?1),
                   (SELECT min(position) FROM rows WHERE section_id = ?1),
                   (SELECT max(position) FROM rows WHERE section_id = ?1)
            """
        ).bind([.integer(sectionID), .int(RowSpacing.sectionStart)]).first { row in
            (blocks: row.int(0), pages: row.int(1), pageTotal: row.int(2), low: row.isNull(3) ? nil : row.int(3), high: row.isNull(4) ? nil : row.int(4))
        }
        guard let found, found.blocks == 1, found.pages == 1, found.pageTotal == count, count >= 0, count < RowSpacing.limit,
            (found.low ?? 0) > -RowSpacing.limit, (found.high ?? 0) < RowSpacing.limit, (found.low == nil) == (count == 0)
        else {
            throw ListStoreError.positionsDamaged(section: sectionIndex)
        }
        memo?.verified[sectionID] = count
    }

    var blocks: RowBlocks { RowBlocks(sectionID: sectionID, db: db) }
    var db: Connection { connection }
    private let connection: Connection

    init(sectionID: Int64, sectionIndex: Int, count: Int, sizes: RowBlockSizes, db: Connection) {
        self.sectionID = sectionID
        self.sectionIndex = sectionIndex
        self.count = count
        self.sizes = sizes
        self.connection = db
    }

    // MARK: Finding

    /// The row at `index`, with its block and page, or `rowIndexOutOfRange`. An index within the count
    /// that the counts do not lead to a row means the blocks were damaged by hand: `positionsDamaged`.
    func place(at index: Int) throws -> RowPlace {
        let (block, page) = try extents(at: index)
        guard let row = try blocks.row(at: index, in: block) else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
        return RowPlace(id: row.id, position: row.position, index: index, block: block, page: page)
    }

    /// The block and page the counts lead index `index` to (the row itself is the `index - base`-th
    /// of the block's range), or `rowIndexOutOfRange`; `positionsDamaged` where the counts lead nowhere.
    func extents(at index: Int) throws -> (block: RowExtent, page: RowExtent) {
        guard index >= 0, index < count else {
            throw ListStoreError.rowIndexOutOfRange(ListIndexPath(section: sectionIndex, row: index), rowCount: count)
        }
        let blocks = self.blocks
        guard let page = try blocks.page(holding: index, total: count), let block = try blocks.block(holding: index, in: page) else {
            throw ListStoreError.positionsDamaged(section: sectionIndex)
        }
        return (block, page)
    }

    /// The rows at `indexes` (any order, no repeats), found in one pass over the section's pages and the
    /// blocks of the pages they fall in, rather than one descent each: a delete of many rows.
    func places(at indexes: [Int]) throws -> [Int: RowPlace] {
        let blocks = self.blocks
        return try visitBlocks(holding: indexes) { block, page, wanted in
            // Several in one block: its rows once; one or two: a look-up each.
            let rows = wanted.count > 2 ? try blocks.rows(of: block) : nil
            return try wanted.map { index in
                let row: (id: Int64, position: Int)?
                if let rows {
                    let offset = index &- block.base
                    row = offset >= 0 && offset < rows.count ? rows[offset] : nil
                } else {
                    row = try blocks.row(at: index, in: block)
                }
                return row.map { RowPlace(id: $0.id, position: $0.position, index: index, block: block, page: page) }
            }
        }
    }

    /// Finds the blocks holding `indexes` (any order, no repeats; out of range: `rowIndexOutOfRange`)
    /// and hands each block, its page and the indexes in it (ascending) to `lookUp`, which returns what
    /// it found at each of them (nil: the counts lead to no row, `positionsDamaged`). A few indexes are
    /// found by a descent each; more in one pass over the section's pages and the blocks of the pages
    /// they fall in.
    func visitBlocks<Found>(
        holding indexes: [Int], _ lookUp: (_ block: RowExtent, _ page: RowExtent, _ indexes: ArraySlice<Int>) throws -> [Found?]
    ) throws -> [Int: Found] {
        for index in indexes where index < 0 || index >= count {
            throw ListStoreError.rowIndexOutOfRange(ListIndexPath(section: sectionIndex, row: index), rowCount: count)
        }
        var found: [Int: Found] = [:]
        found.reserveCapacity(indexes.count)
        func keep(_ results: [Found?], for wanted: ArraySlice<Int>) throws {
            for (index, result) in zip(wanted, results) {
                guard let result else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
                found[index] = result
            }
        }
        guard indexes.count > 8 else {
            for index in indexes {
                let (block, page) = try extents(at: index)
                try keep(try lookUp(block, page, [index]), for: [index])
            }
            return found
        }
        let wanted = indexes.sorted()
        let blocks = self.blocks
        let pages = try blocks.pageCounts()
        var next = 0
        var base = 0
        for (offset, page) in pages.enumerated() {
            guard next < wanted.count else { break }
            let end = offset + 1 < pages.count ? pages[offset + 1].start : nil
            let pageExtent = RowExtent(start: page.start, end: end, count: page.count, base: base)
            base = base &+ page.count
            guard wanted[next] < base else { continue }
            let pageBlocks = try blocks.blockCounts(from: page.start, upTo: end)
            var blockBase = pageExtent.base
            for (blockOffset, block) in pageBlocks.enumerated() {
                let blockEnd = blockOffset + 1 < pageBlocks.count ? pageBlocks[blockOffset + 1].start : end
                let extent = RowExtent(start: block.start, end: blockEnd, count: block.count, base: blockBase)
                blockBase = blockBase &+ block.count
                var last = next
                while last < wanted.count, wanted[last] < blockBase { last += 1 }
                guard last > next else { continue }
                try keep(try lookUp(extent, pageExtent, wanted[next..<last]), for: wanted[next..<last])
                next = last
            }
            // Indexes the page counts but its blocks do not: the counts were damaged by hand.
            guard next >= wanted.count || wanted[next] >= base else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
        }
        guard found.count == wanted.count else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
        return found
    }

    /// The id of the row at `index`, or a `rowIndexOutOfRange` error.
    func rowID(at index: Int) throws -> Int64 { try place(at: index).id }

    /// The place of the row with `id` (a row of this section).
    func place(ofRow id: Int64) throws -> RowPlace {
        guard let found = try RowBlocks.place(ofRow: id, db) else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
        return found.place
    }

    // MARK: Inserting

    /// Positions for `width` new rows at `index` (`0...count`), in order, between the rows now at
    /// `index - 1` and `index`. Makes room first when there is none (see the type's summary). The caller
    /// writes rows at exactly these positions, then calls ``noteInserted(_:atIndex:)``.
    mutating func insertionPositions(at index: Int, width: Int) throws -> [Int] {
        guard width > 0 else { return [] }
        let bounds = try insertionBounds(at: index)
        if let positions = try hotSpotPositions(at: index, width: width, bounds) { return positions }
        if let positions = RowSpacing.between(bounds.lower, bounds.upper, count: width, appending: bounds.appending, prepending: bounds.prepending) {
            return positions
        }
        if width <= sizes.blockCapacity, let positions = try respace(bounds.block, leaving: width, after: bounds.lower) {
            return positions
        }
        if width <= sizes.blockCapacity, let positions = try respaceWithNeighbour(bounds.block, leaving: width, after: bounds.lower) {
            return positions
        }
        if let positions = try respacePage(holding: bounds.block, leaving: width, after: bounds.lower) {
            return positions
        }
        return try blocks.rebuild(sizes: sizes, leavingRoom: width, before: index)
    }

    /// Counts rows just written at `positions` (from ``insertionPositions(at:width:)``) into their
    /// blocks and pages, and splits what they filled. `index` is the index of the first of them.
    mutating func noteInserted(_ positions: [Int], atIndex index: Int) throws {
        guard let first = positions.first, let last = positions.last else { return }
        let blocks = self.blocks
        guard let (block, page) = try blocks.extents(holding: first) else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
        count += positions.count
        if block.holds(last) {
            try blocks.count(positions.count, block: block.start, page: page.start)
            guard block.count &+ positions.count > sizes.blockCapacity else { return }
            try split(block, page: page, inserted: positions, at: index &- block.base)
        } else {
            // After a rebuild: the new rows may span blocks (the blocks were cut with room for them).
            for position in positions {
                guard let (holder, holderPage) = try blocks.extents(holding: position) else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
                try blocks.count(1, block: holder.start, page: holderPage.start)
            }
        }
    }

    /// Where new rows at some index go: strictly between `lower` and `upper`, in `block` (the block of
    /// the row before them, or of the section's first row). `before` and `after` are the ids of the rows
    /// just before and after the place, where there are such rows.
    private struct InsertionBounds {
        let lower: Int
        let upper: Int
        let block: RowExtent
        let appending: Bool
        let prepending: Bool
        let before: Int64?
        let after: Int64?
    }

    /// The bounds new rows at `index` go between, and the block they join: after the row at `index - 1`
    /// in its block, or before the first row in its block.
    private func insertionBounds(at index: Int) throws -> InsertionBounds {
        guard index >= 0, index <= count else {
            throw ListStoreError.rowDestinationOutOfRange(ListIndexPath(section: sectionIndex, row: index), maxRow: count)
        }
        if index > 0 {
            let before = try place(at: index - 1)
            let range = RowSpacing.clamp(before.block.start, before.block.end)
            let next = try db.cached("SELECT id, position FROM rows WHERE section_id = ?1 AND position > ?2 ORDER BY position LIMIT 1")
                .bind([.integer(sectionID), .int(before.position)]).first { (id: $0.int64(0), position: $0.int(1)) }
            return InsertionBounds(
                lower: before.position, upper: min(next?.position ?? range.upper, range.upper), block: before.block, appending: next == nil,
                prepending: false, before: before.id, after: next?.id)
        }
        if count > 0 {
            let first = try place(at: 0)
            let range = RowSpacing.clamp(first.block.start, first.block.end)
            return InsertionBounds(
                lower: range.lower == first.block.start ? range.lower - 1 : range.lower, upper: first.position, block: first.block, appending: false,
                prepending: true, before: nil, after: first.id)
        }
        guard let (block, _) = try blocks.extents(holding: 0) else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
        let range = RowSpacing.clamp(block.start, block.end)
        let lower = range.lower == block.start ? range.lower - 1 : range.lower
        // An empty section starts at position 0 when its block holds it.
        return InsertionBounds(
            lower: block.holds(0) ? max(lower, -RowSpacing.gap) : lower, upper: range.upper, block: block, appending: true, prepending: false,
            before: nil, after: nil)
    }

    // MARK: Hot spots

    /// Positions for `width` rows (a few) inserted next to a row inserted moments ago — one of the
    /// ``RowSpacing/recentRows`` highest ids —, where inserts are landing one after another: they go
    /// ``RowSpacing/runGap`` from that row instead of halfway to the other neighbour, so the room
    /// between lasts thousands of inserts rather than 20. Before it runs out, the rows on the other
    /// side are shifted away (``refill(_:shiftingUpper:)``, a bounded number of rows). Nil where this is
    /// not a hot spot, or the room left is a run's own small gap: the usual rules apply there.
    private func hotSpotPositions(at index: Int, width: Int, _ bounds: InsertionBounds) throws -> [Int]? {
        let gap = RowSpacing.runGap
        guard width <= 16, !bounds.appending, !bounds.prepending, bounds.upper - bounds.lower > (width + 3) * gap,
            let newest = try db.cached("SELECT max(id) FROM rows").bind([]).first({ $0.isNull(0) ? nil : $0.int64(0) }) ?? nil
        else { return nil }
        func recency(_ id: Int64?) -> Int64? { id.flatMap { $0 > newest - RowSpacing.recentRows ? $0 : nil } }
        let lowerRecent = recency(bounds.before)
        let upperRecent = recency(bounds.after)
        guard lowerRecent != nil || upperRecent != nil else { return nil }
        // The run of earlier inserts is on the side of the newer neighbour; the room is taken from its end.
        let runIsAbove = (upperRecent ?? Int64.min) > (lowerRecent ?? Int64.min)
        var bounds = bounds
        if bounds.upper - bounds.lower <= (width + 16) * gap, try refill(bounds, shiftingUpper: !runIsAbove) {
            bounds = try insertionBounds(at: index)
        }
        guard bounds.upper - bounds.lower > (width + 2) * gap else { return nil }
        if runIsAbove { return (0..<width).map { bounds.upper - (width - $0) * gap } }
        return (0..<width).map { bounds.lower + ($0 + 1) * gap }
    }

    /// Widens the room at a hot spot (`bounds`) by shifting the neighbour on one side — the lower one,
    /// or the upper one when `shiftingUpper` — with the rows between it and the nearest gap beyond it
    /// that has room to give (at most ``RowSpacing/refillRows`` rows past the neighbour; the section's
    /// open ends count as gaps), by up to ``RowSpacing/refillShift``. The starts of the blocks and pages
    /// among the shifted rows shift with them, so every row stays in its block: no count changes. False,
    /// moving nothing, when no gap that near has room.
    private func refill(_ bounds: InsertionBounds, shiftingUpper up: Bool) throws -> Bool {
        let fetched = RowSpacing.refillRows + 2
        // The rows from the neighbour away from the hot spot, and the block starts that way.
        let rows = try db.cached(up ? RefillSQL.rowsAbove : RefillSQL.rowsBelow)
            .bind([.integer(sectionID), .int(bounds.lower), .int(fetched)]).map { (id: $0.int64(0), position: $0.int(1)) }
        let startLimit = 2 * fetched + 2
        let starts = try db.cached(up ? RefillSQL.blockStartsAbove : RefillSQL.blockStartsBelow)
            .bind([.integer(sectionID), .int(bounds.lower), .int(startLimit)]).map { $0.int(0) }
        guard let neighbour = rows.first, neighbour.id == (up ? bounds.after : bounds.before) else { return false }
        for far in rows.indices.prefix(RowSpacing.refillRows + 1) {
            let position = rows[far].position
            // The next row and the next block start beyond the farthest shifted row bound the shift.
            let nextRow: Int?
            if far + 1 < rows.count {
                nextRow = rows[far + 1].position
            } else if rows.count < fetched {
                nextRow = nil
            } else {
                break
            }
            guard let beyond = starts.firstIndex(where: { up ? $0 > position : $0 <= position }) ?? (starts.count < startLimit ? starts.count : nil) else {
                break
            }
            let nextStart = beyond < starts.count ? starts[beyond] : nil
            let free: Int
            if up {
                free = min(nextRow ?? RowSpacing.limit, nextStart ?? RowSpacing.limit, RowSpacing.limit) - position - 1
            } else {
                // Shifted down, the farthest row stays in its own block (which starts at `nextStart`).
                let blockFloor = (nextStart ?? Int.min) <= -RowSpacing.limit ? -RowSpacing.limit : (nextStart ?? Int.min) - 1
                free = position - max(nextRow ?? -RowSpacing.limit, blockFloor, -RowSpacing.limit) - 1
            }
            guard free > 64 * RowSpacing.runGap else { continue }
            let shift = min(RowSpacing.refillShift, free - RowSpacing.runGap)
            let shifted = Array(rows[...far])
            let movedStarts = Array(starts[..<beyond])
            if up {
                try move(shifted, to: shifted.map { $0.position + shift })
            } else {
                try move(shifted.reversed(), to: shifted.reversed().map { $0.position - shift })
            }
            try shiftStarts(movedStarts, by: up ? shift : -shift)
            return true
        }
        return false
    }

    /// Moves the blocks starting at `starts` (and the pages starting there) by `shift`, the one
    /// furthest in the shift's direction first, so no two ever share a start.
    private func shiftStarts(_ starts: [Int], by shift: Int) throws {
        let ordered = shift > 0 ? starts.sorted(by: >) : starts.sorted()
        let block = try db.cached(RefillSQL.moveBlockStart)
        let page = try db.cached(RefillSQL.movePageStart)
        for start in ordered {
            try block.bind([.integer(sectionID), .int(start), .int(start + shift)]).run()
            try page.bind([.integer(sectionID), .int(start), .int(start + shift)]).run()
        }
    }

    /// The statements of a refill (``refill(_:shiftingUpper:)``), which a hot spot runs once every
    /// few thousand inserts; the respacings move rows and block starts with the same ones.
    enum RefillSQL {
        static let rowsAbove = "SELECT id, position FROM rows WHERE section_id = ?1 AND position > ?2 ORDER BY position LIMIT ?3"
        static let rowsBelow = "SELECT id, position FROM rows WHERE section_id = ?1 AND position <= ?2 ORDER BY position DESC LIMIT ?3"
        static let blockStartsAbove = "SELECT start FROM row_blocks WHERE section_id = ?1 AND start > ?2 ORDER BY start LIMIT ?3"
        static let blockStartsBelow = "SELECT start FROM row_blocks WHERE section_id = ?1 AND start <= ?2 ORDER BY start DESC LIMIT ?3"
        static let moveRow = "UPDATE rows SET position = ?2 WHERE id = ?1"
        static let moveBlockStart = "UPDATE row_blocks SET start = ?3 WHERE section_id = ?1 AND start = ?2"
        static let movePageStart = "UPDATE row_pages SET start = ?3 WHERE section_id = ?1 AND start = ?2"
    }

    /// Spaces out the rows of `block` around the insert — 8 on each side, else 32, else the whole block
    /// over its range — between the rows just outside them, leaving `width` free positions right after
    /// `position` (the row new rows follow, or below the block's first row), and returns them: inserts
    /// piling up at one place rewrite a handful of rows each time the room between two of them runs out.
    /// Nil when even the whole block's range is too small.
    private func respace(_ block: RowExtent, leaving width: Int, after position: Int) throws -> [Int]? {
        let rows = try blocks.rows(of: block)
        let range = RowSpacing.workingRange(block.start, block.end, rows: rows.map(\.position), adding: width)
        let hole = rows.firstIndex { $0.position > position } ?? rows.count
        for radius in [8, 32, rows.count] {
            let first = max(0, hole - radius)
            let last = min(rows.count, hole + radius)
            let lower = first > 0 ? rows[first - 1].position + 1 : range.lower
            let upper = last < rows.count ? rows[last].position : range.upper
            if let free = try respread(Array(rows[first..<last]), leaving: width, after: position, in: lower, upTo: upper)?.free { return free }
            if first == 0 && last == rows.count { return nil }
        }
        return nil
    }

    /// Moves `rows` (in order) to positions spread evenly over `lower ..< upper` with `width` free ones
    /// right after `position`, and returns both; nil, moving nothing, when the range holds too few integers.
    private func respread(
        _ rows: [(id: Int64, position: Int)], leaving width: Int, after position: Int, in lower: Int, upTo upper: Int
    ) throws -> (moved: [Int], free: [Int])? {
        guard let slots = RowSpacing.spread(rows.count + width, in: lower, upTo: upper) else { return nil }
        let hole = rows.firstIndex { $0.position > position } ?? rows.count
        let moved = Array(slots[..<hole]) + slots[(hole + width)...]
        try move(rows, to: moved)
        return (moved, Array(slots[hole..<(hole + width)]))
    }

    /// Like ``respace(_:leaving:after:)`` over the whole page holding `block`, when neither the block nor
    /// it and a neighbour have room: the page's rows (at most a page of blocks) are spread over its range
    /// and its blocks cut afresh. Nil when the page's range is too small too.
    private func respacePage(holding block: RowExtent, leaving width: Int, after position: Int) throws -> [Int]? {
        guard let (_, page) = try blocks.extents(holding: block.start) else { return nil }
        let rows = try blocks.rows(of: page)
        let range = RowSpacing.workingRange(page.start, page.end, rows: rows.map(\.position), adding: width)
        guard let (moved, free) = try respread(rows, leaving: width, after: position, in: range.lower, upTo: range.upper) else { return nil }
        try blocks.recutBlocks(of: page, positions: moved, sizes: sizes)
        return free
    }

    /// Like ``respace(_:leaving:after:)`` over this block and the next one in its page (or the one
    /// before), when this block's range alone is too small: the two blocks' rows are spread over both
    /// ranges and the start of the second moves to its first row's new position. Nil when the two ranges
    /// are too small as well, or the block has no neighbour in its page.
    private func respaceWithNeighbour(_ block: RowExtent, leaving width: Int, after position: Int) throws -> [Int]? {
        guard let (_, page) = try blocks.extents(holding: block.start) else { return nil }
        let pageEnd = page.end ?? Int.max
        var pair: (first: RowExtent, second: RowExtent)?
        if let end = block.end, end < pageEnd, let (next, _) = try blocks.extents(holding: end) {
            pair = (block, next)
        } else if block.start > page.start, let (previous, _) = try blocks.extents(holding: block.start - 1) {
            pair = (previous, block)
        }
        guard let (first, second) = pair else { return nil }
        let union = RowExtent(start: first.start, end: second.end, count: first.count &+ second.count, base: first.base)
        let rows = try blocks.rows(of: union)
        let range = RowSpacing.workingRange(union.start, union.end, rows: rows.map(\.position), adding: width)
        guard let slots = RowSpacing.spread(rows.count + width, in: range.lower, upTo: range.upper) else { return nil }
        let hole = rows.firstIndex { $0.position > position } ?? rows.count
        let moved = Array(slots[..<hole]) + slots[(hole + width)...]
        // The second block keeps its rows and starts at the first one's new position; new rows that go
        // right before it join the first block, as they would have without the respacing.
        let secondFirst = rows.firstIndex { $0.position >= second.start } ?? rows.count
        let newStart = secondFirst < rows.count ? moved[secondFirst] : (slots.last ?? range.lower) + 1
        // An empty second block could otherwise be given the next block's start.
        guard newStart > first.start, newStart < (second.end ?? Int.max) else { return nil }
        try move(rows, to: moved)
        if newStart != second.start {
            try db.cached(RefillSQL.moveBlockStart).bind([.integer(sectionID), .int(second.start), .int(newStart)]).run()
        }
        return Array(slots[hole..<(hole + width)])
    }

    /// Splits a block that inserts filled past capacity, without moving a row. One that a few rows
    /// filled is cut in two near its middle — never right beside the rows just inserted, so that a
    /// place where inserts keep landing keeps its room and its neighbours in one block (see
    /// ``hotSpotPositions(at:width:_:)``); a bulk insert is cut into blocks filled to three quarters.
    private func split(_ block: RowExtent, page: RowExtent, inserted: [Int], at offset: Int) throws {
        if inserted.count > sizes.blockCapacity, let first = inserted.first, let last = inserted.last {
            // A bulk insert: the block's other rows are few, the new ones known; nothing needs reading but those.
            let before = try blocks.rows(of: RowExtent(start: block.start, end: first, count: 0, base: 0)).map(\.position)
            let after = last == Int.max ? [] : try blocks.rows(of: RowExtent(start: last + 1, end: block.end, count: 0, base: 0)).map(\.position)
            try blocks.split(blockAt: block.start, positions: before + inserted + after, page: page.start, sizes: sizes)
            return
        }
        let total = block.count &+ inserted.count
        guard total >= 2 else { return }
        let cut = Self.cut(total, avoiding: offset..<(offset + inserted.count))
        let counted = RowExtent(start: block.start, end: block.end, count: total, base: block.base)
        guard let first = try blocks.row(at: block.base &+ cut, in: counted) else { throw ListStoreError.positionsDamaged(section: sectionIndex) }
        try blocks.split(blockAt: block.start, count: total, cuttingAt: cut, startingAt: first.position, page: page, sizes: sizes)
    }

    /// Where to cut a block of `total` rows in two (the offset of the second part's first row, in
    /// `1..<total`): at the middle, unless that is beside or inside `inserted` (the offsets of the rows
    /// just inserted) — then one row further out, on the nearer side that exists.
    static func cut(_ total: Int, avoiding inserted: Range<Int>) -> Int {
        let middle = total / 2
        guard middle >= inserted.lowerBound, middle <= inserted.upperBound else { return middle }
        let below = inserted.lowerBound - 1
        let above = inserted.upperBound + 1
        let belowFits = below >= 1
        let aboveFits = above <= total - 1
        if belowFits && (!aboveFits || middle - below <= above - middle) { return below }
        return aboveFits ? above : middle
    }

    /// Gives `rows` (in order) the increasing `positions`, all within their block's range: rows moving
    /// down in ascending order, then rows moving up in descending order, so that no two ever share a position.
    private func move(_ rows: [(id: Int64, position: Int)], to positions: [Int]) throws {
        let update = try db.cached(RefillSQL.moveRow)
        for (row, position) in zip(rows, positions) where position < row.position {
            try update.bind([.integer(row.id), .int(position)]).run()
        }
        for (row, position) in zip(rows, positions).reversed() where position > row.position {
            try update.bind([.integer(row.id), .int(position)]).run()
        }
    }

    // MARK: Removing and moving

    /// Deletes the rows at `places` (rows of this section, found before any of them was deleted) and
    /// takes them off their blocks' and pages' counts; merges blocks that fell below the minimum.
    mutating func delete(_ places: [RowPlace]) throws {
        guard !places.isEmpty else { return }
        // 32 ids per statement where there are that many: the statement's set-up once per 32 rows.
        let chunk = try db.cached("DELETE FROM rows WHERE id IN (\(Array(repeating: "?", count: RowWriter.rowsPerStatement).joined(separator: ", ")))")
        var offset = 0
        while places.count - offset >= RowWriter.rowsPerStatement {
            try chunk.bind(places[offset..<(offset + RowWriter.rowsPerStatement)].map { .integer($0.id) }).run()
            offset += RowWriter.rowsPerStatement
        }
        let remove = try db.cached("DELETE FROM rows WHERE id = ?1")
        for place in places[offset...] { try remove.bind([.integer(place.id)]).run() }
        try uncount(places)
    }

    /// Takes rows that left (deleted, or moved elsewhere) off their blocks' counts and merges small blocks.
    private mutating func uncount(_ places: [RowPlace]) throws {
        var perBlock: [Int: (page: Int, count: Int, left: Int)] = [:]
        var perPage: [Int: Int] = [:]
        for place in places {
            perBlock[place.block.start, default: (place.page.start, 0, place.block.count)].count &+= 1
            perPage[place.page.start, default: 0] += 1
        }
        try blocks.add(blocks: perBlock.mapValues { -$0.count }, pages: perPage.mapValues { -$0 }, total: -places.count)
        count -= places.count
        for (start, entry) in perBlock.sorted(by: { $0.key > $1.key }) where entry.left &- entry.count < sizes.blockMinimum {
            try blocks.mergeIfSmall(holding: start, sizes: sizes)
        }
    }

    /// Moves the row at `from` (found by ``place(at:)``) so that its index after the move is `to`.
    mutating func move(_ row: RowPlace, from: Int, to: Int) throws {
        guard from != to else { return }
        // Where it goes, in the coordinates before the move: between the rows at k - 1 and k, neither of them this row.
        let positions = try insertionPositions(at: to < from ? to : to + 1, width: 1)
        let old = try detach(rowID: row.id, to: positions, in: sectionID)
        try blocks.count(-1, block: old.block.start, page: old.page.start)
        count -= 1
        try noteInserted(positions, atIndex: to)
        try blocks.mergeIfSmall(holding: old.block.start, sizes: sizes)
    }

    /// Moves the row `row` of this section into `target` at index `to`.
    mutating func move(_ row: RowPlace, into target: inout SectionRows, at to: Int) throws {
        let positions = try target.insertionPositions(at: to, width: 1)
        let old = try detach(rowID: row.id, to: positions, in: target.sectionID)
        try uncount([old])
        try target.noteInserted(positions, atIndex: to)
    }

    /// Writes the row at its new position (the first of `positions`, in section `sectionID`) and returns
    /// its old place, read again: making room may have moved it within its block.
    private func detach(rowID: Int64, to positions: [Int], in section: Int64) throws -> RowPlace {
        guard let position = positions.first else { throw ListStoreError.unknownRow(RowID(rawValue: rowID)) }
        let place = try place(ofRow: rowID)
        try db.cached("UPDATE rows SET section_id = ?2, position = ?3 WHERE id = ?1")
            .bind([.integer(rowID), .integer(section), .int(position)]).run()
        return place
    }
}
