import SQLiteLayer

/// Payload-field index entries that are not what the payloads give (``PayloadIndex``): only a hand edit
/// of `liststore_payload_values` or `liststore_payload_indexes` makes them, and a search by that field
/// would then miss rows or return rows that do not match; or entries of rows deleted by a program with
/// triggers off, which nothing noted (a search passes over them, but they take room and would count for
/// a row given the same id by hand). Rows written by other programs since ListStore's last write are
/// noted stale, and their entries are not counted here.
///
/// The index of titles (``TitleWords``), when the file has it, is checked the same way: rows not noted
/// stale whose words differ from their titles' (a hand edit of `liststore_title_words`, or titles changed
/// by a program with triggers off), and words of rows deleted with triggers off.
enum PayloadIndexDamage {
    static func problems(_ db: Connection) throws -> [IntegrityProblem] {
        try (titleIndexDamage(db) + orphans(db) + deadEntries(db)).map { IntegrityProblem($0) }
            + PayloadIndex.disagreements(db).map { field, rows in
                rows < 0
                    ? IntegrityProblem("payload index \(ListStoreError.excerpt(field)) names no field a search can use (liststore_payload_indexes was edited by hand)")
                    : IntegrityProblem(
                        "payload index on \(field): the entries of \(rows == 1 ? "1 row differ" : "\(rows) rows differ") from their payloads (liststore_payload_values was edited by hand); searches by \(field) would miss or add rows"
                    )
            }
    }

    /// The line for the index of titles out of step, when the file has it and it is.
    private static func titleIndexDamage(_ db: Connection) throws -> [String] {
        switch try TitleWords.presence(db) {
        case .none: return []
        case .foreign:
            return [
                "title index: liststore_title_words is not the index ListStore made (another program dropped or redefined it); searches by title words read every title meanwhile"
            ]
        case .ours: break
        }
        let disagreements: (rows: Int, deadEntries: Int)
        do {
            disagreements = try TitleWords.disagreements(db)
        } catch let error as SQLiteError where error.primaryCode == 1 || error.isCorruptOrNotADatabase {  // SQLITE_ERROR or damage: its tables
            return ["title index: liststore_title_words cannot be read (\(error.message)); searches by title words would fail"]
        }
        let (rows, dead) = disagreements
        guard rows > 0 || dead > 0 else { return [] }
        var parts: [String] = []
        if rows > 0 { parts.append("the words of \(rows == 1 ? "1 row differ" : "\(rows) rows differ") from their titles") }
        if dead > 0 { parts.append("it holds words of \(dead == 1 ? "1 row" : "\(dead) rows") that no longer exist") }
        return [
            "title index: " + parts.joined(separator: ", and ")
                + " (rows written by a program with triggers off, or liststore_title_words edited by hand); searches by title words would miss or add rows"
        ]
    }

    /// One line per field whose index is gone but whose entries are still there.
    private static func orphans(_ db: Connection) throws -> [String] {
        try PayloadIndex.orphanedEntries(db).map { field, entries in
            "payload index entries for \(ListStoreError.excerpt(field)), which has no index: \(entries == 1 ? "1 entry" : "\(entries) entries") (liststore_payload_indexes was edited by hand without foreign keys)"
        }
    }

    /// The line for entries whose row no longer exists, when there are any.
    private static func deadEntries(_ db: Connection) throws -> [String] {
        let (entries, rows) = try PayloadIndex.deadEntries(db)
        guard entries > 0 else { return [] }
        return [
            "payload index entries of \(rows == 1 ? "1 row" : "\(rows) rows") that no longer exist: \(entries == 1 ? "1 entry" : "\(entries) entries") (rows deleted by a program with triggers off)"
        ]
    }

    /// Makes every entry again when any differs, else drops those of rows that no longer exist; one line
    /// per index rebuilt or dropped.
    static func repair(_ db: Connection) throws -> [String] {
        var rebuilt: [String] = []
        if let line = try titleIndexDamage(db).first {
            try TitleWords.rebuild(db)
            let damage = line.range(of: "; searches by title words").map { String(line[..<$0.lowerBound]) } ?? line
            rebuilt.append(damage + ": made the index again from the titles")
        }
        return try rebuilt + payloadRepair(db)
    }

    private static func payloadRepair(_ db: Connection) throws -> [String] {
        let found = try PayloadIndex.disagreements(db)
        let orphans = try orphans(db)
        let dead = try deadEntries(db)
        guard !found.isEmpty || !orphans.isEmpty || !dead.isEmpty else { return [] }
        if found.isEmpty && orphans.isEmpty {
            try PayloadIndex.dropDeadEntries(db)
        } else {
            try PayloadIndex.rebuild(db)
        }
        return (orphans + dead).map { $0 + ": dropped them" }
            + found.map { field, rows in
                rows < 0
                    ? "payload index \(ListStoreError.excerpt(field)): dropped (not a field name a search can use)"
                    : "payload index on \(field): made its entries again from the payloads (the entries of \(rows == 1 ? "1 row" : "\(rows) rows") differed)"
            }
    }
}
