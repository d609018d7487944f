import SQLiteLayer

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

    /// The schema version of the file (`PRAGMA user_version`); older than the version this library
    /// writes until the first write migrates it, 0 for an empty file.
    public func fileSchemaVersion() throws -> Int {
        try withReadTransaction { db in try Migrator.version(of: db) }
    }

    /// Checks everything edits rely on, reading the whole file: SQLite's own integrity and foreign-key
    /// checks, the schema, section positions `0..m-1`, row indexes `0..n-1` and the recorded count and
    /// base of every section, rows whose section is gone, titles and payloads that reads, edits or an
    /// export and import could not carry (empty, NUL, invalid UTF-8, invalid JSON), and ids that have
    /// run out, and a change log observers could not trust (its state row deleted or stuck, entries
    /// deleted or not what ListStore writes), payload-field index entries that differ from the payloads, and,
    /// when the file has it, an index of titles whose words differ from the titles (compared word by word
    /// through a temporary index: about 12 s more at 1,000,000 rows). Returns every problem found (empty when the store is sound). A file older than this
    /// build's schema gets only the checks its schema allows.
    public func checkInvariants() throws -> [IntegrityProblem] {
        try withReadTransaction { db in
            let version = try Migrator.version(of: db)
            var problems: [IntegrityProblem] = []
            for difference in try Schema.differences(in: db, version: version) {
                problems.append(
                    IntegrityProblem(
                        "schema: \(difference)", isRepairable: false,
                        remedy: "undo that change in the sqlite3 shell, or restore a backup"))
            }
            for message in try Self.integrityCheck(db) where message != "ok" {
                problems.append(
                    IntegrityProblem(
                        "integrity_check: \(message)", isRepairable: false,
                        remedy: "recover the file with `sqlite3 FILE .recover` or restore a backup"))
            }
            // A damaged file cannot be trusted to answer the finer questions below, nor can a file
            // without the current schema's columns.
            guard problems.isEmpty, version == Schema.migrator.latestVersion else { return problems }
            problems += try StoreDamage.orphans(db).map(\.problem)
            problems += try ListDamage.problems(db)
            for list in try ListDamage.listIDs(db) {
                let order = try SectionOrderState.counted(db, list: list)
                if order.isDamaged {
                    problems.append(
                        IntegrityProblem(
                            "section positions\(try ListDamage.inList(list, db)) are not 0…\(order.count - 1): they run from \(order.low) to \(order.high)"))
                }
            }
            for wrong in try ListDamage.wrongSectionCounts(db) {
                problems.append(
                    IntegrityProblem(
                        "section count\(try ListDamage.inList(wrong.list, db)): the list records \(wrong.recorded) sections but has \(wrong.counted)"))
            }
            problems += try OrphanExtents.problems(db)
            for section in try RowPositionState.damaged(db) { problems += section.problems }
            problems += try ValueDamage.scan(db)
            problems += try IDExhaustion.problems(db)
            problems += try ChangeLogDamage.problems(db)
            problems += try PayloadIndexDamage.problems(db)
            return problems
        }
    }
}
