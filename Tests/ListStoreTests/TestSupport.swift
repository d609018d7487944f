import ListStore
import SQLiteLayer
import StoreShorthands
@_exported import TestSupport
import Testing

extension ListSnapshot {
    /// Titles only, section by section: the easiest shape to compare in seed scenarios.
    var titles: [[String]] { sections.map { $0.rows.map(\.title) } }
}

extension ListStore {
    /// Every section and row as a scan reports them — with the index paths edits use — which works on
    /// files whose positions were damaged by hand (where ``snapshot()`` refuses).
    func scannedTitles() throws -> [[String]] {
        var titles: [[String]] = []
        try scan { item in
            switch item {
            case .section: titles.append([])
            case .row(_, let row): titles[titles.count - 1].append(row.title)
            }
        }
        return titles
    }
}

/// Edits as the `sqlite3` shell makes them: a plain connection, triggers on, foreign keys off.
enum Shell {
    /// The position one gap (2^20) past the last row of the section with id `section`, or 0 in an
    /// empty one: where TheFile.md's hand insert at the end of a section puts a row.
    static func endPosition(ofSection section: Int64) -> String {
        "(SELECT coalesce(max(position), -1048576) + 1048576 FROM rows WHERE section_id = \(section))"
    }

    /// A hand insert of a row titled `title` at the end of the section with id `section`.
    static func appendRow(_ title: String, toSection section: Int64) -> String {
        "INSERT INTO rows (section_id, position, title) VALUES (\(section), \(endPosition(ofSection: section)), '\(title)')"
    }

    /// `sql` marked to run with the trigger `trigger` dropped (``run(_:on:)`` puts it back afterwards):
    /// a write the counting triggers do not see, as another program that dropped them would make.
    static func uncounted(_ sql: String, without trigger: String) -> String { "\(sql) /* uncounted: \(trigger) */" }

    /// Runs `sql` on the file at `path` through a plain connection. SQL marked by
    /// ``uncounted(_:without:)`` runs in one transaction with its trigger dropped, then the trigger is
    /// created again from its own SQL, so that the schema is ListStore's again but the write went uncounted.
    static func run(_ sql: String, on path: String) throws {
        let shell = try Connection(path: path, mode: .readWrite)
        guard let marker = sql.range(of: " /* uncounted: "), let end = sql.range(of: " */", range: marker.upperBound..<sql.endIndex) else {
            try shell.executeScript(sql)
            return
        }
        let trigger = String(sql[marker.upperBound..<end.lowerBound])
        let definition = try shell.scalarText("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?1", [.text(trigger)])
        guard let definition else { throw SQLiteError(extendedCode: 1, message: "no trigger \(trigger)", sql: sql, systemErrno: 0) }
        try shell.executeScript("BEGIN; DROP TRIGGER \(trigger); \(sql[..<marker.lowerBound]); \(definition); COMMIT")
    }
}

extension Tag {
    /// Suites that take more than about ten seconds (crash states, process kills, model runs): README.md's
    /// quick loop leaves them out with `swift test --skip`.
    @Tag static var slow: Self
}
