import SQLiteLayer

/// A page of rows whose positions the read connection's ``ExtentMemo`` already knows, read by the one
/// statement the physical limit runs — the rows between two positions, in order — without reading any
/// row's position back (``MemoReads/rows(_:list:checksList:section:range:)`` does, to check where
/// block boundaries fall; for a page of 50 rows that column is about a tenth of the statement's time).
///
/// What the memo knows of each block the page crosses says which positions the rows at `lower..<upper`
/// have, by the addressing rule (``Addressing``): the block's first rows at or after its start, as
/// many as it counts, all before the next block starts. The statement then confirms that it reads the
/// memo's very state (``Connection/readStamp()`` on its first row), and that no other row lies between
/// the first and the last of those positions: it asks for one row more than the page and must get
/// exactly the page.
enum KnownPositions {
    /// The rows at `lower..<upper` of section `section` (its pages `pages`; the row at `lower` in
    /// `block`, on the page at `pageOffset`), or nil when the memo does not know every position they
    /// need, disagrees with itself, or the statement finds another state or another row among them.
    static func rows(
        _ db: Connection, _ memo: ExtentMemo, section: Int64, pages: [(start: Int, count: Int)], pageOffset: Int, block: RowExtent,
        lower: Int, upper: Int
    ) throws -> [ListRow]? {
        guard let (first, last) = bounds(memo, section: section, pages: pages, pageOffset: pageOffset, block: block, lower: lower, count: upper - lower)
        else { return nil }
        var rows: [ListRow] = []
        rows.reserveCapacity(upper - lower + 1)
        var sameState = false
        let read = try statement(db).reset()
        try read.bind(.integer(section), at: 1)
        try read.bind(.int(first), at: 2)
        try read.bind(.int(last), at: 3)
        try read.bind(.int(upper - lower + 1), at: 4)
        try read.forEachRowWhile { statement in
            if !sameState {
                guard db.readStamp() == memo.stamp else { return false }
                sameState = true
            }
            rows.append(ListRow(id: RowID(rawValue: statement.int64(0)), title: statement.text(1), payload: statement.optionalText(2)))
            return true
        }
        return sameState && rows.count == upper - lower ? rows : nil
    }

    /// The statement of ``rows(_:_:section:pages:pageOffset:block:lower:upper:)``.
    private static func statement(_ db: Connection) throws -> Statement {
        try db.cached(fixed: "SELECT id, title, payload FROM rows WHERE section_id = ?1 AND position >= ?2 AND position <= ?3 ORDER BY position LIMIT ?4")
    }

    /// The positions of the first and the last of the `count` rows from index `lower` of `block`, from
    /// the memo alone (see the type's summary), or nil.
    static func bounds(
        _ memo: ExtentMemo, section: Int64, pages: [(start: Int, count: Int)], pageOffset: Int, block: RowExtent, lower: Int, count: Int
    ) -> (first: Int, last: Int)? {
        guard count > 0, var cursor = BlockCursor(memo, section: section, pages: pages, pageOffset: pageOffset, start: block.start) else { return nil }
        var skip = lower &- block.base
        var needed = count
        var first: Int?
        var last = 0
        while needed > 0 {
            let (start, blockCount) = cursor.current
            guard skip >= 0, let positions = memo.positions[ExtentMemo.PageKey(section: section, page: start)], positions.count == blockCount
            else { return nil }
            if let next = cursor.nextStart, let end = positions.last, end >= next { return nil }
            if skip < positions.count {
                let taken = min(needed, positions.count - skip)
                if first == nil { first = positions[skip] }
                last = positions[skip + taken - 1]
                needed -= taken
                skip = 0
            } else {
                skip -= positions.count
            }
            if needed > 0 { guard cursor.advance() else { return nil } }
        }
        return first.map { ($0, last) }
    }

    /// Fills the memo with what ``bounds(_:section:pages:pageOffset:block:lower:count:)`` needs for the
    /// `count` rows from index `lower` of `block`: the blocks of the pages they fall in and the positions
    /// of the blocks they cross. Called while a statement of `db` holds the memo's state (its stamp
    /// checked), so that every statement here reads that state; a failure only leaves the memo unfilled.
    /// The statement the next read will run is prepared here too, so that read pays only for running it.
    static func learn(
        _ db: Connection, _ memo: ExtentMemo, section: Int64, pages: [(start: Int, count: Int)], pageOffset: Int, block: RowExtent, lower: Int,
        count: Int
    ) {
        guard (try? statement(db)) != nil else { return }
        var remaining = count &+ (lower &- block.base)
        var pageOffset = pageOffset
        var start = block.start
        var blockCount = block.count
        var blocks = memo.blocks[ExtentMemo.PageKey(section: section, page: pages[pageOffset].start)] ?? []
        var offset = ExtentMemo.lastOffset(in: blocks, atOrBelow: start) ?? 0
        while remaining > 0 {
            guard (try? memo.positions(ofBlock: start, count: blockCount, section: section, db)) != nil else { return }
            remaining -= blockCount
            guard remaining > 0 else { return }
            offset += 1
            if offset >= blocks.count {
                pageOffset += 1
                guard pageOffset < pages.count else { return }
                let page = RowExtent(
                    start: pages[pageOffset].start, end: pageOffset + 1 < pages.count ? pages[pageOffset + 1].start : nil, count: pages[pageOffset].count,
                    base: 0)
                guard let read = try? memo.blocks(ofSection: section, page: page, db), !read.isEmpty else { return }
                blocks = read
                offset = 0
            }
            (start, blockCount) = (blocks[offset].start, blocks[offset].count)
        }
    }

    /// The blocks of a section in order, across its pages, as far as the memo knows them.
    private struct BlockCursor {
        let memo: ExtentMemo
        let section: Int64
        let pages: [(start: Int, count: Int)]
        var pageOffset: Int
        var blocks: [(start: Int, count: Int)]
        var offset: Int

        init?(_ memo: ExtentMemo, section: Int64, pages: [(start: Int, count: Int)], pageOffset: Int, start: Int) {
            guard pages.indices.contains(pageOffset), let blocks = memo.blocks[ExtentMemo.PageKey(section: section, page: pages[pageOffset].start)],
                let offset = ExtentMemo.lastOffset(in: blocks, atOrBelow: start), blocks[offset].start == start
            else { return nil }
            (self.memo, self.section, self.pages, self.pageOffset, self.blocks, self.offset) = (memo, section, pages, pageOffset, blocks, offset)
        }

        /// The block at the cursor.
        var current: (start: Int, count: Int) { blocks[offset] }

        /// The start of the block after it (the next page's start after a page's last block); nil at
        /// the section's end.
        var nextStart: Int? {
            if offset + 1 < blocks.count { return blocks[offset + 1].start }
            return pageOffset + 1 < pages.count ? pages[pageOffset + 1].start : nil
        }

        /// Moves to the next block; false at the section's end or where the memo lacks the next page's blocks.
        mutating func advance() -> Bool {
            if offset + 1 < blocks.count {
                offset += 1
                return true
            }
            guard pageOffset + 1 < pages.count, let next = memo.blocks[ExtentMemo.PageKey(section: section, page: pages[pageOffset + 1].start)],
                !next.isEmpty
            else { return false }
            (pageOffset, blocks, offset) = (pageOffset + 1, next, 0)
            return true
        }
    }
}
