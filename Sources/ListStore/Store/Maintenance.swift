import SQLiteLayer

/// What ``ListStore/repair()`` changed, and what it left for the user to decide.
public struct RepairReport: Hashable, Sendable {
    /// One line per fix, e.g. "section 0: renumbered 41 rows (positions had a gap)".
    public let fixes: [String]
    /// The change as a table view sees it: rows recovered into a new section; otherwise empty, as
    /// repair keeps the order it finds.
    public let changes: ChangeSet
    /// Problems repair does not fix because fixing them means changing or dropping data (an empty title,
    /// a payload that is not JSON, an id at the largest value), each with its ``IntegrityProblem/remedy``.
    public let unresolved: [IntegrityProblem]
}

extension ListStore {
    /// The title of the section that ``repair()`` puts rows into whose section was deleted by hand.
    package static let recoveredSectionTitle = Repairs.recoveredSectionTitle

    /// Puts back everything edits rely on that was damaged outside ListStore, in one transaction:
    /// renumbers section and row positions (gaps, duplicates after `OR REPLACE`, wrong counts or bases,
    /// extreme values), keeping the current order with ties broken by id; moves rows whose section was
    /// deleted into a new section titled "Recovered rows"; gives rows, sections and lists inserted or moved by
    /// another program order keys where they stand (what merging copies of the list needs); resets an id sequence that was run
    /// up by hand; puts back the change log's state row and clears a log with gaps or entries that
    /// cannot be trusted (observers behind then reload once). Data is never changed or dropped: what would need that is returned in
    /// ``RepairReport/unresolved`` with the SQL that fixes it. Refuses a file that fails SQLite's
    /// `integrity_check`: that needs recovering (e.g. `sqlite3 FILE .recover`), not renumbering.
    public func repair() throws -> RepairReport {
        var fixes: [String] = []
        var unresolved: [IntegrityProblem] = []
        let changes = try mutateSeeingLogState(repairing: true) { db, logState in
            let integrity = try Self.integrityCheck(db)
            if integrity != ["ok"] {
                throw ListStoreError.corrupt("integrity_check: \(integrity.prefix(3).joined(separator: "; ")); repair only renumbers positions")
            }
            let before = try readSnapshot(db)
            // The recorded section counts first: the fixes after them that add sections add to right counts.
            fixes =
                try Repairs.sectionCounts(db) + ListDamage.repair(db) + Repairs.recoverOrphans(db) + OrphanExtents.remove(db) + Repairs.listPositions(db)
                + Repairs.sectionPositions(db) + Repairs.rowPositions(db) + OrderKeyDamage.repair(db) + Repairs.sequences(db)
                + Repairs.changeLog(db, found: logState) + PayloadIndexDamage.repair(db)
            unresolved = try ValueDamage.scan(db) + IDExhaustion.problems(db)
            return (ChangeSet.between(before, try readSnapshot(db)), .structure(lists: nil))
        }
        return RepairReport(fixes: fixes, changes: changes, unresolved: unresolved)
    }
}
