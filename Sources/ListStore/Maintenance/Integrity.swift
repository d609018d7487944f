import SQLiteLayer

/// One broken invariant found by ``ListStore/checkInvariants()``.
public struct IntegrityProblem: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in one line.
    public let description: String
    /// Whether ``ListStore/repair()`` fixes it. Problems it does not fix carry a ``remedy``.
    public let isRepairable: Bool
    /// For a problem ``ListStore/repair()`` leaves alone (it would have to change or drop data): the
    /// SQL that fixes it, or what else to do.
    public let remedy: String?

    /// A problem with this description; `remedy` for one that repair leaves alone.
    package init(_ description: String, isRepairable: Bool = true, remedy: String? = nil) {
        self.description = description
        self.isRepairable = isRepairable
        self.remedy = remedy
    }
}

/// One section whose rows, blocks and pages are not as ListStore keeps them: a recorded count that is
/// not its number of rows, blocks or pages that do not count the rows they hold (a hand edit of
/// `row_blocks` or `row_pages`, or of positions with the triggers off), or positions outside the range
/// ListStore writes.
struct RowPositionState {
    let sectionID: Int64
    let index: Int
    let storedCount: Int
    let count: Int
    let countsAgree: Bool
    let pageTotal: Int
    let positionsInRange: Bool

    var problems: [IntegrityProblem] {
        var problems: [IntegrityProblem] = []
        if count != storedCount {
            problems.append(IntegrityProblem("section \(index) records \(storedCount) rows but has \(count)"))
        }
        if !countsAgree || pageTotal != count {
            problems.append(
                IntegrityProblem("the blocks and pages of section \(index) do not count its \(count) rows (row_blocks, row_pages): indexes may skip or repeat"))
        }
        if !positionsInRange {
            problems.append(IntegrityProblem("rows of section \(index) have positions outside ±2^61, beyond what ListStore writes"))
        }
        return problems
    }

    /// Every damaged section, in display order (one pass over the rows, blocks and pages).
    static func damaged(_ db: Connection) throws -> [RowPositionState] {
        let sections = try db.cached("SELECT id, position, row_count FROM sections ORDER BY position").bind([])
            .map { (id: $0.int64(0), index: $0.int(1), count: $0.int(2)) }
        var damaged: [RowPositionState] = []
        for section in sections {
            var indexer = try RowIndexer(sectionID: section.id, db)
            var count = 0
            var inRange = true
            var dense = true
            try db.cached("SELECT position FROM rows WHERE section_id = ?1 ORDER BY position").bind([.integer(section.id)]).forEachRow { row in
                let position = row.int(0)
                if position <= -RowSpacing.limit || position >= RowSpacing.limit { inRange = false }
                if indexer.index(ofRowAt: position) != count { dense = false }
                count += 1
            }
            indexer.finish()
            let state = RowPositionState(
                sectionID: section.id, index: section.index, storedCount: section.count, count: count,
                countsAgree: indexer.countsAgree && dense, pageTotal: indexer.total, positionsInRange: inRange)
            if !state.problems.isEmpty { damaged.append(state) }
        }
        return damaged
    }
}

/// Blocks and pages whose section no longer exists (deleted by hand with foreign keys off).
enum OrphanExtents {
    static func count(_ db: Connection) throws -> Int {
        try db.scalarInt(
            """
            SELECT (SELECT count(*) FROM row_blocks WHERE section_id NOT IN (SELECT id FROM sections))
                 + (SELECT count(*) FROM row_pages WHERE section_id NOT IN (SELECT id FROM sections))
            """) ?? 0
    }

    static func problems(_ db: Connection) throws -> [IntegrityProblem] {
        let count = try count(db)
        return count == 0 ? [] : [IntegrityProblem("\(count) row blocks or pages belong to sections that do not exist (deleted outside ListStore)")]
    }

    static func remove(_ db: Connection) throws -> [String] {
        let count = try count(db)
        guard count > 0 else { return [] }
        try db.run("DELETE FROM row_blocks WHERE section_id NOT IN (SELECT id FROM sections)")
        try db.run("DELETE FROM row_pages WHERE section_id NOT IN (SELECT id FROM sections)")
        return ["removed \(count) row blocks or pages of sections that no longer exist"]
    }
}
