import SQLiteLayer

/// What hand edits can break about the lists of a file (schema 8), for `check` and `repair`: the
/// default list deleted, sections whose list was deleted (with foreign keys off, the `sqlite3` shell's
/// default), list positions that are not `0..<count`.
enum ListDamage {
    /// The default list's id (``ListStore/defaultListName`` when the file was made).
    static let defaultList: Int64 = 1
    /// The name repair gives a default list it has to make again.
    static let defaultName = "default"

    /// Every list id that has sections or is a list, in order: the lists whose section order check and repair look at.
    static func listIDs(_ db: Connection) throws -> [Int64] {
        try db.cached("SELECT id FROM lists UNION SELECT DISTINCT list_id FROM sections ORDER BY 1").bind([]).map { $0.int64(0) }
    }

    /// " of list NAME" for messages, or "" in a file with one list (the messages of before lists).
    static func inList(_ list: Int64, _ db: Connection) throws -> String {
        guard (try db.scalarInt("SELECT count(*) FROM lists") ?? 0) > 1 || list != defaultList else { return "" }
        return " of list \(ListStoreError.excerpt(try db.listName(list)))"
    }

    /// The list order when it is damaged (positions not exactly `0..<count`).
    static func damagedOrder(_ db: Connection) throws -> SectionOrderState? {
        let order = try db.cached("SELECT count(*), coalesce(min(position), 0), coalesce(max(position), -1) FROM lists").bind([])
            .first { SectionOrderState(count: $0.int(0), low: $0.int(1), high: $0.int(2)) }
        guard let order, order.isDamaged else { return nil }
        return order
    }

    /// A list whose recorded section count (`lists.section_count`, schema 12) is not the number of
    /// sections it has.
    struct WrongSectionCount {
        let list: Int64
        let recorded: Int
        let counted: Int
    }

    /// The lists whose recorded section count is wrong (counting every list's sections: one pass over the
    /// sections' position index).
    static func wrongSectionCounts(_ db: Connection) throws -> [WrongSectionCount] {
        try db.cached(
            """
            SELECT l.id, l.section_count, count(s.id) FROM lists AS l LEFT JOIN sections AS s ON s.list_id = l.id
            GROUP BY l.id HAVING l.section_count IS NOT count(s.id) ORDER BY l.id
            """
        ).bind([]).map { WrongSectionCount(list: $0.int64(0), recorded: $0.int(1), counted: $0.int(2)) }
    }

    static func problems(_ db: Connection) throws -> [IntegrityProblem] {
        var problems: [IntegrityProblem] = []
        if try db.scalarInt("SELECT count(*) FROM lists WHERE id = ?1", [.integer(defaultList)]) == 0 {
            problems.append(IntegrityProblem("the default list (lists.id = 1) was deleted outside ListStore"))
        }
        let orphans = try db.scalarInt("SELECT count(*) FROM sections WHERE list_id NOT IN (SELECT id FROM lists)") ?? 0
        if orphans > 0 {
            problems.append(IntegrityProblem("\(orphans == 1 ? "1 section belongs" : "\(orphans) sections belong") to a list that does not exist (deleted outside ListStore)"))
        }
        if let order = try damagedOrder(db) {
            problems.append(IntegrityProblem("list positions are not 0…\(order.count - 1): they run from \(order.low) to \(order.high)"))
        }
        return problems
    }

    /// Makes the default list again when it was deleted, and moves the sections of lists that no longer
    /// exist to the end of the default list, keeping their order (nothing is lost).
    static func repair(_ db: Connection) throws -> [String] {
        var fixes: [String] = []
        if try db.scalarInt("SELECT count(*) FROM lists WHERE id = ?1", [.integer(defaultList)]) == 0 {
            var name = defaultName
            var suffix = 2
            while try db.scalarInt("SELECT count(*) FROM lists WHERE name = ?1", [.text(name)]) != 0 {
                name = "\(defaultName) \(suffix)"
                suffix += 1
            }
            let position = (try db.scalarInt("SELECT max(position) FROM lists") ?? -1) + 1
            try db.run(
                "INSERT INTO lists (id, name, position, section_count) VALUES (?1, ?2, ?3, (SELECT count(*) FROM sections WHERE list_id = ?1))",
                [.integer(defaultList), .text(name), .int(position)])
            fixes.append("lists: the default list was deleted outside ListStore; made again as \(ListStoreError.excerpt(name))")
        }
        let orphans = try db.cached("SELECT id FROM sections WHERE list_id NOT IN (SELECT id FROM lists) ORDER BY list_id, position, id").bind([])
            .map { $0.int64(0) }
        guard !orphans.isEmpty else { return fixes }
        // The default list's own positions made 0..<count first, so that its end and the far negatives are free.
        if let renumbered = try Repairs.sectionPositions(ofList: defaultList, db) { fixes.append(renumbered) }
        let end = try SectionOrderState.counted(db, list: defaultList).count
        // Far below every position first (UNIQUE per list), then to the end of the default list in order.
        for (offset, id) in orphans.enumerated() {
            try db.run("UPDATE sections SET list_id = ?2, position = ?3 WHERE id = ?1", [.integer(id), .integer(defaultList), .int(Int.min + offset)])
        }
        for (offset, id) in orphans.enumerated() {
            try db.run("UPDATE sections SET position = ?2 WHERE id = ?1", [.integer(id), .int(end + offset)])
        }
        try SectionOrder.recordCountChange(by: orphans.count, db, list: defaultList)
        fixes.append("sections: moved \(orphans.count == 1 ? "1 section" : "\(orphans.count) sections") of lists deleted outside ListStore to the end of the default list")
        return fixes
    }
}
