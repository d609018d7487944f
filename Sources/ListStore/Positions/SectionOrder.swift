import SQLiteLayer

/// The order of one list's sections: dense positions `0..m-1` in `sections.position` (per list, schema 8).
///
/// SQLite checks UNIQUE row by row and visits the rows of an UPDATE in no promised order, so a shift
/// first moves the affected sections to negative positions (never used otherwise) and then flips them
/// to their final ones: correct whatever the visiting order, two statements per shift.
enum SectionOrder {
    /// The number of sections as an index sees it: one past the highest position (one index look-up).
    /// Equal to the number of sections when the order is sound, which ``verify(_:)`` checks.
    static func count(_ db: Connection, list: Int64) throws -> Int {
        let highest = try db.scalarInt("SELECT max(position) FROM sections WHERE list_id = ?1", [.integer(list)]) ?? -1
        return highest == Int.max ? Int.max : max(highest + 1, 0)
    }

    /// Throws `sectionOrderDamaged` unless the section positions are exactly `0..<count`, and returns
    /// the count. Every edit that names sections by index runs it first: on a damaged order an index
    /// would not name the section a table view shows at that index. Reads the sections' position index once.
    @discardableResult
    static func verify(_ db: Connection, list: Int64) throws -> Int {
        let state = try SectionOrderState.read(db, list: list)
        if state.isDamaged {
            throw ListStoreError.sectionOrderDamaged(sectionCount: state.count, lowest: state.low, highest: state.high)
        }
        return state.count
    }

    /// Adds `delta` to the position of every section with `lower <= position < upper`.
    static func shift(from lower: Int, upTo upper: Int = Int.max, by delta: Int, _ db: Connection, list: Int64) throws {
        guard lower < upper, delta != 0 else { return }
        try db.run(
            "UPDATE sections SET position = -1 - (position + ?3) WHERE list_id = ?4 AND position >= ?1 AND position < ?2",
            [.int(lower), .int(upper), .int(delta), .integer(list)])
        try flipNegatives(db, list: list)
    }

    /// Closes the gaps left by deleted sections: every section at or after `firstGap` gets the next
    /// dense position, keeping its order.
    static func closeGaps(from firstGap: Int, _ db: Connection, list: Int64) throws {
        try db.run(
            """
            UPDATE sections SET position = -1 - ranked.new_position
            FROM (SELECT id, ?1 - 1 + row_number() OVER (ORDER BY position) AS new_position
                  FROM sections WHERE list_id = ?2 AND position >= ?1) AS ranked
            WHERE sections.id = ranked.id
            """, [.int(firstGap), .integer(list)])
        try flipNegatives(db, list: list)
    }

    /// Moves the section at `from` to `to`, shifting the sections between.
    static func move(_ id: Int64, from: Int, to: Int, count: Int, _ db: Connection, list: Int64) throws {
        guard from != to else { return }
        try setPosition(of: id, to: count, db)  // park it just past the end, a free position
        if from < to {
            try shift(from: from + 1, upTo: to + 1, by: -1, db, list: list)
        } else {
            try shift(from: to, upTo: from, by: 1, db, list: list)
        }
        try setPosition(of: id, to: to, db)
    }

    private static func setPosition(of id: Int64, to position: Int, _ db: Connection) throws {
        try db.run("UPDATE sections SET position = ?2 WHERE id = ?1", [.integer(id), .int(position)])
    }

    private static func flipNegatives(_ db: Connection, list: Int64) throws {
        try db.run("UPDATE sections SET position = -1 - position WHERE list_id = ?1 AND position < 0", [.integer(list)])
    }
}

/// One list's section order as it is in the file (check, repair and every edit read it the same way).
struct SectionOrderState {
    let count: Int
    let low: Int
    let high: Int

    /// True unless the positions are exactly `0..<count`.
    var isDamaged: Bool { count > 0 && (low != 0 || high != count - 1) }

    static func read(_ db: Connection, list: Int64) throws -> SectionOrderState {
        let memo = try ExtentMemo.current(db)
        if let known = memo?.orders[list] { return known }
        let state =
            try db.cached("SELECT count(*), coalesce(min(position), 0), coalesce(max(position), -1) FROM sections WHERE list_id = ?1").bind([.integer(list)])
            .first { SectionOrderState(count: $0.int(0), low: $0.int(1), high: $0.int(2)) } ?? SectionOrderState(count: 0, low: 0, high: -1)
        // Once this statement has read, the stamp describes the state it read (the first statement of
        // a read transaction has no stamp before it).
        ExtentMemo.record(db) { $0.orders[list] = state }
        return state
    }
}
