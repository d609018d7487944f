import SQLiteLayer

/// What ``ListStore/repair()`` changed.
public struct RepairReport: Hashable, Sendable {
    /// One line per fix, e.g. "section 0: renumbered 41 rows (positions had a gap)".
    public let fixes: [String]
    /// The change as a table view sees it (empty when order was kept, which repair always does).
    public let changes: ChangeSet
}

extension ListStore {
    /// Renumbers positions damaged outside ListStore (gaps, duplicates, wrong counts or bases), keeping
    /// the current order with ties broken by id, in one transaction. Refuses a file that fails SQLite's
    /// `integrity_check`: that needs recovering (e.g. `sqlite3 FILE .recover`), not renumbering.
    public func repair() throws -> RepairReport {
        var fixes: [String] = []
        var before = ListSnapshot(sections: [])
        let changes = try mutate { db in
            let integrity = try Self.integrityCheck(db)
            if integrity != ["ok"] {
                throw ListStoreError.corrupt("integrity_check: \(integrity.prefix(3).joined(separator: "; ")); repair only renumbers positions")
            }
            before = try readSnapshot(db)
            fixes = try repairSectionPositions(db) + repairRowPositions(db)
            return ChangeSet.between(before, try readSnapshot(db))
        }
        return RepairReport(fixes: fixes, changes: changes)
    }

    private func repairSectionPositions(_ db: Connection) throws -> [String] {
        let order = try SectionOrderState.read(db)
        guard order.isDamaged else { return [] }
        try db.run("""
            UPDATE sections SET position = -1 - ranked.new_position
            FROM (SELECT id, row_number() OVER (ORDER BY position, id) - 1 AS new_position FROM sections) AS ranked
            WHERE sections.id = ranked.id
            """)
        try db.run("UPDATE sections SET position = -1 - position WHERE position < 0")
        return ["sections: renumbered \(order.count) sections (positions ran from \(order.low) to \(order.high))"]
    }

    private func repairRowPositions(_ db: Connection) throws -> [String] {
        let damaged = try RowPositionState.damaged(db)
        var fixes: [String] = []
        for section in damaged {
            try db.run("""
                UPDATE rows SET position = ?2 + ranked.new_position
                FROM (SELECT id, row_number() OVER (ORDER BY position, id) - 1 AS new_position FROM rows WHERE section_id = ?1) AS ranked
                WHERE rows.id = ranked.id
                """, [.integer(section.sectionID), .int(SectionRows.parkingOffset)])
            try db.run("UPDATE rows SET position = position - ?2 WHERE section_id = ?1", [.integer(section.sectionID), .int(SectionRows.parkingOffset)])
            try db.run("UPDATE sections SET row_base = 0, row_count = ?2 WHERE id = ?1", [.integer(section.sectionID), .int(section.count)])
            var what: [String] = []
            if section.hasGap {
                what.append("positions \(section.low - section.base)…\(section.high - section.base) for \(section.count) rows")
            }
            if section.storedCount != section.count { what.append("recorded \(section.storedCount) rows, has \(section.count)") }
            fixes.append("section \(section.index): renumbered \(section.count) rows (\(what.isEmpty ? "base out of range" : what.joined(separator: "; ")))")
        }
        return fixes
    }

    /// Writes a consistent copy of the store to `path` with `VACUUM INTO` (never a plain file copy,
    /// which could catch a half-written transaction). Fails when `path` already exists.
    public func backup(to path: String) throws {
        try withLockedConnection { db in
            // A store opened for reading refuses writes with query_only, which would refuse VACUUM INTO
            // too, although it writes only the new file.
            let queryOnly = try db.scalarInt("PRAGMA query_only") == 1
            if queryOnly { try db.run("PRAGMA query_only = OFF") }
            defer { if queryOnly { try? db.run("PRAGMA query_only = ON") } }
            try db.run("VACUUM INTO ?1", [.text(path)])
        }
    }
}
