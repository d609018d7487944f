import SQLiteLayer

/// One broken invariant found by ``ListStore/checkInvariants()``.
public struct IntegrityProblem: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in one line.
    public let description: String
    /// A problem with this description.
    public init(_ description: String) { self.description = description }
}

extension ListStore {
    /// Checks what must hold after every operation: SQLite's own integrity and foreign-key checks,
    /// section positions `0..m-1`, row positions `0..n-1` in every section, and valid JSON payloads. Reads the whole file;
    /// returns every problem found (empty when the store is sound).
    public func checkInvariants() throws -> [IntegrityProblem] {
        try read { db in
            var problems: [IntegrityProblem] = []
            try db.cached("PRAGMA integrity_check").bind([]).forEachRow { row in
                let message = row.text(0)
                if message != "ok" { problems.append(IntegrityProblem("integrity_check: \(message)")) }
            }
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
                SELECT section_id, count(*), min(position), max(position) FROM rows GROUP BY section_id
                HAVING min(position) <> 0 OR max(position) <> count(*) - 1
                """).bind([]).forEachRow { row in
                problems.append(IntegrityProblem("rows of section #\(row.int64(0)) have positions \(row.int(2))…\(row.int(3)) for \(row.int(1)) rows, not 0…\(row.int(1) - 1)"))
            }
            try db.cached("SELECT id FROM rows WHERE payload IS NOT NULL AND NOT json_valid(payload)").bind([]).forEachRow { row in
                problems.append(IntegrityProblem("row #\(row.int64(0)) has a payload that is not valid JSON"))
            }
            return problems
        }
    }
}
