import SQLiteLayer

/// A table whose rows carry dense positions within a scope: `sections` (one scope, the whole table)
/// or `rows` (one scope per section). Holds the set-based SQL that keeps positions dense.
///
/// SQLite checks UNIQUE row by row and visits rows of an UPDATE in no promised order, so every shift
/// first moves the affected rows to negative positions (never used otherwise) and then flips them to
/// their final positions: correct whatever the visiting order, and two statements per shift.
struct OrderedTable: Sendable {
    let name: String
    /// `section_id = ?1` for rows; `?1 IS NULL` (always bound to NULL) for sections.
    private let scopeCondition: String

    static let sections = OrderedTable(name: "sections", scopeCondition: "?1 IS NULL")
    static let rows = OrderedTable(name: "rows", scopeCondition: "section_id = ?1")

    private func scopeValue(_ scope: Int64?) -> SQLiteValue { scope.map(SQLiteValue.integer) ?? .null }

    /// The number of entries in the scope. Positions are dense, so this is one index look-up.
    func count(in scope: Int64?, _ db: Connection) throws -> Int {
        try db.scalarInt("SELECT coalesce(max(position) + 1, 0) FROM \(name) WHERE \(scopeCondition)", [scopeValue(scope)]) ?? 0
    }

    /// The id of the entry at `position`, or nil.
    func id(at position: Int, in scope: Int64?, _ db: Connection) throws -> Int64? {
        try db.cached("SELECT id FROM \(name) WHERE \(scopeCondition) AND position = ?2")
            .bind([scopeValue(scope), .int(position)]).first { $0.int64(0) }
    }

    /// Adds `delta` to the position of every entry with `lower <= position < upper`.
    func shift(in scope: Int64?, from lower: Int, upTo upper: Int = Int.max, by delta: Int, _ db: Connection) throws {
        guard lower < upper, delta != 0 else { return }
        try db.run("UPDATE \(name) SET position = -1 - (position + ?4) WHERE \(scopeCondition) AND position >= ?2 AND position < ?3",
                   [scopeValue(scope), .int(lower), .int(upper), .int(delta)])
        try flipNegatives(in: scope, db)
    }

    /// Closes the gaps left by deletions: every entry at or after `firstGap` gets the next dense
    /// position, keeping its order. One ranked UPDATE plus the flip, whatever the number of gaps.
    func closeGaps(in scope: Int64?, from firstGap: Int, _ db: Connection) throws {
        try db.run("""
            UPDATE \(name) SET position = -1 - ranked.new_position
            FROM (SELECT id, ?2 - 1 + row_number() OVER (ORDER BY position) AS new_position
                  FROM \(name) WHERE \(scopeCondition) AND position >= ?2) AS ranked
            WHERE \(name).id = ranked.id
            """, [scopeValue(scope), .int(firstGap)])
        try flipNegatives(in: scope, db)
    }

    /// Moves the entry at `from` to `to` within one scope, shifting the entries between.
    func move(in scope: Int64?, from: Int, to: Int, count: Int, _ db: Connection) throws {
        guard from != to, let id = try id(at: from, in: scope, db) else { return }
        try setPosition(of: id, to: count, db)  // park it just past the end, a free position
        if from < to {
            try shift(in: scope, from: from + 1, upTo: to + 1, by: -1, db)
        } else {
            try shift(in: scope, from: to, upTo: from, by: 1, db)
        }
        try setPosition(of: id, to: to, db)
    }

    func setPosition(of id: Int64, to position: Int, _ db: Connection) throws {
        try db.run("UPDATE \(name) SET position = ?2 WHERE id = ?1", [.integer(id), .int(position)])
    }

    private func flipNegatives(in scope: Int64?, _ db: Connection) throws {
        try db.run("UPDATE \(name) SET position = -1 - position WHERE \(scopeCondition) AND position < 0", [scopeValue(scope)])
    }
}
