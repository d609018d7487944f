import SQLiteLayer

/// The one rule that turns stored positions into index paths, shared by every read and every edit.
///
/// A section's index is its `sections.position`. A row's index is the number of rows counted in the
/// pages before its page, plus those counted in the blocks before its block within its page, plus the
/// rows before it in its block — where its block is the one with the greatest start at or below its
/// position, and a block's page the one with the greatest start at or below the block's start
/// (`Migrations/0007_sparse_positions.sql`). Edits find rows by descending through those counts
/// (``RowBlocks``), reads that visit rows in order assign indexes with the same counts (``RowIndexer``),
/// and the `list_rows` view computes the same: so the index path a read shows is the one an edit given
/// that path acts on, whatever a hand edit did to the counts.
enum Addressing {}

/// Index assignment for rows visited in position order (a scan, a snapshot, an export), by the
/// addressing rule: it reads the section's pages and blocks once, then needs nothing per row.
struct RowIndexer {
    private var blocks: [(start: Int, base: Int, count: Int)] = []
    private var current = -1
    private var seenInBlock = 0
    /// Whether every block held exactly the rows it counts, and the pages' counts are their blocks' sums:
    /// then the indexes handed out are exactly `0..<total`. Complete once every row was visited.
    private(set) var countsAgree = true
    /// The sum of the pages' counts: the rows the section has by the addressing rule.
    private(set) var total = 0

    init(sectionID: Int64, _ db: Connection) throws {
        let pages = try db.cached("SELECT start, row_count FROM row_pages WHERE section_id = ?1 ORDER BY start").bind([.integer(sectionID)])
            .map { (start: $0.int(0), count: $0.int(1)) }
        var pageIndex = -1
        var pageBase = 0
        var base = 0
        var pageSum = 0
        try db.cached("SELECT start, row_count FROM row_blocks WHERE section_id = ?1 ORDER BY start").bind([.integer(sectionID)]).forEachRow { row in
            let start = row.int(0)
            var enteredPage = false
            while pageIndex + 1 < pages.count && pages[pageIndex + 1].start <= start {
                if pageIndex >= 0 {
                    if pageSum != pages[pageIndex].count { countsAgree = false }
                    pageBase = pageBase &+ pages[pageIndex].count
                }
                pageIndex += 1
                pageSum = 0
                enteredPage = true
            }
            if enteredPage { base = pageBase }
            if pageIndex >= 0 && enteredPage && pages[pageIndex].start != start { countsAgree = false }
            blocks.append((start, base, row.int(1)))
            base = base &+ row.int(1)
            pageSum = pageSum &+ row.int(1)
        }
        if pageIndex >= 0 && pageSum != pages[pageIndex].count { countsAgree = false }
        if pageIndex + 1 != pages.count || pages.first?.start != RowSpacing.sectionStart || blocks.first?.start != RowSpacing.sectionStart {
            countsAgree = false
        }
        total = pages.reduce(0) { $0 &+ $1.count }
    }

    /// The index of the row at `position`; rows must come in increasing position. Nil for a row no
    /// index leads to: one below the first block (a hand edit left it outside every block), or one past
    /// as many rows as its block counts (an edit finds the next block's rows at those indexes).
    mutating func index(ofRowAt position: Int) -> Int? {
        while current + 1 < blocks.count && blocks[current + 1].start <= position {
            if current >= 0 && seenInBlock != blocks[current].count { countsAgree = false }
            current += 1
            seenInBlock = 0
        }
        guard current >= 0 else {
            countsAgree = false
            return nil
        }
        defer { seenInBlock += 1 }
        guard seenInBlock < blocks[current].count else {
            countsAgree = false
            return nil
        }
        return blocks[current].base &+ seenInBlock
    }

    /// Ends the visit: checks the blocks after the last row seen.
    mutating func finish() {
        if current >= 0 && seenInBlock != blocks[current].count { countsAgree = false }
        for block in blocks.dropFirst(max(current + 1, 0)) where block.count != 0 { countsAgree = false }
    }
}
