import SQLiteLayer

/// The fixes ``ListStore/repair()`` makes, each inside the caller's write transaction, each returning
/// one line per thing fixed.
enum Repairs {
    /// The title of the section repair puts orphaned rows into (``ListStore/recoveredSectionTitle``).
    static let recoveredSectionTitle = "Recovered rows"

    /// Moves rows whose section no longer exists into a new section at the end of the default list, in
    /// the order of their old section and position, so that reads show them again and nothing is lost.
    static func recoverOrphans(_ db: Connection) throws -> [String] {
        let orphans = try StoreDamage.orphans(db)
        guard !orphans.isEmpty else { return [] }
        let list = ListDamage.defaultList
        let order = try SectionOrderState.counted(db, list: list)
        let position: Int
        if order.count == 0 {
            position = 0
        } else if order.high < Int.max {
            position = order.high + 1
        } else if order.low > Int.min {
            position = order.low - 1
        } else {
            throw ListStoreError.corrupt("no free section position for recovered rows: section positions span the whole integer range")
        }
        let sectionID = try SectionWriter.insert(id: nil, title: recoveredSectionTitle, at: position, list: list, db)
        try SectionOrder.recordCountChange(by: 1, db, list: list)
        try RowBlocks.createFirstExtents(ofSection: sectionID, db)
        try db.run(
            """
            UPDATE rows SET section_id = ?1, position = ranked.new_position
            FROM (SELECT id, row_number() OVER (ORDER BY section_id, position, id) - 1 AS new_position FROM rows
                  WHERE NOT EXISTS (SELECT 1 FROM sections AS s WHERE s.id = rows.section_id)) AS ranked
            WHERE rows.id = ranked.id
            """, [.integer(sectionID)])
        _ = try RowBlocks(sectionID: sectionID, db: db).rebuild(sizes: .standard)
        try MergeRegisters.place([sectionID], in: .sections, db)
        let recovered = try db.cached("SELECT id FROM rows WHERE section_id = ?1 ORDER BY position").bind([.integer(sectionID)]).map { $0.int64(0) }
        try MergeRegisters.place(recovered, in: .rows, db)
        return orphans.map { orphan in
            "section #\(orphan.missingSectionID) was deleted outside ListStore: moved its \(orphan.count == 1 ? "row" : "\(orphan.count) rows") into a new section \"\(recoveredSectionTitle)\" (#\(sectionID))"
        }
    }

    /// Renumbers each list's sections whose positions are not `0..<count` (counted, not the recorded
    /// count), keeping their order.
    static func sectionPositions(_ db: Connection) throws -> [String] {
        try ListDamage.listIDs(db).compactMap { list in try sectionPositions(ofList: list, db) }
    }

    /// Renumbers the sections of `list` when their positions are not `0..<count`, keeping their order;
    /// the fix made, or nil.
    static func sectionPositions(ofList list: Int64, _ db: Connection) throws -> String? {
        let order = try SectionOrderState.counted(db, list: list)
        guard order.isDamaged else { return nil }
        try renumber(
            db, table: "sections", filter: "list_id = ?1", [.integer(list)], count: order.count, low: order.low, high: order.high,
            what: "the sections")
        return "sections\(try ListDamage.inList(list, db)): renumbered \(order.count) sections (positions ran from \(order.low) to \(order.high))"
    }

    /// Records each list's section count afresh where the recorded one (`lists.section_count`, schema 12)
    /// differs from the sections it has: changed by hand, or sections written with triggers off.
    static func sectionCounts(_ db: Connection) throws -> [String] {
        try ListDamage.wrongSectionCounts(db).map { wrong in
            try SectionOrder.recount(db, list: wrong.list)
            return "sections\(try ListDamage.inList(wrong.list, db)): counted \(wrong.counted) sections (the list recorded \(wrong.recorded))"
        }
    }

    /// Renumbers the lists when their positions are not `0..<count`, keeping their order.
    static func listPositions(_ db: Connection) throws -> [String] {
        guard let order = try ListDamage.damagedOrder(db) else { return [] }
        try renumber(db, table: "lists", filter: "1", [], count: order.count, low: order.low, high: order.high, what: "the lists")
        return ["lists: renumbered \(order.count) lists (positions ran from \(order.low) to \(order.high))"]
    }

    /// Gives every damaged section's rows fresh positions in their order and counts them into new
    /// blocks and pages (``RowBlocks/rebuild(sizes:leavingRoom:before:)``).
    static func rowPositions(_ db: Connection) throws -> [String] {
        try RowPositionState.damaged(db).map { section in
            _ = try RowBlocks(sectionID: section.sectionID, db: db).rebuild(sizes: .standard)
            var what: [String] = []
            if section.storedCount != section.count { what.append("recorded \(section.storedCount) rows, has \(section.count)") }
            if !section.countsAgree || section.pageTotal != section.count { what.append("its blocks and pages did not count its rows") }
            if !section.positionsInRange { what.append("positions out of range") }
            return "section \(section.index): renumbered \(section.count) rows and counted them afresh (\(what.joined(separator: "; ")))"
        }
    }

    /// Puts back a change log observers could not trust: the state row as the transaction found it
    /// (`beginWriting` has already re-created or reset it) and, when entries have gaps or cannot be
    /// trusted, clears the log, so that every observer behind reloads once (the mutation then logs
    /// this repair as the only entry).
    static func changeLog(_ db: Connection, found state: LogState) throws -> [String] {
        var fixes: [String] = []
        switch state {
        case .sound: break
        case .missing: fixes.append("change log: its state row (liststore_state) was deleted; put back, so hand edits are logged again")
        case .stuck: fixes.append("change log: its state row (liststore_state) was left at writing = 1; reset, so hand edits are logged again")
        }
        let problems = try ChangeLogDamage.entryProblems(db)
        if !problems.isEmpty {
            let count = try db.scalarInt("SELECT count(*) FROM liststore_log") ?? 0
            try db.run("DELETE FROM liststore_log")
            fixes.append(
                "change log: cleared its \(count == 1 ? "entry" : "\(count) entries") (\(problems.count == 1 ? "1 problem" : "\(problems.count) problems"): gaps or entries that cannot be trusted); observers behind reload once"
            )
        }
        return fixes
    }

    /// Sets an id sequence that was run up to the largest id by hand back to the largest id in use.
    static func sequences(_ db: Connection) throws -> [String] {
        try IDExhaustion.states(db).compactMap { state in
            guard state.sequence == Int64.max, state.highestID < Int64.max else { return nil }
            try db.run("UPDATE sqlite_sequence SET seq = ?2 WHERE name = ?1", [.text(state.table), .integer(state.highestID)])
            return "\(state.table): the id sequence was at the largest possible id; set back to \(state.highestID), the largest in use"
        }
    }

    /// Gives the `count` entries of `table` selected by `filter` the positions `0..<count`, keeping
    /// their order (ties broken by id). The first UPDATE moves them into a range free of both their
    /// current positions (`low…high`, whatever a hand edit left) and the final ones, so UNIQUE holds
    /// whatever order SQLite visits them in; the second moves them down.
    private static func renumber(
        _ db: Connection, table: String, filter: String, _ arguments: [SQLiteValue],
        count: Int, low: Int, high: Int, what: String
    ) throws {
        let start: Int
        let (above, aboveOverflows) = max(high, count - 1).addingReportingOverflow(1)
        let (_, aboveEndOverflows) = above.addingReportingOverflow(count)
        let (below, belowOverflows) = min(low, 0).subtractingReportingOverflow(count)
        if !aboveOverflows && !aboveEndOverflows {
            start = above
        } else if !belowOverflows {
            start = below
        } else {
            throw ListStoreError.corrupt(
                "cannot renumber \(what): their positions span the whole integer range; set them by hand, e.g. UPDATE \(table) SET position = … WHERE \(pasteable(filter, arguments))"
            )
        }
        let startParameter = arguments.count + 1
        try db.run(
            """
            UPDATE \(table) SET position = ?\(startParameter) + ranked.new_position
            FROM (SELECT id, row_number() OVER (ORDER BY position, id) - 1 AS new_position FROM \(table) WHERE \(filter)) AS ranked
            WHERE \(table).id = ranked.id
            """, arguments + [.int(start)])
        try db.run("UPDATE \(table) SET position = position - ?\(startParameter) WHERE \(filter)", arguments + [.int(start)])
    }

    /// `filter` with its integer parameters written out, for a message: `section_id = 12`, SQL the user
    /// can paste into the `sqlite3` shell (a bound value interpolated would read `integer(12)`).
    private static func pasteable(_ filter: String, _ arguments: [SQLiteValue]) -> String {
        // From the last parameter down, so that ?1 never replaces the start of ?10.
        arguments.enumerated().reversed().reduce(filter) { text, argument in
            guard case .integer(let value) = argument.element else { return text }
            return text.replacingOccurrences(of: "?\(argument.offset + 1)", with: String(value))
        }
    }
}
