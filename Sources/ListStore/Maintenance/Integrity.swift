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
    public init(_ description: String, isRepairable: Bool = true, remedy: String? = nil) {
        self.description = description
        self.isRepairable = isRepairable
        self.remedy = remedy
    }
}

/// One section whose row positions, count or base are not what ListStore keeps them at.
struct RowPositionState {
    let sectionID: Int64
    let index: Int
    let base: Int
    let storedCount: Int
    let count: Int
    let low: Int
    let high: Int

    /// Positions that are not exactly `base ..< base + count`.
    var hasGap: Bool {
        count > 0 && (low != base || Addressing.rowIndex(position: high, base: base) != count - 1)
    }
    var baseOutOfRange: Bool { base <= -SectionRows.positionLimit || base >= SectionRows.positionLimit }

    var problems: [IntegrityProblem] {
        var problems: [IntegrityProblem] = []
        if count != storedCount {
            problems.append(IntegrityProblem("section \(index) records \(storedCount) rows but has \(count)"))
        }
        if hasGap {
            let first = Addressing.rowIndex(position: low, base: base)
            let last = Addressing.rowIndex(position: high, base: base)
            problems.append(IntegrityProblem("rows of section \(index) have positions \(first)…\(last) (relative to its base) for \(count) rows, not 0…\(count - 1)"))
        }
        if baseOutOfRange {
            problems.append(IntegrityProblem("section \(index) has row_base \(base), outside ±\(SectionRows.positionLimit)"))
        }
        return problems
    }

    /// Every damaged section, in display order (one pass over the rows).
    static func damaged(_ db: Connection) throws -> [RowPositionState] {
        try db.cached(
            """
            SELECT s.id, s.position, s.row_base, s.row_count, count(r.id), min(r.position), max(r.position)
            FROM sections AS s LEFT JOIN rows AS r ON r.section_id = s.id
            GROUP BY s.id
            HAVING count(r.id) <> s.row_count OR s.row_base >= ?1 OR s.row_base <= -?1
                OR (count(r.id) > 0 AND (min(r.position) <> s.row_base OR max(r.position) - s.row_base <> count(r.id) - 1))
            ORDER BY s.position
            """
        ).bind([.int(SectionRows.positionLimit)]).map { row in
            RowPositionState(
                sectionID: row.int64(0), index: row.int(1), base: row.int(2), storedCount: row.int(3),
                count: row.int(4), low: row.int(5), high: row.int(6))
        }
    }
}
