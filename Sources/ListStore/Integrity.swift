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
            try db.cached("SELECT count(*), coalesce(min(position), 0), coalesce(max(position), -1) FROM sections").bind([]).forEachRow { row in
                let (count, low, high) = (row.int(0), row.int(1), row.int(2))
                if count > 0 && (low != 0 || high != count - 1) {
                    problems.append(IntegrityProblem("section positions are not 0…\(count - 1): they run from \(low) to \(high)"))
                }
            }
            try db.cached("""
                SELECT s.position, s.row_base, s.row_count, count(r.id), min(r.position), max(r.position)
                FROM sections AS s LEFT JOIN rows AS r ON r.section_id = s.id
                GROUP BY s.id
                HAVING count(r.id) <> s.row_count OR (count(r.id) > 0 AND (min(r.position) <> s.row_base OR max(r.position) <> s.row_base + count(r.id) - 1))
                """).bind([]).forEachRow { row in
                let (section, base, storedCount, count) = (row.int(0), row.int(1), row.int(2), row.int(3))
                if count != storedCount {
                    problems.append(IntegrityProblem("section \(section) records \(storedCount) rows but has \(count)"))
                }
                if count > 0 {
                    let (low, high) = (row.int(4), row.int(5))
                    if low != base || high != base + count - 1 {
                        problems.append(IntegrityProblem("rows of section \(section) have positions \(low - base)…\(high - base) (relative to its base) for \(count) rows, not 0…\(count - 1)"))
                    }
                }
            }
            try db.cached("SELECT id FROM rows WHERE payload IS NOT NULL AND NOT json_valid(payload)").bind([]).forEachRow { row in
                problems.append(IntegrityProblem("row #\(row.int64(0)) has a payload that is not valid JSON"))
            }
            return problems
        }
    }
}
