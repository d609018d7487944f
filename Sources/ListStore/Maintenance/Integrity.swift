import SQLiteLayer

/// One broken invariant found by ``ListStore/checkInvariants()``.
public struct IntegrityProblem: Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in one line.
    public let description: String
    /// Whether ``ListStore/repair()`` fixes it. Problems it does not fix carry a ``remedy``.
    public let isRepairable: Bool
    /// For a problem ``ListStore/repair()`` leaves alone (it would have to change or drop data): the
    /// SQL that fixes it, or what else to do.
    public let remedy: String?

    /// A problem with this description; `remedy` for one that repair leaves alone.
    public init(_ description: String, isRepairable: Bool = true, remedy: String? = nil) {
        self.description = description
        self.isRepairable = isRepairable
        self.remedy = remedy
    }
}

extension ListStore {
    /// SQLite's `integrity_check` lines (["ok"] when sound). On a badly damaged file SQLite reports some
    /// problems and then fails; the failure becomes the last line.
    static func integrityCheck(_ db: Connection) throws -> [String] {
        var lines: [String] = []
        do {
            try db.cached("PRAGMA integrity_check").bind([]).forEachRow { lines.append($0.text(0)) }
        } catch let error as SQLiteError where error.isCorruptOrNotADatabase {
            lines.append(error.message)
        }
        return lines
    }

    /// The schema version of the file (`PRAGMA user_version`); older than ``schemaVersion`` until
    /// the first write migrates it, 0 for an empty file.
    public func fileSchemaVersion() throws -> Int {
        try withReadTransaction { db in try Migrator.version(of: db) }
    }

    /// Checks everything edits rely on, reading the whole file: SQLite's own integrity and foreign-key
    /// checks, the schema, section positions `0..m-1`, row indexes `0..n-1` and the recorded count and
    /// base of every section, rows whose section is gone, titles and payloads that reads, edits or an
    /// export and import could not carry (empty, NUL, invalid UTF-8, invalid JSON), and ids that have
    /// run out, and a change log observers could not trust (its state row deleted or stuck, entries
    /// deleted or not what ListStore writes). Returns every problem found (empty when the store is sound). A file older than this
    /// build's schema gets only the checks its schema allows.
    public func checkInvariants() throws -> [IntegrityProblem] {
        try withReadTransaction { db in
            let version = try Migrator.version(of: db)
            var problems: [IntegrityProblem] = []
            for difference in try Schema.differences(in: db, version: version) {
                problems.append(IntegrityProblem("schema: \(difference)", isRepairable: false,
                                                 remedy: "undo that change in the sqlite3 shell, or restore a backup"))
            }
            for message in try Self.integrityCheck(db) where message != "ok" {
                problems.append(IntegrityProblem("integrity_check: \(message)", isRepairable: false,
                                                 remedy: "recover the file with `sqlite3 FILE .recover` or restore a backup"))
            }
            // A damaged file cannot be trusted to answer the finer questions below, nor can a file
            // without the current schema's columns.
            guard problems.isEmpty, version == Schema.migrator.latestVersion else { return problems }
            problems += try StoreDamage.orphans(db).map(\.problem)
            let order = try SectionOrderState.read(db)
            if order.isDamaged {
                problems.append(IntegrityProblem("section positions are not 0…\(order.count - 1): they run from \(order.low) to \(order.high)"))
            }
            for section in try RowPositionState.damaged(db) { problems += section.problems }
            problems += try ValueDamage.scan(db)
            problems += try IDExhaustion.problems(db)
            problems += try ChangeLogDamage.problems(db)
            return problems
        }
    }
}

/// The section order as it is in the file (check, repair and every edit read it the same way).
struct SectionOrderState {
    let count: Int
    let low: Int
    let high: Int

    /// True unless the positions are exactly `0..<count`.
    var isDamaged: Bool { count > 0 && (low != 0 || high != count - 1) }

    static func read(_ db: Connection) throws -> SectionOrderState {
        try db.cached("SELECT count(*), coalesce(min(position), 0), coalesce(max(position), -1) FROM sections").bind([])
            .first { SectionOrderState(count: $0.int(0), low: $0.int(1), high: $0.int(2)) } ?? SectionOrderState(count: 0, low: 0, high: -1)
    }
}

/// One section whose row positions, count or base are not what ListStore keeps them at.
struct RowPositionState {
    let sectionID: Int64
    let index: Int
    let base: Int
    let storedCount: Int
    let count: Int
    let low: Int
    let high: Int

    /// Positions that are not exactly `base ..< base + count`.
    var hasGap: Bool {
        count > 0 && (low != base || Addressing.rowIndex(position: high, base: base) != count - 1)
    }
    var baseOutOfRange: Bool { base <= -SectionRows.positionLimit || base >= SectionRows.positionLimit }

    var problems: [IntegrityProblem] {
        var problems: [IntegrityProblem] = []
        if count != storedCount {
            problems.append(IntegrityProblem("section \(index) records \(storedCount) rows but has \(count)"))
        }
        if hasGap {
            let first = Addressing.rowIndex(position: low, base: base), last = Addressing.rowIndex(position: high, base: base)
            problems.append(IntegrityProblem("rows of section \(index) have positions \(first)…\(last) (relative to its base) for \(count) rows, not 0…\(count - 1)"))
        }
        if baseOutOfRange {
            problems.append(IntegrityProblem("section \(index) has row_base \(base), outside ±\(SectionRows.positionLimit)"))
        }
        return problems
    }

    /// Every damaged section, in display order (one pass over the rows).
    static func damaged(_ db: Connection) throws -> [RowPositionState] {
        try db.cached("""
            SELECT s.id, s.position, s.row_base, s.row_count, count(r.id), min(r.position), max(r.position)
            FROM sections AS s LEFT JOIN rows AS r ON r.section_id = s.id
            GROUP BY s.id
            HAVING count(r.id) <> s.row_count OR s.row_base >= ?1 OR s.row_base <= -?1
                OR (count(r.id) > 0 AND (min(r.position) <> s.row_base OR max(r.position) - s.row_base <> count(r.id) - 1))
            ORDER BY s.position
            """).bind([.int(SectionRows.positionLimit)]).map { row in
            RowPositionState(sectionID: row.int64(0), index: row.int(1), base: row.int(2), storedCount: row.int(3),
                             count: row.int(4), low: row.int(5), high: row.int(6))
        }
    }
}
