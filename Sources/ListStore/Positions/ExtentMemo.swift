import SQLiteLayer

/// What a read connection remembers of the counts between read transactions: the section order's
/// state, each section's pages and checks, and the blocks of the pages it visited — so that reading a
/// page of rows or a row's index path does not step through a hundred pages and blocks each time.
///
/// It is used only inside a read transaction that has started reading and written nothing, and only
/// while the connection's ``Connection/ReadStamp`` is the one it was filled under: then nothing was
/// committed since, by any connection, so every count it holds is what the file holds now. Any commit
/// (another connection's, a hand edit's, this connection's own) changes the stamp and the memo starts
/// again empty. Edits never use it: inside a write transaction there is no stamp.
final class ExtentMemo {
    /// Per list id: its section order as ``SectionOrderState/read(_:list:)`` read it.
    var orders: [Int64: SectionOrderState] = [:]
    /// Per section id: its recorded count when ``SectionRows/verify(_:)`` passed.
    var verified: [Int64: Int] = [:]
    /// Per section id: its pages in order.
    var pages: [Int64: [(start: Int, count: Int)]] = [:]
    /// Per section id and page start: the blocks of that page in order.
    var blocks: [PageKey: [(start: Int, count: Int)]] = [:]

    struct PageKey: Hashable {
        let section: Int64
        let page: Int
    }

    /// Pages whose blocks are kept at most (about 100 KB): a reader visiting more starts again.
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
        guard let stamp = try db.readStamp() else { return nil }
        let memo: ExtentMemo
        if let known = db.memo, known.stamp == stamp, let extents = known.value as? ExtentMemo {
            memo = extents
        } else {
            memo = ExtentMemo()
            db.memo = (stamp, memo)
        }
        memo.requests += 1
        return memo.requests > directRequests ? memo : nil
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
}
