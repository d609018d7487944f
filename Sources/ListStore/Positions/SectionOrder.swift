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

    /// Throws `sectionOrderDamaged` (or `sectionCountDamaged`, when only the recorded count is wrong)
    /// unless the section positions are exactly `0..<count`, where `count` is the list's recorded section
    /// count (`lists.section_count`, schema 12), and returns the count.
    /// Every edit that names sections by index runs it first: on a damaged order an index would not name
    /// the section a table view shows at that index. Three index look-ups, however many sections there are.
    @discardableResult
    static func verify(_ db: Connection, list: Int64) throws -> Int {
        let state = try SectionOrderState.read(db, list: list)
        guard state.isDamaged else { return state.count }
        throw try damage(db, list: list, recorded: state.count)
    }

    /// ``verify(_:list:)`` for an edit, which must not write to a list whose order is damaged in a way
    /// those three look-ups cannot see: a gap below the highest position with a recorded count one too
    /// high (a section deleted by `REPLACE`, which fires no delete trigger, or with triggers off). Only
    /// another connection can have done that — ListStore's own writes keep the count — so the edit counts
    /// the list's sections once after another connection committed (`PRAGMA data_version` changed), and
    /// not again until one does: a pass over the sections' position index after others' commits, three
    /// look-ups otherwise. `db` is the writer connection, inside its write transaction.
    @discardableResult
    static func verifyForEdit(_ db: Connection, list: Int64) throws -> Int {
        let count = try verify(db, list: list)
        let version = try db.cached("PRAGMA data_version").bind([]).first { $0.int64(0) } ?? 0
        let counted: CountedOrders
        if let known = db.writeMemo as? CountedOrders, known.dataVersion == version {
            counted = known
        } else {
            counted = CountedOrders(dataVersion: version)
            db.writeMemo = counted
        }
        guard !counted.lists.contains(list) else { return count }
        let found = try SectionOrderState.counted(db, list: list)
        if found.isDamaged || found.count != count { throw try damage(db, list: list, recorded: count) }
        counted.lists.insert(list)
        return count
    }

    /// The lists whose sections an edit on the writer connection counted (``verifyForEdit(_:list:)``)
    /// while no other connection had committed since `dataVersion`.
    final class CountedOrders {
        let dataVersion: Int64
        var lists: Set<Int64> = []
        init(dataVersion: Int64) { self.dataVersion = dataVersion }
    }

    /// The error that refuses a list whose section order failed a check: the sections are counted to say
    /// which is wrong, the positions (`sectionOrderDamaged`) or only the recorded count (`sectionCountDamaged`).
    static func damage(_ db: Connection, list: Int64, recorded: Int? = nil) throws -> ListStoreError {
        let counted = try SectionOrderState.counted(db, list: list)
        if counted.isDamaged {
            return ListStoreError.sectionOrderDamaged(sectionCount: counted.count, lowest: counted.low, highest: counted.high)
        }
        return ListStoreError.sectionCountDamaged(recorded: try recorded ?? SectionOrderState.recordedCount(db, list: list) ?? counted.count, counted: counted.count)
    }

    /// Throws `sectionOrderDamaged` unless `positions` — every section's position, in order, as a read
    /// that hands out the list's sections in an array read them — are `0, 1, 2, …`: a gap below the
    /// highest position, which ``verify(_:list:)`` cannot see when the recorded count is one too high too
    /// (a section deleted by `REPLACE`, which fires no delete trigger, or with triggers off), would make
    /// an array position other than the index edits act on.
    static func expectArrayPositions(_ positions: [Int]) throws {
        for (offset, position) in positions.enumerated() where position != offset {
            throw ListStoreError.sectionOrderDamaged(sectionCount: positions.count, lowest: positions.first ?? 0, highest: positions.last ?? -1)
        }
    }

    /// Adds `delta` to the list's recorded section count: every insert (`+1`), delete (`-1` each) and move
    /// between lists (both lists) of a section runs it, since ListStore's connections run without the
    /// triggers that count other programs' writes.
    static func recordCountChange(by delta: Int, _ db: Connection, list: Int64) throws {
        guard delta != 0 else { return }
        try db.cached("UPDATE lists SET section_count = section_count + ?2 WHERE id = ?1").bind([.integer(list), .int(delta)]).run()
    }

    /// Records the number of sections the list has now, counting them: after an import or a repair, which
    /// write many sections at once.
    static func recount(_ db: Connection, list: Int64) throws {
        try db.run("UPDATE lists SET section_count = (SELECT count(*) FROM sections WHERE list_id = ?1) WHERE id = ?1", [.integer(list)])
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

/// One list's section order as it is in the file (check, repair and every edit read it the same way):
/// its section count, recorded (``read(_:list:)``) or counted (``counted(_:list:)``), and the lowest and
/// highest of its sections' positions.
struct SectionOrderState {
    let count: Int
    let low: Int
    let high: Int

    /// True unless the positions are exactly `0..<count` (none when `count` is 0). Positions are unique
    /// per list, so the lowest being 0 and the highest `count - 1` means exactly that.
    var isDamaged: Bool { count > 0 ? low != 0 || high != count - 1 : count < 0 || high != -1 }

    /// The order with the list's recorded count (three index look-ups), as edits and reads check it. A
    /// list without a row in `lists` (deleted by hand with foreign keys off) has its sections counted.
    static func read(_ db: Connection, list: Int64) throws -> SectionOrderState {
        let memo = try ExtentMemo.current(db)
        if let known = memo?.orders[list] { return known }
        let recordedOrder: Statement
        do {
            recordedOrder = try db.cached(
                """
                SELECT (SELECT section_count FROM lists WHERE id = ?1),
                       coalesce((SELECT min(position) FROM sections WHERE list_id = ?1), 0),
                       coalesce((SELECT max(position) FROM sections WHERE list_id = ?1), -1)
                """)
        } catch let error as SQLiteError where error.message.hasPrefix("no such column") {
            return try counted(db, list: list)  // a file of schema 8 to 11, read as it is (`inspect`)
        }
        let found = try recordedOrder.bind([.integer(list)]).first { row in (recorded: row.isNull(0) ? nil : row.int(0), low: row.int(1), high: row.int(2)) }
        guard let found, let recorded = found.recorded else { return try counted(db, list: list) }
        let state = SectionOrderState(count: recorded, low: found.low, high: found.high)
        // Once this statement has read, the stamp describes the state it read (the first statement of
        // a read transaction has no stamp before it).
        ExtentMemo.record(db) { $0.orders[list] = state }
        return state
    }

    /// The order with the list's sections counted (a scan of the list's entries in the position index):
    /// for `check` and `repair`, which must not take the recorded count on trust.
    static func counted(_ db: Connection, list: Int64) throws -> SectionOrderState {
        try db.cached("SELECT count(*), coalesce(min(position), 0), coalesce(max(position), -1) FROM sections WHERE list_id = ?1").bind([.integer(list)])
            .first { SectionOrderState(count: $0.int(0), low: $0.int(1), high: $0.int(2)) } ?? SectionOrderState(count: 0, low: 0, high: -1)
    }

    /// The list's recorded section count, or nil when the list has no row in `lists`.
    static func recordedCount(_ db: Connection, list: Int64) throws -> Int? {
        try db.cached("SELECT section_count FROM lists WHERE id = ?1").bind([.integer(list)]).first { $0.int(0) }
    }
}
