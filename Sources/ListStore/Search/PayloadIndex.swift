import SQLiteLayer

/// The indexes on payload fields (schema 10, `0010_payload_indexes.sql`): for every indexed field, one
/// entry per row in `liststore_payload_values` holding the field's value as `json_extract` reads it,
/// so that a search for `field = value` reads the matching rows only.
///
/// The rule that keeps them true: a row's entries are those its payload gives, except for the rows in
/// `liststore_payload_stale`, whose entries may be out of date. ListStore's writes note every row they
/// insert, restore or update there (``markStale(runs:_:)``, ``markStale(row:_:)``,
/// ``markStale(section:_:)``), and so do other programs' writes (the schema's triggers); every ListStore
/// write then brings the noted rows' entries up to date before it commits (``refreshStale(_:)``). A
/// deleted row is noted the same way — by ListStore as it deletes it (``noteDeleting(_:indexed:_:)``), by the
/// schema's trigger for other programs — and the refresh drops its entries: since schema 11 the entries
/// have no foreign key into `rows`, whose cascade cost every row delete a sub-program and a temporary
/// B-tree even with no field indexed. A search reads the entries, and the stale rows themselves, joined
/// with `rows`: an entry whose row is gone (a delete with triggers off) is never returned, and `check`
/// counts it (``deadEntries(_:)``).
enum PayloadIndex {
    /// The indexed fields, by name; a name that ``PayloadField`` refuses (a hand edit of
    /// `liststore_payload_indexes`) is left out here and reported by `check`.
    static func fields(_ db: Connection) throws -> [PayloadField] {
        try db.cached("SELECT field FROM liststore_payload_indexes ORDER BY field").map { $0.text(0) }.compactMap { try? PayloadField($0) }
    }

    /// Whether any field is indexed.
    static func anyField(_ db: Connection) throws -> Bool {
        try db.scalarInt("SELECT EXISTS (SELECT 1 FROM liststore_payload_indexes)") == 1
    }

    /// Whether writes note their rows: a payload field is indexed, or the file has the index of titles
    /// (``TitleWords``). When neither, writes note nothing.
    static func notesWrites(_ db: Connection) throws -> Bool {
        // Any table of the index's name counts (one statement, asked once per write), as for the schema's
        // triggers (0013): ``TitleWords/add(_:)`` or `repair` makes the index in place of one that is not ListStore's.
        try db.scalarInt(
            """
            SELECT EXISTS (SELECT 1 FROM liststore_payload_indexes) \
            OR EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '\(TitleWords.table)')
            """) == 1
    }

    /// Notes the rows of `runs` (`[first, count]`, as ``EditEvent/runs(_:)``) as written: rows new to
    /// the file (inserted or restored: the index of titles holds nothing for them) unless `indexedAsTheyAre`,
    /// for rows whose title did not change (a row moved to another list), noted with it.
    static func markStale(runs: [[Int64]], indexedAsTheyAre: Bool = false, _ db: Connection) throws {
        guard let (ranges, _) = EditEvent.ranges(runs) else { return }
        for range in ranges {
            try db.run(
                "INSERT OR IGNORE INTO liststore_payload_stale (row_id, title) SELECT id, \(indexedAsTheyAre ? "title" : "NULL") FROM rows WHERE id BETWEEN ?1 AND ?2",
                [.integer(range.lowerBound), .integer(range.upperBound)])
        }
    }

    /// Notes row `id` as written, with `title`, the title it had before (the one the index of titles holds).
    static func markStale(row id: Int64, title: String, _ db: Connection) throws {
        try db.run("INSERT OR IGNORE INTO liststore_payload_stale (row_id, title) VALUES (?1, ?2)", [.integer(id), .text(title)])
    }

    /// Notes every row of section `id` as written, rows new to the file (a section restored or imported with its rows).
    static func markStale(section id: Int64, _ db: Connection) throws {
        try db.run("INSERT OR IGNORE INTO liststore_payload_stale (row_id) SELECT id FROM rows WHERE section_id = ?1", [.integer(id)])
    }

    /// Notes rows `ids`, still there, with their titles: before they are deleted.
    static func markStale(existing ids: [Int64], _ db: Connection) throws {
        let note = try db.cached("INSERT OR IGNORE INTO liststore_payload_stale (row_id, title) SELECT id, title FROM rows WHERE id = ?1")
        for id in ids { try note.bind([.integer(id)]).run() }
    }

    /// Rows ListStore deletes, as ``noteDeleting(_:indexed:_:)`` finds them.
    enum Deleting {
        /// Rows by id: noted before or after their delete (the note is the id alone).
        case rows([Int64])
        /// Every row of these sections: noted before the sections' DELETE cascades to their rows.
        case sections([Int64])
        /// Every row of every section of list `id`: noted before the list's (or its sections') DELETE.
        case list(Int64)
    }

    /// Notes rows ListStore deletes, so that the refresh before the commit drops their entries and words;
    /// nothing when writes note nothing (`indexed`, when the caller already knows, else asked here). Every
    /// path that deletes rows, directly or through a section's or list's cascade, calls this: the entries
    /// have no foreign key into `rows` (schema 11). Rows still there are noted with their titles, which the
    /// index of titles holds (rows deleted one by one were noted so before their delete, ``markStale(existing:_:)``).
    static func noteDeleting(_ going: Deleting, indexed: Bool? = nil, _ db: Connection) throws {
        guard try indexed ?? notesWrites(db) else { return }
        switch going {
        case .rows(let ids):
            try markStale(existing: ids, db)
        case .sections(let ids):
            for id in ids {
                try db.run("INSERT OR IGNORE INTO liststore_payload_stale (row_id, title) SELECT id, title FROM rows WHERE section_id = ?1", [.integer(id)])
            }
        case .list(let id):
            try db.run(
                """
                INSERT OR IGNORE INTO liststore_payload_stale (row_id, title) \
                SELECT id, title FROM rows WHERE section_id IN (SELECT id FROM sections WHERE list_id = ?1)
                """,
                [.integer(id)])
        }
    }

    /// Brings the words (in the index of titles, when the file has it) and the payload-field entries (when a
    /// field is indexed) of every noted row up to date and forgets the notes; inside a write transaction,
    /// before it commits. Costs one statement when nothing was noted.
    static func refreshStale(_ db: Connection) throws {
        guard try db.scalarInt("SELECT EXISTS (SELECT 1 FROM liststore_payload_stale)") == 1 else { return }
        if try TitleWords.exists(db) { try TitleWords.refreshStale(db) }
        if try anyField(db) { try refreshStaleEntries(db) }
        try db.run("DELETE FROM liststore_payload_stale")
    }

    /// The payload-field part of ``refreshStale(_:)``: the noted rows' entries dropped and made again.
    private static func refreshStaleEntries(_ db: Connection) throws {
        // Counted among the noted rows that still exist: those of a deleted section get no entries. The
        // notes drive the join (CROSS JOIN): left to itself, SQLite read every row of `rows` to find the
        // one note of a one-row insert (80 ms at a million rows).
        let many =
            try db.scalarInt(
                "SELECT count(*) FROM (SELECT 1 FROM liststore_payload_stale s CROSS JOIN rows r ON r.id = s.row_id LIMIT ?1)", [.int(manyRows)])
            == manyRows
        try db.run("DELETE FROM liststore_payload_values WHERE row_id IN (SELECT row_id FROM liststore_payload_stale)")
        try withValueIndexBuiltAfter(many, db) {
            for field in try fields(db) {
                try db.run(
                    """
                    INSERT INTO liststore_payload_values (row_id, field, value)
                    SELECT id, ?1, value FROM (\(valuesOfRows(field, where: "id IN (SELECT row_id FROM liststore_payload_stale)")))
                    """, [.text(field.name)])
            }
        }
    }

    /// From how many rows written at once the entries are written before the value index is made again.
    static let manyRows = 20_000

    /// Runs `body`, which writes many entries, with the `(field, value, row_id)` index dropped and made
    /// again after it when `rebuilding`: SQLite then sorts the entries once, where inserting them into the
    /// index one by one, in value order unrelated to the rows' order, would touch a page per entry
    /// (a million-row index took a minute that way, against seconds). The index is made again from its
    /// own SQL as the schema holds it, inside the same transaction.
    private static func withValueIndexBuiltAfter(_ rebuilding: Bool, _ db: Connection, _ body: () throws -> Void) throws {
        guard rebuilding,
            let sql = try db.scalarText("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = 'liststore_payload_values_by_value'")
        else { return try body() }
        try db.run("DROP INDEX liststore_payload_values_by_value")
        try body()
        try db.executeScript(sql)
    }

    /// Indexes `field` over every row of the file; false when it already was (nothing done).
    static func add(_ field: PayloadField, _ db: Connection) throws -> Bool {
        guard try db.scalarInt("SELECT count(*) FROM liststore_payload_indexes WHERE field = ?1", [.text(field.name)]) == 0 else { return false }
        try refreshStale(db)  // so that every row's entries for the other fields are current first
        try db.run("INSERT INTO liststore_payload_indexes (field) VALUES (?1)", [.text(field.name)])
        // Entries an index removed by hand without foreign keys left behind (``orphanedEntries(_:)``).
        try db.run("DELETE FROM liststore_payload_values WHERE field = ?1", [.text(field.name)])
        let rows = try db.scalarInt("SELECT count(*) FROM (SELECT 1 FROM rows LIMIT ?1)", [.int(manyRows)]) ?? 0
        try withValueIndexBuiltAfter(rows == manyRows, db) {
            try db.run("INSERT INTO liststore_payload_values (row_id, field, value) SELECT id, ?1, value FROM (\(valuesOfRows(field, where: "1")))", [.text(field.name)])
        }
        return true
    }

    /// Drops the index on `field` with its entries; ``ListStoreError/noPayloadIndex(_:)`` when there is none.
    static func remove(_ field: PayloadField, _ db: Connection) throws {
        try db.run("DELETE FROM liststore_payload_values WHERE field = ?1", [.text(field.name)])
        try db.run("DELETE FROM liststore_payload_indexes WHERE field = ?1", [.text(field.name)])
        guard db.changes > 0 else { throw ListStoreError.noPayloadIndex(field.name) }
        if try !notesWrites(db) { try db.run("DELETE FROM liststore_payload_stale") }
    }

    /// Makes every entry again from the payloads (``ListStore/repair()``): also drops a field whose name a
    /// hand edit made unusable, and entries no row or field has.
    static func rebuild(_ db: Connection) throws {
        let fields = try fields(db)
        try db.run("DELETE FROM liststore_payload_values")
        try refreshStale(db)  // the index of titles catches up with the noted rows; the notes go
        try db.run("DELETE FROM liststore_payload_indexes")
        for field in fields { _ = try add(field, db) }
    }

    /// The number of rows whose entries differ from what their payloads give, field by field, leaving out
    /// the rows noted stale; for `check`. Reads every row once per field.
    static func disagreements(_ db: Connection) throws -> [(field: String, rows: Int)] {
        var found: [(String, Int)] = []
        for name in try db.cached("SELECT field FROM liststore_payload_indexes ORDER BY field").map({ $0.text(0) }) {
            guard let field = try? PayloadField(name) else {
                found.append((name, -1))
                continue
            }
            let expected = valuesOfRows(field, where: "id NOT IN (SELECT row_id FROM liststore_payload_stale)")
            let kept = """
                SELECT row_id AS id, value FROM liststore_payload_values WHERE field = ?1 AND row_id NOT IN (SELECT row_id FROM liststore_payload_stale) \
                AND EXISTS (SELECT 1 FROM rows WHERE rows.id = row_id)
                """
            let count =
                try db.scalarInt(
                    "SELECT count(*) FROM (SELECT id FROM (\(expected) EXCEPT \(kept)) UNION SELECT id FROM (\(kept) EXCEPT \(expected)))",
                    [.text(field.name)]) ?? 0
            if count > 0 { found.append((name, count)) }
        }
        return found
    }

    /// The entries of fields that no longer have an index, by field: left by a hand deletion from
    /// `liststore_payload_indexes` on a connection without foreign keys (no cascade); for `check`.
    static func orphanedEntries(_ db: Connection) throws -> [(field: String, entries: Int)] {
        try db.cached(
            "SELECT field, count(*) FROM liststore_payload_values WHERE field NOT IN (SELECT field FROM liststore_payload_indexes) GROUP BY field ORDER BY field"
        ).map { ($0.text(0), Int($0.int64(1))) }
    }

    /// Entries whose row no longer exists and is not noted stale — the row deleted by a program running
    /// with triggers off (nothing noted it) — counted with their rows; for `check`. Those of rows noted
    /// stale are not counted: the next write drops them. ``disagreements(_:)`` leaves them out.
    static func deadEntries(_ db: Connection) throws -> (entries: Int, rows: Int) {
        try db.cached(
            """
            SELECT count(*), count(DISTINCT row_id) FROM liststore_payload_values v
            WHERE NOT EXISTS (SELECT 1 FROM rows WHERE rows.id = v.row_id) AND NOT EXISTS (SELECT 1 FROM liststore_payload_stale s WHERE s.row_id = v.row_id)
            """
        ).bind([]).first { (Int($0.int64(0)), Int($0.int64(1))) } ?? (0, 0)
    }

    /// Drops every entry whose row no longer exists (``deadEntries(_:)``); for `repair`.
    static func dropDeadEntries(_ db: Connection) throws {
        try db.run("DELETE FROM liststore_payload_values WHERE NOT EXISTS (SELECT 1 FROM rows WHERE rows.id = liststore_payload_values.row_id)")
    }

    /// `SELECT id, value` for the rows meeting `condition` whose payload gives `field` a value (valid JSON,
    /// the field present and not null). The path is written into the SQL from ``PayloadField``'s checked
    /// characters alone, as the search writes it.
    private static func valuesOfRows(_ field: PayloadField, where condition: String) -> String {
        """
        SELECT id, value FROM (SELECT id, \(field.scalarValueSQL(of: "payload")) AS value \
        FROM rows WHERE payload IS NOT NULL AND \(condition)) WHERE value IS NOT NULL
        """
    }
}
