import SQLiteLayer

/// A page of rows and a row's index path answered with one statement outside any transaction: what
/// the section order's and the section's checks and the counts say comes from the read connection's
/// ``ExtentMemo``, and the one statement that reads the rows (or the row) confirms, once it has read
/// its first row, that it reads the very state the memo was filled under (``Connection/readStamp()``:
/// a statement in autocommit is its own consistent snapshot, and holds it until it is reset). Then the
/// answer is the one a read transaction would give, by the same rule (``Addressing``).
///
/// Each returns nil whenever it cannot be sure — the memo not filled or lacking a count, another state
/// read, a check that fails, nothing to read — and the caller reads in a transaction instead, which
/// also says what is wrong (a damaged section, an index out of range).
enum MemoReads {
    /// The rows at `range` of section `index` of list `list`, as ``ListReader/rows(inSection:range:)``
    /// returns them, or nil (see the type's summary). `checksList`: the list must be known to exist
    /// (a handle on a list other than the default one).
    static func rows(_ db: Connection, list: Int64, checksList: Bool, section index: Int, range: Range<Int>) throws -> [ListRow]? {
        guard let memo = ExtentMemo.filled(db), !checksList || memo.lists.contains(list),
            let order = memo.orders[list], !order.isDamaged,
            let section = memo.sections[ExtentMemo.SectionKey(section: list, page: index)], memo.verified[section.id] == section.count,
            let pages = memo.pages[section.id]
        else { return nil }
        let lower = max(range.lowerBound, 0)
        let upper = min(range.upperBound, section.count)
        guard lower < upper, let (pageOffset, page) = Self.memoPage(holding: lower, pages, total: section.count),
            let blocks = memo.blocks[ExtentMemo.PageKey(section: section.id, page: page.start)],
            let block = RowBlocks.ascend(blocks, from: page.base, to: lower, end: page.end)
        else { return nil }
        if let rows = try KnownPositions.rows(db, memo, section: section.id, pages: pages, pageOffset: pageOffset, block: block, lower: lower, upper: upper) {
            return rows
        }
        let (from, skip) = firstRow(lower, of: block, positions: memo.positions[ExtentMemo.PageKey(section: section.id, page: block.start)])
        var rows: [ListRow] = []
        var positions: [Int] = []
        rows.reserveCapacity(upper - lower)
        positions.reserveCapacity(upper - lower)
        var sameState = false
        let read = try db.cached(fixed: "SELECT id, title, payload, position FROM rows WHERE section_id = ?1 AND position >= ?2 ORDER BY position LIMIT ?3 OFFSET ?4")
            .reset()
        try read.bind(.integer(section.id), at: 1)
        try read.bind(.int(from), at: 2)
        try read.bind(.int(upper - lower), at: 3)
        try read.bind(.int(skip), at: 4)
        try read.forEachRowWhile { statement in
            if !sameState {
                guard db.readStamp() == memo.stamp else { return false }
                sameState = true
                // What the next read of these rows needs to be served without their positions.
                KnownPositions.learn(db, memo, section: section.id, pages: pages, pageOffset: pageOffset, block: block, lower: lower, count: upper - lower)
            }
            rows.append(ListRow(id: RowID(rawValue: statement.int64(0)), title: statement.text(1), payload: statement.optionalText(2)))
            positions.append(statement.int(3))
            return true
        }
        guard sameState, rows.count == upper - lower, let first = positions.first, let last = positions.last, block.holds(first) else { return nil }
        // The blocks starting among the rows read, from the pages they fall in.
        var boundaries: [(start: Int, count: Int)] = []
        for offset in pageOffset..<pages.count where pages[offset].start <= last {
            guard let pageBlocks = memo.blocks[ExtentMemo.PageKey(section: section.id, page: pages[offset].start)] else { return nil }
            boundaries += pageBlocks.lazy.filter { $0.start > first && $0.start <= last }
        }
        return rowsAreAtTheirIndexes(positions, from: lower, in: block, boundaries: boundaries[...]) ? rows : nil
    }

    /// Where a read of the rows from index `lower` of `block` starts: the row at `lower` is the
    /// `lower - base`-th row of the block's range — at that offset among `positions` (the block's, from
    /// ``ExtentMemo/positions(ofBlock:count:section:_:)``) when they are known and reach it, so that
    /// the statement starts at the row itself; otherwise that many rows after the block's start.
    static func firstRow(_ lower: Int, of block: RowExtent, positions: [Int]?) -> (position: Int, skip: Int) {
        let offset = lower &- block.base
        if let positions, offset >= 0, offset < positions.count { return (positions[offset], 0) }
        return (block.start, offset)
    }

    /// Whether rows read in order from index `lower` of `block` (at `positions`) are the rows at the
    /// following indexes: every block they cross — `boundaries`, the blocks starting after the first row
    /// and at or before the last, in order — holds the rows it counts.
    static func rowsAreAtTheirIndexes(
        _ positions: [Int], from lower: Int, in block: RowExtent, boundaries: ArraySlice<(start: Int, count: Int)>
    ) -> Bool {
        var boundaries = boundaries
        var expectedInBlock = block.count - (lower - block.base)
        var seen = 0
        for position in positions {
            while let next = boundaries.first, next.start <= position {
                guard seen == expectedInBlock else { return false }
                expectedInBlock = next.count
                seen = 0
                boundaries = boundaries.dropFirst()
            }
            seen += 1
        }
        return seen <= expectedInBlock
    }

    /// The index path of row `id` if it is in list `list` — nil inside when it is in another list, as
    /// ``ListReader/indexPath(of:)`` says — or nil (see the type's summary). Read in another state than
    /// the memo's (after a commit), it is found by the addressing rule (``RowBlocks/place(ofRow:_:)``)
    /// while the statement that read the row still holds that state: no transaction either (not for a
    /// list other than the default one, whose presence only a read transaction checks then).
    static func indexPath(of id: Int64, _ db: Connection, list: Int64, checksList: Bool) throws -> ListIndexPath?? {
        let memo = ExtentMemo.filled(db)
        if checksList && memo?.lists.contains(list) != true { return nil }
        var answer: ListIndexPath??
        let lookUp = try db.cached(fixed: "SELECT s.position, s.id, s.list_id, r.position FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE r.id = ?1")
            .reset()
        try lookUp.bind(.integer(id), at: 1)
        try lookUp.forEachRowWhile { row in
            let inList = row.int64(2) == list
            if let memo, db.readStamp() == memo.stamp {
                if let index = memo.index(ofRowAt: row.int(3), section: row.int64(1)) {
                    answer = .some(inList ? ListIndexPath(section: row.int(0), row: index) : nil)
                }
            } else if inList, !checksList, let found = try RowBlocks.place(ofRow: id, db) {
                answer = .some(ListIndexPath(section: found.sectionIndex, row: found.place.index))
            }
            return false
        }
        return answer
    }

    /// The page holding index `index` as ``RowBlocks/page(holding:total:)`` finds it (from the nearer
    /// end; `total` is the section's checked count), with its offset among `pages`.
    private static func memoPage(holding index: Int, _ pages: [(start: Int, count: Int)], total: Int) -> (Int, RowExtent)? {
        func found(_ offset: Int, base: Int) -> (Int, RowExtent) {
            (offset, RowExtent(start: pages[offset].start, end: offset + 1 < pages.count ? pages[offset + 1].start : nil, count: pages[offset].count, base: base))
        }
        if index < total / 2 {
            var base = 0
            for offset in pages.indices {
                if index < base &+ pages[offset].count { return found(offset, base: base) }
                base = base &+ pages[offset].count
            }
            return nil
        }
        var base = total
        for offset in pages.indices.reversed() {
            base = base &- pages[offset].count
            if index >= base { return found(offset, base: base) }
        }
        return nil
    }
}
