import SQLiteLayer

/// What a read connection remembers of the counts between read transactions: the section order's
/// state, each section's row and checks, its pages, the blocks of the pages it visited and the rows'
/// positions in the blocks it visited — so that reading a page of rows or a row's index path does not
/// step through a hundred pages and blocks each time, and can often be one statement (``MemoReads``).
///
/// It is used only while the connection's ``Connection/ReadStamp`` is the one it was filled under:
/// then nothing was committed since, by any connection, so every count it holds is what the file holds
/// now. Any commit (another connection's, a hand edit's, this connection's own) changes the stamp and
/// the memo starts again empty. It is filled only inside a read transaction that has started reading
/// and written nothing; edits never use it: inside a write transaction there is no stamp.
final class ExtentMemo {
    /// Per list id: its section order as ``SectionOrderState/read(_:list:)`` read it.
    var orders: [Int64: SectionOrderState] = [:]
    /// Per list id and section index: the section there, as ``SectionRows/locate(section:list:_:sizes:)`` read it.
    var sections: [SectionKey: (id: Int64, count: Int)] = [:]
    /// Lists found present (a handle on a list deleted since reads nothing).
    var lists: Set<Int64> = []
    /// Per section id: its recorded count when ``SectionRows/verify(_:)`` passed.
    var verified: [Int64: Int] = [:]
    /// Per section id: its pages in order.
    var pages: [Int64: [(start: Int, count: Int)]] = [:]
    /// Per section id and page start: the blocks of that page in order.
    var blocks: [PageKey: [(start: Int, count: Int)]] = [:]
    /// Per section id and block start: the positions of the first rows at or after the block's start, as
    /// many as the block counts, in order (``positions(ofBlock:count:section:_:)``).
    var positions: [PageKey: [Int]] = [:]

    /// A section or a block by its list or section and its index or start.
    struct PageKey: Hashable {
        let section: Int64
        let page: Int
    }
    typealias SectionKey = PageKey

    /// The stamp the memo was filled under.
    let stamp: Connection.ReadStamp

    init(stamp: Connection.ReadStamp) { self.stamp = stamp }

    /// Pages whose blocks, and blocks whose rows' positions, are kept at most (about 100 KB and 256 KB):
    /// a reader visiting more starts again.
    static let blockListLimit = 256

    /// How many times a state is asked for before the memo fills: reading every page and a page's
    /// blocks costs more than one look-up through SQLite's index, so the first reads after a commit
    /// (one page read, or three index paths) go to SQLite directly, and a state read again is remembered.
    static let directRequests = 3

    /// Requests for the memo under its stamp so far.
    private var requests = 0

    /// The memo for the state `db` reads now, or nil when there is none to use: outside a read
    /// transaction, inside a write, or for the first ``directRequests`` requests under a new state.
    static func current(_ db: Connection) throws -> ExtentMemo? {
        guard let stamp = db.readStamp() else { return nil }
        let memo: ExtentMemo
        if let known = db.memo?.value as? ExtentMemo, known.stamp == stamp {
            memo = known
        } else {
            memo = ExtentMemo(stamp: stamp)
            db.memo = (stamp, memo)
        }
        memo.requests += 1
        return memo.requests > directRequests ? memo : nil
    }

    /// The memo `db` holds, whatever state it was filled under — for a read that checks ``stamp``
    /// against the state its own statement reads — or nil while it is not yet filled.
    static func filled(_ db: Connection) -> ExtentMemo? {
        guard let memo = db.memo?.value as? ExtentMemo, memo.requests > directRequests else { return nil }
        return memo
    }

    /// The memo if it is filled and describes the state `db` reads now (without counting a request).
    static func matching(_ db: Connection) -> ExtentMemo? {
        guard let memo = filled(db), db.readStamp() == memo.stamp else { return nil }
        return memo
    }

    /// Runs `record` on the memo if it describes the state `db` reads now (without counting a request):
    /// for what a statement just read inside a read transaction.
    static func record(_ db: Connection, _ record: (ExtentMemo) -> Void) {
        guard let stamp = db.readStamp(), let memo = db.memo?.value as? ExtentMemo, memo.stamp == stamp else { return }
        record(memo)
    }

    /// The pages of section `id` (read once per state).
    func pages(ofSection id: Int64, _ db: Connection) throws -> [(start: Int, count: Int)] {
        if let known = pages[id] { return known }
        let read = try RowBlocks(sectionID: id, db: db).pageCounts()
        pages[id] = read
        return read
    }

    /// The blocks of `page` of section `id` (read once per state).
    func blocks(ofSection id: Int64, page: RowExtent, _ db: Connection) throws -> [(start: Int, count: Int)] {
        let key = PageKey(section: id, page: page.start)
        if let known = blocks[key] { return known }
        let read = try RowBlocks(sectionID: id, db: db).blockCounts(from: page.start, upTo: page.end)
        if blocks.count >= Self.blockListLimit { blocks.removeAll(keepingCapacity: true) }
        blocks[key] = read
        return read
    }

    /// The positions of the first `count` rows of section `id` at or after `start` (the block starting
    /// there counts `count`), in order (read once per state): a row of the block at a position among them
    /// has as many rows before it in its block as come before it here; one at a position past them, no
    /// index leads to (``RowBlocks/place(ofRow:_:)``).
    func positions(ofBlock start: Int, count: Int, section id: Int64, _ db: Connection) throws -> [Int] {
        let key = PageKey(section: id, page: start)
        if let known = positions[key] { return known }
        let read = try db.cached("SELECT position FROM rows WHERE section_id = ?1 AND position >= ?2 ORDER BY position LIMIT ?3")
            .bind([.integer(id), .int(start), .int(max(count, 0))]).map { $0.int(0) }
        if positions.count >= Self.blockListLimit { positions.removeAll(keepingCapacity: true) }
        positions[key] = read
        return read
    }

    /// The index of the row at `position` of section `id` by the addressing rule, from what the memo
    /// holds only (no statement); nil when it lacks a page, block or positions needed, or when no index
    /// leads to the row (the caller then asks SQLite, which says why).
    func index(ofRowAt position: Int, section id: Int64) -> Int? {
        guard let pages = pages[id], let pageOffset = Self.lastOffset(in: pages, atOrBelow: position) else { return nil }
        guard let blocks = blocks[PageKey(section: id, page: pages[pageOffset].start)],
            let blockOffset = Self.lastOffset(in: blocks, atOrBelow: position),
            let positions = positions[PageKey(section: id, page: blocks[blockOffset].start)],
            let before = Self.offset(of: position, in: positions)
        else { return nil }
        var base = 0
        for page in pages[..<pageOffset] { base = base &+ page.count }
        for block in blocks[..<blockOffset] { base = base &+ block.count }
        return base &+ before
    }

    /// The offset of the last extent starting at or below `position` (binary search: starts increase).
    static func lastOffset(in extents: [(start: Int, count: Int)], atOrBelow position: Int) -> Int? {
        var low = 0
        var high = extents.count
        while low < high {
            let middle = low + (high - low) / 2
            if extents[middle].start <= position { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }

    /// The offset of `position` in the increasing `positions`, or nil when it is not there.
    static func offset(of position: Int, in positions: [Int]) -> Int? {
        var low = 0
        var high = positions.count
        while low < high {
            let middle = low + (high - low) / 2
            if positions[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low < positions.count && positions[low] == position ? low : nil
    }
}
