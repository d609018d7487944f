import SQLiteLayer

/// One broken invariant found by ``ListStore/checkInvariants()``.
public struct IntegrityProblem: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in one line.
    public let description: String
    /// A problem with this description.
    public init(_ description: String) { self.description = description }
}

extension ListStore {
    /// SQLite's `integrity_check` lines (["ok"] when sound). On a badly damaged file SQLite reports some
    /// problems and then fails; the failure becomes the last line.
    static func integrityCheck(_ db: Connection) throws -> [String] {
        var lines: [String] = []
        do {
            try db.cached("PRAGMA integrity_check").bind([]).forEachRow { lines.append($0.text(0)) }
        } catch let error as SQLiteError where error.isCorruptOrNotADatabase {
            lines.append(error.message)
        }
        return lines
    }

    /// Checks what must hold after every operation: SQLite's own integrity and foreign-key checks,
    /// section positions `0..m-1`, row indexes `0..n-1` and the recorded row count in every section,
    /// and valid JSON payloads. Reads the whole file;
    /// returns every problem found (empty when the store is sound).
    public func checkInvariants() throws -> [IntegrityProblem] {
        try read { db in
            var problems: [IntegrityProblem] = []
            for difference in try Schema.differences(in: db, version: try Migrator.version(of: db)) {
                problems.append(IntegrityProblem("schema: \(difference)"))
            }
            for message in try Self.integrityCheck(db) where message != "ok" {
                problems.append(IntegrityProblem("integrity_check: \(message)"))
            }
            // A damaged file cannot be trusted to answer the finer questions below.
            if !problems.isEmpty { return problems }
            try db.cached("PRAGMA foreign_key_check").bind([]).forEachRow { row in
                problems.append(IntegrityProblem("row #\(row.int64(1)) in table \(row.text(0)) refers to a missing \(row.text(2)) entry"))
            }
            let order = try SectionOrderState.read(db)
            if order.isDamaged {
                problems.append(IntegrityProblem("section positions are not 0…\(order.count - 1): they run from \(order.low) to \(order.high)"))
            }
            for section in try RowPositionState.damaged(db) {
                if section.count != section.storedCount {
                    problems.append(IntegrityProblem("section \(section.index) records \(section.storedCount) rows but has \(section.count)"))
                }
                if section.hasGap {
                    problems.append(IntegrityProblem("rows of section \(section.index) have positions \(section.low - section.base)…\(section.high - section.base) (relative to its base) for \(section.count) rows, not 0…\(section.count - 1)"))
                }
                if section.baseOutOfRange {
                    problems.append(IntegrityProblem("section \(section.index) has row_base \(section.base), outside ±\(SectionRows.positionLimit)"))
                }
            }
            try db.cached("SELECT id FROM rows WHERE payload IS NOT NULL AND NOT json_valid(payload)").bind([]).forEachRow { row in
                problems.append(IntegrityProblem("row #\(row.int64(0)) has a payload that is not valid JSON"))
            }
            return problems
        }
    }
}

/// The section order as it is in the file (check and repair read it the same way).
struct SectionOrderState {
    let count: Int
    let low: Int
    let high: Int

    /// True unless the positions are exactly `0..<count`.
    var isDamaged: Bool { count > 0 && (low != 0 || high != count - 1) }

    static func read(_ db: Connection) throws -> SectionOrderState {
        try db.cached("SELECT count(*), coalesce(min(position), 0), coalesce(max(position), -1) FROM sections").bind([])
            .first { SectionOrderState(count: $0.int(0), low: $0.int(1), high: $0.int(2)) } ?? SectionOrderState(count: 0, low: 0, high: -1)
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
    var hasGap: Bool { count > 0 && (low != base || high != base + count - 1) }
    var baseOutOfRange: Bool { abs(base) >= SectionRows.positionLimit }

    /// Every damaged section, in display order (one pass over the rows).
    static func damaged(_ db: Connection) throws -> [RowPositionState] {
        try db.cached("""
            SELECT s.id, s.position, s.row_base, s.row_count, count(r.id), min(r.position), max(r.position)
            FROM sections AS s LEFT JOIN rows AS r ON r.section_id = s.id
            GROUP BY s.id
            HAVING count(r.id) <> s.row_count OR abs(s.row_base) >= ?1
                OR (count(r.id) > 0 AND (min(r.position) <> s.row_base OR max(r.position) <> s.row_base + count(r.id) - 1))
            ORDER BY s.position
            """).bind([.int(SectionRows.positionLimit)]).map { row in
            RowPositionState(sectionID: row.int64(0), index: row.int(1), base: row.int(2), storedCount: row.int(3),
                             count: row.int(4), low: row.int(5), high: row.int(6))
        }
    }
}
