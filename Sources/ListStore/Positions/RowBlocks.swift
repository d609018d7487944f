import SQLiteLayer

/// How many rows a block holds and how many blocks a page holds before they split, and below which
/// they merge. Small sizes force splits and merges in tests; the standard sizes keep every look-up and
/// every rewrite within a few hundred index entries at a million rows.
struct RowBlockSizes: Sendable, Equatable {
    /// A block with more rows splits.
    var blockCapacity: Int
    /// A page with more blocks splits.
    var pageCapacity: Int

    static let standard = RowBlockSizes(blockCapacity: 128, pageCapacity: 128)

    /// A split or a bulk insert fills blocks and pages to three quarters, so the next inserts do not split them again.
    var blockFill: Int { max(1, blockCapacity * 3 / 4) }
    var pageFill: Int { max(1, pageCapacity * 3 / 4) }
    /// A block or page with fewer merges with a neighbour when the two fit in one filled to three quarters.
    var blockMinimum: Int { blockCapacity / 4 }
    var pageMinimum: Int { pageCapacity / 4 }
}

/// One block or page of a section: its range of positions, its count, and the index of its first row
/// by the addressing rule (``Addressing``).
struct RowExtent: Equatable {
    /// The lowest position it holds.
    let start: Int
    /// The start of the next one in the section; nil for the last.
    let end: Int?
    let count: Int
    /// The index of its first row.
    let base: Int

    /// Whether `position` falls in it.
    func holds(_ position: Int) -> Bool { position >= start && (end.map { position < $0 } ?? true) }
}

/// Where one row is: its id, position and index, its block and page.
struct RowPlace: Equatable {
    let id: Int64
    let position: Int
    let index: Int
    let block: RowExtent
    let page: RowExtent
}

/// The blocks and pages of one section (`row_blocks`, `row_pages`): finding the row at an index, the
/// index of a position, and keeping the counts as rows come and go. Every statement here is an index
/// look-up or a range of at most one page's blocks or one block's rows.
struct RowBlocks {
    let sectionID: Int64
    let db: Connection

    // MARK: Finding

    /// The page holding index `index` (`0 <= index < total`). From the nearer end: `total` must be the
    /// sum of the page counts (``SectionRows/verify(_:)`` checks it), which makes both ends agree.
    func page(holding index: Int, total: Int) throws -> RowExtent? {
        if let memo = try ExtentMemo.current(db) {
            let pages = try memo.pages(ofSection: sectionID, db)
            if index < total / 2 { return Self.ascend(pages, from: 0, to: index, end: nil) }
            var base = total
            for offset in pages.indices.reversed() {
                base = base &- pages[offset].count
                if index >= base {
                    return RowExtent(start: pages[offset].start, end: offset + 1 < pages.count ? pages[offset + 1].start : nil, count: pages[offset].count, base: base)
                }
            }
            return nil
        }
        if index < total / 2 {
            let pages = try db.cached("SELECT start, row_count FROM row_pages WHERE section_id = ?1 ORDER BY start").bind([.integer(sectionID)])
            return try Self.ascend(pages, from: 0, to: index, end: nil)
        }
        var base = total
        var next: Int?
        var found: RowExtent?
        try db.cached("SELECT start, row_count FROM row_pages WHERE section_id = ?1 ORDER BY start DESC").bind([.integer(sectionID)])
            .forEachRowWhile { row in
                let count = row.int(1)
                base = base &- count
                if index >= base {
                    found = RowExtent(start: row.int(0), end: next, count: count, base: base)
                    return false
                }
                next = row.int(0)
                return true
            }
        return found
    }

    /// The block of `page` holding index `index`, counting from the page's first block.
    func block(holding index: Int, in page: RowExtent) throws -> RowExtent? {
        if let memo = try ExtentMemo.current(db) {
            return Self.ascend(try memo.blocks(ofSection: sectionID, page: page, db), from: page.base, to: index, end: page.end)
        }
        let blocks = try db.cached("SELECT start, row_count FROM row_blocks WHERE section_id = ?1 AND start >= ?2 AND start < ?3 ORDER BY start")
            .bind([.integer(sectionID), .int(page.start), .int(page.end ?? Int.max)])
        return try Self.ascend(blocks, from: page.base, to: index, end: page.end)
    }

    /// Steps through `(start, row_count)` rows in order, adding counts from `base`, to the one holding
    /// index `index`; its end is the next one's start (one more step), or `end` when it is the last.
    private static func ascend(_ statement: Statement, from base: Int, to index: Int, end: Int?) throws -> RowExtent? {
        var base = base
        var found: (start: Int, count: Int, base: Int)?
        var foundEnd = end
        try statement.forEachRowWhile { row in
            if found != nil {
                foundEnd = row.int(0)
                return false
            }
            let count = row.int(1)
            if index < base &+ count { found = (row.int(0), count, base) }
            base = base &+ count
            return true
        }
        return found.map { RowExtent(start: $0.start, end: foundEnd, count: $0.count, base: $0.base) }
    }

    /// ``ascend(_:from:to:end:)`` over `(start, count)` pairs already read (also the memo's, `MemoReads`).
    static func ascend(_ extents: [(start: Int, count: Int)], from base: Int, to index: Int, end: Int?) -> RowExtent? {
        var base = base
        for (offset, extent) in extents.enumerated() {
            if index < base &+ extent.count {
                return RowExtent(start: extent.start, end: offset + 1 < extents.count ? extents[offset + 1].start : end, count: extent.count, base: base)
            }
            base = base &+ extent.count
        }
        return nil
    }

    /// The section's pages in order, with their counts.
    func pageCounts() throws -> [(start: Int, count: Int)] {
        try db.cached("SELECT start, row_count FROM row_pages WHERE section_id = ?1 ORDER BY start").bind([.integer(sectionID)])
            .map { (start: $0.int(0), count: $0.int(1)) }
    }

    /// The blocks starting in `start ..< end` (end nil: to the section's end) in order, with their counts.
    func blockCounts(from start: Int, upTo end: Int?) throws -> [(start: Int, count: Int)] {
        try db.cached("SELECT start, row_count FROM row_blocks WHERE section_id = ?1 AND start >= ?2 AND start < ?3 ORDER BY start")
            .bind([.integer(sectionID), .int(start), .int(end ?? Int.max)]).map { (start: $0.int(0), count: $0.int(1)) }
    }

    /// The row at `index` of `block`: the `index - base`-th row of the block's range.
    func row(at index: Int, in block: RowExtent) throws -> (id: Int64, position: Int)? {
        let offset = index &- block.base
        guard offset >= 0 else { return nil }
        return try db.cached(
            fixed: "SELECT id, position FROM rows WHERE section_id = ?1 AND position >= ?2 AND position < ?3 ORDER BY position LIMIT 1 OFFSET ?4"
        ).bind([.integer(sectionID), .int(block.start), .int(block.end ?? Int.max), .int(offset)]).first { ($0.int64(0), $0.int(1)) }
    }

    /// The id of the row just before `position` in the section, by position (whatever the counts say); nil: none.
    func rowBefore(_ position: Int) throws -> Int64? {
        try db.cached(fixed: "SELECT id FROM rows WHERE section_id = ?1 AND position < ?2 ORDER BY position DESC LIMIT 1")
            .bind([.integer(sectionID), .int(position)]).first { $0.int64(0) }
    }

    /// The id of the row just after `position` in the section, by position; nil: none.
    func rowAfter(_ position: Int) throws -> Int64? {
        try db.cached(fixed: "SELECT id FROM rows WHERE section_id = ?1 AND position > ?2 ORDER BY position LIMIT 1")
            .bind([.integer(sectionID), .int(position)]).first { $0.int64(0) }
    }

    /// The block holding `position` and its page (the page holding the block's start), with their bases.
    func extents(holding position: Int) throws -> (block: RowExtent, page: RowExtent)? {
        guard
            let block = try db.cached(
                """
                SELECT b.start, b.row_count, (SELECT min(start) FROM row_blocks WHERE section_id = ?1 AND start > b.start)
                FROM row_blocks AS b WHERE b.section_id = ?1 AND b.start <= ?2 ORDER BY b.start DESC LIMIT 1
                """
            ).bind([.integer(sectionID), .int(position)]).first({ (start: $0.int(0), count: $0.int(1), end: $0.isNull(2) ? nil : $0.int(2)) }),
            let page = try db.cached(
                """
                SELECT p.start, p.row_count, (SELECT min(start) FROM row_pages WHERE section_id = ?1 AND start > p.start),
                       (SELECT coalesce(sum(row_count), 0) FROM row_pages WHERE section_id = ?1 AND start < p.start)
                FROM row_pages AS p WHERE p.section_id = ?1 AND p.start <= ?2 ORDER BY p.start DESC LIMIT 1
                """
            ).bind([.integer(sectionID), .int(block.start)]).first({
                RowExtent(start: $0.int(0), end: $0.isNull(2) ? nil : $0.int(2), count: $0.int(1), base: $0.int(3))
            })
        else { return nil }
        let before =
            try db.cached(PageSplitSQL.rowsOfBlocks)
            .bind([.integer(sectionID), .int(page.start), .int(block.start)]).first { $0.int(0) } ?? 0
        return (RowExtent(start: block.start, end: block.end, count: block.count, base: page.base &+ before), page)
    }

    /// The place of the row with `id` by the addressing rule — its index, block and page — with its
    /// section's index and id, in one statement (index look-ups and sums over the section's pages, one
    /// page's blocks and one block's rows). Nil when there is no such row, or when no index leads to it:
    /// below the first block, or past as many rows as its block counts (a hand edit made without the
    /// counting triggers), where an index would name the next block's first row.
    static func place(ofRow id: Int64, _ db: Connection) throws -> (sectionIndex: Int, sectionID: Int64, place: RowPlace)? {
        if !db.isWriting {
            // A read: the row first (which starts the read transaction's reading), then the memo.
            guard
                let row = try db.cached("SELECT s.position, s.id, r.position FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE r.id = ?1")
                    .bind([.integer(id)]).first({ (sectionIndex: $0.int(0), sectionID: $0.int64(1), position: $0.int(2)) })
            else { return nil }
            if let memo = try ExtentMemo.current(db), let place = try RowBlocks(sectionID: row.sectionID, db: db).place(ofRow: id, at: row.position, memo) {
                return (row.sectionIndex, row.sectionID, place)
            }
        }
        return try db.cached(
            """
            SELECT s.position, s.id, r.position, b.start, b.row_count, p.start, p.row_count,
                   (SELECT min(start) FROM row_blocks WHERE section_id = s.id AND start > b.start),
                   (SELECT min(start) FROM row_pages WHERE section_id = s.id AND start > p.start),
                   (SELECT coalesce(sum(row_count), 0) FROM row_pages WHERE section_id = s.id AND start < p.start),
                   (SELECT coalesce(sum(row_count), 0) FROM row_blocks WHERE section_id = s.id AND start >= p.start AND start < b.start),
                   (SELECT count(*) FROM rows WHERE section_id = s.id AND position >= b.start AND position < r.position)
            FROM rows AS r
            JOIN sections AS s ON s.id = r.section_id
            JOIN row_blocks AS b ON b.section_id = s.id
                AND b.start = (SELECT max(start) FROM row_blocks WHERE section_id = s.id AND start <= r.position)
            JOIN row_pages AS p ON p.section_id = s.id
                AND p.start = (SELECT max(start) FROM row_pages WHERE section_id = s.id AND start <= b.start)
            WHERE r.id = ?1
            """
        ).bind([.integer(id)]).first { row -> (Int, Int64, RowPlace)? in
            guard row.int(11) < row.int(4) else { return nil }
            func optional(_ column: Int32) -> Int? { row.isNull(column) ? nil : row.int(column) }
            let pageBase = row.int(9)
            let blockBase = pageBase &+ row.int(10)
            let page = RowExtent(start: row.int(5), end: optional(8), count: row.int(6), base: pageBase)
            let block = RowExtent(start: row.int(3), end: optional(7), count: row.int(4), base: blockBase)
            return (row.int(0), row.int64(1), RowPlace(id: id, position: row.int(2), index: blockBase &+ row.int(11), block: block, page: page))
        } ?? nil
    }

    /// ``place(ofRow:_:)`` for the row `id` at `position` of this section, by the same rule, from the
    /// memo's pages, blocks and the block's positions. Nil where the memo's pages and
    /// blocks do not lead to a block (a hand edit left the row outside them): the caller asks SQLite.
    private func place(ofRow id: Int64, at position: Int, _ memo: ExtentMemo) throws -> RowPlace? {
        let pages = try memo.pages(ofSection: sectionID, db)
        // The block with the greatest start at or below the position lies in the page with the greatest
        // start at or below it, when that page has a block there; that page is the block's page.
        guard let pageOffset = pages.lastIndex(where: { $0.start <= position }) else { return nil }
        let pageBase = pages[..<pageOffset].reduce(0) { $0 &+ $1.count }
        let page = RowExtent(
            start: pages[pageOffset].start, end: pageOffset + 1 < pages.count ? pages[pageOffset + 1].start : nil, count: pages[pageOffset].count,
            base: pageBase)
        let blocks = try memo.blocks(ofSection: sectionID, page: page, db)
        guard let blockOffset = blocks.lastIndex(where: { $0.start <= position }) else { return nil }
        let blockBase = pageBase &+ blocks[..<blockOffset].reduce(0) { $0 &+ $1.count }
        let end: Int?
        if blockOffset + 1 < blocks.count {
            end = blocks[blockOffset + 1].start
        } else if page.end == nil {
            end = nil
        } else {
            end =
                try db.cached("SELECT min(start) FROM row_blocks WHERE section_id = ?1 AND start > ?2")
                .bind([.integer(sectionID), .int(blocks[blockOffset].start)]).first { $0.isNull(0) ? nil : $0.int(0) } ?? nil
        }
        let block = RowExtent(start: blocks[blockOffset].start, end: end, count: blocks[blockOffset].count, base: blockBase)
        // Past as many rows as its block counts, no index leads to it (see place(ofRow:_:)).
        let positions = try memo.positions(ofBlock: block.start, count: block.count, section: sectionID, db)
        guard let before = ExtentMemo.offset(of: position, in: positions) else { return nil }
        return RowPlace(id: id, position: position, index: blockBase &+ before, block: block, page: page)
    }

    // MARK: Counting

    /// Adds `delta` to the counts of the block starting at `block`, the page starting at `page` and the section.
    func count(_ delta: Int, block: Int, page: Int) throws {
        guard delta != 0 else { return }
        try add(blocks: [block: delta], pages: [page: delta], total: delta)
    }

    /// Adds `blocks[start]` to each block's count, `pages[start]` to each page's and `total` to the section's.
    func add(blocks: [Int: Int], pages: [Int: Int], total: Int) throws {
        let block = try db.cached("UPDATE row_blocks SET row_count = row_count + ?3 WHERE section_id = ?1 AND start = ?2")
        for (start, delta) in blocks { try block.bind([.integer(sectionID), .int(start), .int(delta)]).run() }
        let page = try db.cached("UPDATE row_pages SET row_count = row_count + ?3 WHERE section_id = ?1 AND start = ?2")
        for (start, delta) in pages { try page.bind([.integer(sectionID), .int(start), .int(delta)]).run() }
        try db.cached("UPDATE sections SET row_count = row_count + ?2 WHERE id = ?1").bind([.integer(sectionID), .int(total)]).run()
    }

    /// Gives a new section its first block and page (``RowSpacing/sectionStart``, holding every position).
    static func createFirstExtents(ofSection id: Int64, _ db: Connection) throws {
        try db.cached("INSERT INTO row_blocks (section_id, start, row_count) VALUES (?1, ?2, 0)")
            .bind([.integer(id), .int(RowSpacing.sectionStart)]).run()
        try db.cached("INSERT INTO row_pages (section_id, start, row_count) VALUES (?1, ?2, 0)")
            .bind([.integer(id), .int(RowSpacing.sectionStart)]).run()
    }

    // MARK: Splitting and merging

    /// The rows of `block` in order.
    func rows(of block: RowExtent) throws -> [(id: Int64, position: Int)] {
        try db.cached("SELECT id, position FROM rows WHERE section_id = ?1 AND position >= ?2 AND position < ?3 ORDER BY position")
            .bind([.integer(sectionID), .int(block.start), .int(block.end ?? Int.max)]).map { ($0.int64(0), $0.int(1)) }
    }

    /// Cuts the block starting at `start` (with `positions`, its rows' positions in order) into blocks of
    /// `sizes.blockFill` rows (two halves when it is just over capacity), or at the row offsets `cuts`,
    /// then splits its page the same way if it now has too many blocks. Rows do not move.
    func split(blockAt start: Int, positions: [Int], cuttingAt cuts: [Int]? = nil, page: Int, sizes: RowBlockSizes) throws {
        guard positions.count > 1 else { return }
        try writeBlocks(from: start, positions: positions, cuttingAt: cuts ?? Self.evenCuts(positions.count, fill: sizes.blockFill))
        try splitPageIfFull(at: page, sizes: sizes)
    }

    /// Cuts the block starting at `start`, now holding `count` rows, in two at row offset `cut`, whose
    /// row is at `position` (the second block's start), then splits `page` if it now has too many
    /// blocks. Rows do not move, and only the two blocks' rows are written.
    func split(blockAt start: Int, count: Int, cuttingAt cut: Int, startingAt position: Int, page: RowExtent, sizes: RowBlockSizes) throws {
        try db.cached("UPDATE row_blocks SET row_count = ?3 WHERE section_id = ?1 AND start = ?2")
            .bind([.integer(sectionID), .int(start), .int(cut)]).run()
        try db.cached("INSERT INTO row_blocks (section_id, start, row_count) VALUES (?1, ?2, ?3)")
            .bind([.integer(sectionID), .int(position), .int(count &- cut)]).run()
        try splitPageIfFull(at: page.start, end: page.end, sizes: sizes)
    }

    /// Gives the block starting at `start` the rows at `positions` before the first of `cuts` (row
    /// offsets, increasing) and adds a block at each cut, holding the rows up to the next.
    private func writeBlocks(from start: Int, positions: [Int], cuttingAt cuts: [Int]) throws {
        let bounds = [0] + cuts + [positions.count]
        try db.cached("UPDATE row_blocks SET row_count = ?3 WHERE section_id = ?1 AND start = ?2")
            .bind([.integer(sectionID), .int(start), .int(bounds[1] - bounds[0])]).run()
        let insert = try db.cached("INSERT INTO row_blocks (section_id, start, row_count) VALUES (?1, ?2, ?3)")
        for piece in 1..<(bounds.count - 1) {
            try insert.bind([.integer(sectionID), .int(positions[bounds[piece]]), .int(bounds[piece + 1] - bounds[piece])]).run()
        }
    }

    /// Where to cut `count` items into pieces of about `fill` (at least two pieces): the offsets of
    /// every piece but the first.
    static func evenCuts(_ count: Int, fill: Int) -> [Int] {
        let pieces = max(2, (count + fill - 1) / fill)
        let size = count / pieces
        let extra = count % pieces
        var offsets: [Int] = []
        var offset = 0
        for piece in 0..<(pieces - 1) {
            offset += size + (piece < extra ? 1 : 0)
            offsets.append(offset)
        }
        return offsets
    }

    /// Splits the page starting at `start` into pages of `sizes.pageFill` blocks when it has more than
    /// `sizes.pageCapacity`.
    func splitPageIfFull(at start: Int, sizes: RowBlockSizes) throws {
        let end =
            try db.cached("SELECT min(start) FROM row_pages WHERE section_id = ?1 AND start > ?2")
            .bind([.integer(sectionID), .int(start)]).first { $0.isNull(0) ? nil : $0.int(0) } ?? nil
        try splitPageIfFull(at: start, end: end, sizes: sizes)
    }

    /// ``splitPageIfFull(at:sizes:)`` for the page from `start` to `end` (nil: the section's last):
    /// its blocks are counted first. A page one block over capacity (a block split filled it) is cut
    /// in two by SQLite alone — the second page's first block found by an offset, each page's rows
    /// summed — so that the insert that splits it reads two numbers rather than every block of the
    /// page (a hot spot splits a page every few thousand inserts); one with more (a bulk insert's
    /// blocks) is read and cut into pages of ``RowBlockSizes/pageFill`` blocks.
    func splitPageIfFull(at start: Int, end: Int?, sizes: RowBlockSizes) throws {
        let members =
            try db.cached("SELECT count(*) FROM row_blocks WHERE section_id = ?1 AND start >= ?2 AND start < ?3")
            .bind([.integer(sectionID), .int(start), .int(end ?? Int.max)]).first { $0.int(0) } ?? 0
        guard members > sizes.pageCapacity else { return }
        let cuts = Self.evenCuts(members, fill: sizes.pageFill)
        if cuts.count == 1, let cut = cuts.first {
            try splitPage(at: start, end: end, cuttingAt: cut)
            return
        }
        let blocks = try blockCounts(from: start, upTo: end)
        guard blocks.count > sizes.pageCapacity else { return }
        let bounds = [0] + Self.evenCuts(blocks.count, fill: sizes.pageFill) + [blocks.count]
        let insert = try db.cached(PageSplitSQL.insertPage)
        for piece in 0..<(bounds.count - 1) {
            let members = blocks[bounds[piece]..<bounds[piece + 1]]
            let rows = members.reduce(0) { $0 &+ $1.count }
            if piece == 0 {
                try db.cached(PageSplitSQL.setPageCount).bind([.integer(sectionID), .int(start), .int(rows)]).run()
            } else if let first = members.first {
                try insert.bind([.integer(sectionID), .int(first.start), .int(rows)]).run()
            }
        }
    }

    /// Cuts the page from `start` to `end` in two at its `cut`-th block (`0 < cut` < its blocks): the
    /// first page keeps the rows of the blocks before it, a new page starting at that block's start
    /// gets the rest.
    private func splitPage(at start: Int, end: Int?, cuttingAt cut: Int) throws {
        guard
            let second = try db.cached(PageSplitSQL.blockAtOffset).bind([.integer(sectionID), .int(start), .int(end ?? Int.max), .int(cut)])
                .first({ $0.int(0) })
        else { return }
        let sum = try db.cached(PageSplitSQL.rowsOfBlocks)
        let first = try sum.bind([.integer(sectionID), .int(start), .int(second)]).first { $0.int(0) } ?? 0
        let rest = try sum.bind([.integer(sectionID), .int(second), .int(end ?? Int.max)]).first { $0.int(0) } ?? 0
        try db.cached(PageSplitSQL.setPageCount).bind([.integer(sectionID), .int(start), .int(first)]).run()
        try db.cached(PageSplitSQL.insertPage).bind([.integer(sectionID), .int(second), .int(rest)]).run()
    }

    /// The statements of a page's split in two (``splitPage(at:end:cuttingAt:)``), shared with the
    /// other writes of page counts.
    enum PageSplitSQL {
        static let blockAtOffset = "SELECT start FROM row_blocks WHERE section_id = ?1 AND start >= ?2 AND start < ?3 ORDER BY start LIMIT 1 OFFSET ?4"
        static let rowsOfBlocks = "SELECT coalesce(sum(row_count), 0) FROM row_blocks WHERE section_id = ?1 AND start >= ?2 AND start < ?3"
        static let setPageCount = "UPDATE row_pages SET row_count = ?3 WHERE section_id = ?1 AND start = ?2"
        static let insertPage = "INSERT INTO row_pages (section_id, start, row_count) VALUES (?1, ?2, ?3)"
    }

    /// Merges the block now holding `position` with a neighbour in its page when it has fallen below
    /// `sizes.blockMinimum` rows and the two fit in one block filled to three quarters; an empty page
    /// (other than the first) goes too. Then merges its page with a neighbour page the same way. Rows do
    /// not move: a merge removes one block's (or page's) start.
    func mergeIfSmall(holding position: Int, sizes: RowBlockSizes) throws {
        guard let (block, page) = try extents(holding: position), block.count < sizes.blockMinimum else { return }
        let pageEnd = page.end ?? Int.max
        let next = try db.cached("SELECT start, row_count FROM row_blocks WHERE section_id = ?1 AND start > ?2 AND start < ?3 ORDER BY start LIMIT 1")
            .bind([.integer(sectionID), .int(block.start), .int(pageEnd)]).first { (start: $0.int(0), count: $0.int(1)) }
        let previous = try db.cached(
            "SELECT start, row_count FROM row_blocks WHERE section_id = ?1 AND start >= ?2 AND start < ?3 ORDER BY start DESC LIMIT 1"
        ).bind([.integer(sectionID), .int(page.start), .int(block.start)]).first { (start: $0.int(0), count: $0.int(1)) }
        if let next, block.count &+ next.count <= sizes.blockFill {
            try removeBlockStart(next.start, joining: block.start, count: block.count &+ next.count)
        } else if let previous, previous.count &+ block.count <= sizes.blockFill {
            try removeBlockStart(block.start, joining: previous.start, count: previous.count &+ block.count)
        } else if block.count == 0, next == nil, previous == nil, page.start != RowSpacing.sectionStart {
            // The page's only block, empty: the page and the block go; their range joins the ones before.
            try db.cached("DELETE FROM row_pages WHERE section_id = ?1 AND start = ?2").bind([.integer(sectionID), .int(page.start)]).run()
            try db.cached("DELETE FROM row_blocks WHERE section_id = ?1 AND start = ?2").bind([.integer(sectionID), .int(block.start)]).run()
            return
        }
        try mergePageIfSmall(startingAt: page.start, sizes: sizes)
    }

    private func removeBlockStart(_ start: Int, joining kept: Int, count: Int) throws {
        try db.cached("DELETE FROM row_blocks WHERE section_id = ?1 AND start = ?2").bind([.integer(sectionID), .int(start)]).run()
        try db.cached("UPDATE row_blocks SET row_count = ?3 WHERE section_id = ?1 AND start = ?2")
            .bind([.integer(sectionID), .int(kept), .int(count)]).run()
    }

    private func mergePageIfSmall(startingAt start: Int, sizes: RowBlockSizes) throws {
        let pages = try db.cached(
            """
            SELECT start, row_count FROM (SELECT start, row_count FROM row_pages WHERE section_id = ?1 AND start < ?2 ORDER BY start DESC LIMIT 1)
            UNION ALL SELECT start, row_count FROM row_pages WHERE section_id = ?1 AND start = ?2
            UNION ALL SELECT * FROM (SELECT start, row_count FROM row_pages WHERE section_id = ?1 AND start > ?2 ORDER BY start LIMIT 2)
            """
        ).bind([.integer(sectionID), .int(start)]).map { (start: $0.int(0), count: $0.int(1)) }
        guard let here = pages.firstIndex(where: { $0.start == start }) else { return }
        func blockCount(_ index: Int) throws -> Int {
            let end = index + 1 < pages.count ? pages[index + 1].start : Int.max
            return try db.cached("SELECT count(*) FROM row_blocks WHERE section_id = ?1 AND start >= ?2 AND start < ?3")
                .bind([.integer(sectionID), .int(pages[index].start), .int(end)]).first { $0.int(0) } ?? 0
        }
        let own = try blockCount(here)
        guard own < sizes.pageMinimum else { return }
        if here + 1 < pages.count, own + (try blockCount(here + 1)) <= sizes.pageFill {
            try removePageStart(pages[here + 1].start, joining: start, count: pages[here].count &+ pages[here + 1].count)
        } else if here > 0, (try blockCount(here - 1)) + own <= sizes.pageFill {
            try removePageStart(start, joining: pages[here - 1].start, count: pages[here - 1].count &+ pages[here].count)
        }
    }

    private func removePageStart(_ start: Int, joining kept: Int, count: Int) throws {
        try db.cached("DELETE FROM row_pages WHERE section_id = ?1 AND start = ?2").bind([.integer(sectionID), .int(start)]).run()
        try db.cached(PageSplitSQL.setPageCount)
            .bind([.integer(sectionID), .int(kept), .int(count)]).run()
    }

    // MARK: Rebuilding

    /// Replaces the blocks of `page` (whose rows now sit at `positions`, in order) with blocks of
    /// `sizes.blockFill` rows, then splits the page if it has too many. The page's count stays.
    func recutBlocks(of page: RowExtent, positions: [Int], sizes: RowBlockSizes) throws {
        try db.cached("DELETE FROM row_blocks WHERE section_id = ?1 AND start > ?2 AND start < ?3")
            .bind([.integer(sectionID), .int(page.start), .int(page.end ?? Int.max)]).run()
        let cuts = positions.count > sizes.blockFill ? Self.evenCuts(positions.count, fill: sizes.blockFill) : []
        try writeBlocks(from: page.start, positions: positions, cuttingAt: cuts)
        try splitPageIfFull(at: page.start, sizes: sizes)
    }

    /// Gives the section's rows fresh positions (``RowSpacing/gap`` apart, in their order, leaving `room`
    /// free positions before the row at `index`) and cuts blocks and pages afresh. Rewrites every row of the section: the last resort when a block's range has no room, and
    /// what `repair` does to a section whose blocks were damaged by hand. Returns the free positions.
    func rebuild(sizes: RowBlockSizes, leavingRoom room: Int = 0, before index: Int = 0) throws -> [Int] {
        let rows = try db.cached("SELECT id, position FROM rows WHERE section_id = ?1 ORDER BY position, id").bind([.integer(sectionID)])
            .map { (id: $0.int64(0), position: $0.int(1)) }
        let total = rows.count + room
        guard total <= RowSpacing.limit / RowSpacing.gap - 2 else {
            throw ListStoreError.corrupt("section #\(sectionID) cannot hold \(total) rows")
        }
        // Every row waits under the section's negated id (no section has one; the foreign key is checked
        // at the commit), then comes back at its new position: UNIQUE holds at every step, whatever
        // positions a hand edit left.
        try db.run("PRAGMA defer_foreign_keys = ON")
        try db.cached("UPDATE rows SET section_id = -section_id WHERE section_id = ?1").bind([.integer(sectionID)]).run()
        let place = try db.cached("UPDATE rows SET section_id = ?2, position = ?3 WHERE id = ?1")
        let ids = rows.map(\.id)
        var positions: [Int] = []
        positions.reserveCapacity(ids.count)
        var free: [Int] = []
        for slot in 0..<total {
            let position = slot * RowSpacing.gap
            if slot >= index && slot < index + room {
                free.append(position)
            } else {
                positions.append(position)
            }
        }
        for (id, position) in zip(ids, positions) { try place.bind([.integer(id), .integer(sectionID), .int(position)]).run() }
        try cutAfresh(slots: total, position: { $0 * RowSpacing.gap }, counted: { $0 < index || $0 >= index + room }, sizes: sizes)
        return free
    }

    /// Replaces the section's blocks and pages with blocks of `sizes.blockFill` slots and pages of
    /// `sizes.pageFill` blocks, over `slots` slots in order: slot k at `position(k)`, counted when
    /// `counted(k)` (the others are about to be inserted, and counted then). Sets the section's count.
    func cutAfresh(slots: Int, position: (Int) -> Int, counted: (Int) -> Bool, sizes: RowBlockSizes) throws {
        try db.cached("DELETE FROM row_blocks WHERE section_id = ?1").bind([.integer(sectionID)]).run()
        try db.cached("DELETE FROM row_pages WHERE section_id = ?1").bind([.integer(sectionID)]).run()
        let insertBlock = try db.cached("INSERT INTO row_blocks (section_id, start, row_count) VALUES (?1, ?2, ?3)")
        let insertPage = try db.cached(PageSplitSQL.insertPage)
        var blocks: [(start: Int, count: Int)] = []
        var slot = 0
        repeat {
            let end = min(slots, slot + sizes.blockFill)
            blocks.append((slot == 0 ? RowSpacing.sectionStart : position(slot), (slot..<end).reduce(0) { $0 + (counted($1) ? 1 : 0) }))
            slot = end
        } while slot < slots
        var first = 0
        repeat {
            let members = blocks[first..<min(blocks.count, first + sizes.pageFill)]
            if let start = members.first?.start {
                try insertPage.bind([.integer(sectionID), .int(start), .int(members.reduce(0) { $0 + $1.count })]).run()
            }
            first += sizes.pageFill
        } while first < blocks.count
        for block in blocks { try insertBlock.bind([.integer(sectionID), .int(block.start), .int(block.count)]).run() }
        try db.cached("UPDATE sections SET row_count = ?2 WHERE id = ?1").bind([.integer(sectionID), .int(blocks.reduce(0) { $0 + $1.count })]).run()
    }

    /// Blocks and pages for a section whose `count` rows were written at `k * RowSpacing.gap` (an import).
    func cutEvenlySpaced(count: Int, sizes: RowBlockSizes) throws {
        try cutAfresh(slots: count, position: { $0 * RowSpacing.gap }, counted: { _ in true }, sizes: sizes)
    }
}
