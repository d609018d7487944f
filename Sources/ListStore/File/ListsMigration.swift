import SQLiteLayer

/// What migration 0008 (several lists) cannot say in SQL: the tables of other programs with a foreign key
/// into `sections` (`CREATE TABLE notes (section_id REFERENCES sections (id) ON DELETE CASCADE, …)`, which
/// TheFile.md allows). The script rebuilds `sections` inside ListStore's write transaction, with foreign keys
/// on, and `DROP TABLE` first deletes every section: those tables' rows would be deleted with them (or set
/// to NULL). So their references are parked on the negated id (no section has one) before the script and
/// brought back after it, as the script does for ListStore's own tables; the foreign keys are deferred
/// and checked at the commit, and ListStore's connections fire no triggers meanwhile.
enum ListsMigration {
    /// Negates every other program's reference into `sections` (run twice, it restores them).
    static func parkForeignReferences(_ db: Connection) throws {
        let references = try db.cached(
            """
            SELECT m.name, f."from" FROM sqlite_schema AS m, pragma_foreign_key_list(m.name) AS f
            WHERE m.type = 'table' AND lower(f."table") = 'sections'
              AND lower(m.name) NOT IN ('rows', 'row_blocks', 'row_pages', 'sections', 'sections_rebuilt')
            """
        ).bind([]).map { (table: $0.text(0), column: $0.text(1)) }
        guard !references.isEmpty else { return }
        try db.run("PRAGMA defer_foreign_keys = ON")
        for reference in references {
            let table = quoted(reference.table)
            let column = quoted(reference.column)
            try db.run("UPDATE \(table) SET \(column) = -\(column) WHERE typeof(\(column)) = 'integer'")
        }
    }

    private static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
