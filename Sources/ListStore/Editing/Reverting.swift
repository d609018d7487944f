import SQLiteLayer

/// Undo and redo inside a write transaction: the steps of a history entry taken back, last first,
/// through the ordinary edits (so the transaction has an ordinary change set, change-log entry and
/// history entry of its own — which is what a redo takes back in turn).
///
/// The rule (UndoAndRedo.md, "When it refuses"): a step is taken back only while what it left is still there.
/// - A title, payload or section title it set must still be the one it set (someone else's later
///   change refuses); one already back at the old value is left alone.
/// - A row or section it inserted is deleted only while it has the values it was inserted with (a row)
///   and holds no rows added since (a section); one already deleted is left alone. The rows of one
///   insert (history record format 2: ids and a digest of their values) go only all together: while
///   every one is there with its values; when some were deleted since, the others cannot be checked
///   and the undo refuses; when all were, there is nothing to take back.
/// - A row or section it deleted comes back with its id, title, payload (a section with all its rows,
///   in order) into the same section, right after the row (section) that was before it, else right
///   before the one that was after it, else at its old index (clamped); refused when its section is
///   gone or its id was taken.
/// - A row or section it moved goes back the same way (next to its old neighbours), from wherever it
///   is now; refused when it or the section it came from is gone, or when another copy of the list
///   moved it since (merged here: its order key carries another replica's stamp, Docs/Merging.md).
///   Refusals name a change another copy made as such.
extension ListTransaction {
    /// How many rows of a deleted section go back per statement batch: the memory a restore holds.
    static let restoreBatch = 1_000

    /// Takes back `steps` of history entry `entry`, last first. Throws ``UndoConflict``.
    func revert(_ steps: [HistoryStep], entry: Int64) throws {
        for step in steps.reversed() {
            switch step {
            case .rowsInserted(_, let rows): try revertInsert(rows)
            case .rowsInsertedRuns(_, let ids, let digest): try revertInsert(ids, digest: digest)
            case .rowsDeleted(let section, let rows):
                // First to last: each row can go back after the one before it, deleted with it.
                for row in rows { try revertDelete(row.row, section: section, index: row.index, after: row.after, before: row.before) }
            case .rowMoved(let id, let fromSection, let fromIndex, let after, let before, _):
                try revertMove(id, fromSection: fromSection, fromIndex: fromIndex, after: after, before: before)
            case .rowUpdated(let id, let oldTitle, let oldPayload, let title, let payload):
                try revertUpdate(id, old: (oldTitle, oldPayload), new: (title, payload))
            case .sectionInserted(let id, let title, let runs): try revertSectionInsert(id, title: title, runs: runs, entry: entry)
            case .sectionsDeleted(let sections):
                for section in sections {
                    try revertSectionDelete(
                        section.id, title: section.title, index: section.index, after: section.after, before: section.before, rowCount: section.rowCount,
                        entry: entry)
                }
            case .sectionMoved(let id, let from, let after, let before): try revertSectionMove(id, from: from, after: after, before: before)
            case .sectionRenamed(let id, let oldTitle, let title): try revertRename(id, old: oldTitle, new: title)
            }
        }
    }

    // MARK: Rows

    /// What changed in a row whose values are not the ones a step left: its title (named), else its payload.
    private static func change(from left: String, to now: String) -> String {
        left == now ? "its payload was changed" : "its title is now \(ListStoreError.excerpt(now))"
    }

    private func values(ofRow id: Int64) throws -> (title: String, payload: String?, section: Int64)? {
        try db.cached("SELECT title, payload, section_id FROM rows WHERE id = ?1").bind([.integer(id)]).first { ($0.text(0), $0.optionalText(1), $0.int64(2)) }
    }

    private func revertInsert(_ rows: [HistoryRow]) throws {
        var doomed: [RowID] = []
        for row in rows {
            guard let now = try values(ofRow: row.id) else { continue }  // deleted since: nothing to take back
            guard now.title == row.title, now.payload == row.payload else {
                throw UndoConflict("row #\(row.id) was changed since (\(Self.change(from: row.title, to: now.title)))")
            }
            doomed.append(RowID(rawValue: row.id))
        }
        if !doomed.isEmpty { try deleteRows(ids: doomed) }
    }

    /// Rows of one insert kept as ids and a ``RowDigest`` (format 2): read back, digested, deleted.
    private func revertInsert(_ runs: [[Int64]], digest: UInt64) throws {
        guard let (ranges, expected) = EditEvent.ranges(runs) else { throw UndoConflict("its history entry is damaged") }
        let read = try db.cached("SELECT id, title, payload FROM rows WHERE id BETWEEN ?1 AND ?2 ORDER BY id")
        var found = RowDigest()
        var present: [RowID] = []
        var missing: Int64?
        for range in ranges {
            var next = range.lowerBound
            try read.bind([.integer(range.lowerBound), .integer(range.upperBound)]).forEachRow { row in
                let id = row.int64(0)
                if missing == nil, id != next { missing = next }
                next = id &+ 1
                found.add(id: id, title: row.text(1), payload: row.optionalText(2))
                present.append(RowID(rawValue: id))
            }
            if missing == nil, next <= range.upperBound { missing = next }
        }
        guard !present.isEmpty else { return }  // every one deleted since: nothing to take back
        if let missing {
            throw UndoConflict(
                "row #\(missing), one of the \(expected) rows it inserted, was deleted since (the others cannot be checked against what it inserted)")
        }
        guard found.value == digest else {
            let first = ranges.first?.lowerBound ?? 0
            if expected == 1 { throw UndoConflict("row #\(first) was changed since (its title or payload)") }
            throw UndoConflict("one of the \(expected) rows it inserted (#\(first) on) was changed since (its title or payload)")
        }
        try deleteRows(ids: present)
    }

    /// The index of row `neighbour` when it is in section `section` and is not `excluding`.
    private func rowIndex(ofNeighbour neighbour: Int64?, inSection section: Int64, excluding: Int64? = nil) throws -> Int? {
        guard let neighbour, neighbour != excluding, try values(ofRow: neighbour)?.section == section else { return nil }
        return try db.location(of: RowID(rawValue: neighbour), list: list).path.row
    }

    private func revertDelete(_ row: HistoryRow, section: Int64, index: Int, after: Int64?, before: Int64?) throws {
        if try values(ofRow: row.id) != nil { throw UndoConflict("row #\(row.id) exists again (an import or a hand edit gave its id to another row)") }
        guard try db.sectionIndex(id: section, list: list) != nil else {
            throw UndoConflict("section #\(section), which row #\(row.id) was in, was deleted or moved to another list since")
        }
        var target = try checkedSection(id: SectionID(rawValue: section))
        let at = try rowIndex(ofNeighbour: after, inSection: section).map { $0 + 1 } ?? rowIndex(ofNeighbour: before, inSection: section) ?? min(index, target.count)
        try restoreRows([row], into: &target, at: at)
    }

    /// Whether the value `column` of element `id` in `table` was last set by another copy of the list (a
    /// stamp of another replica, taken by a merge): a change this file's history did not make.
    private func setOnAnotherCopy(_ column: String, of id: Int64, in table: MergeRegisters.Table) throws -> Bool {
        let stamp = try db.cached("SELECT \(column) FROM \(table.rawValue) WHERE id = ?1").bind([.integer(id)]).first { row -> Int64? in
            column == "order_key" ? (row.blob(0).flatMap(OrderKey.stamp(of:))) : row.int64(0)
        }
        guard let stamp = stamp ?? nil, stamp != 0 else { return false }
        return MergeClock.replica(of: stamp) != (try ReplicaIdentity.number(db))
    }

    /// " on another copy of the list" when `column` of `id` was last set there, else "".
    private func whereChanged(_ column: String, of id: Int64, in table: MergeRegisters.Table) throws -> String {
        try setOnAnotherCopy(column, of: id, in: table) ? " on another copy of the list" : ""
    }

    private func revertMove(_ id: Int64, fromSection: Int64, fromIndex: Int, after: Int64?, before: Int64?) throws {
        guard let now = try values(ofRow: id) else { throw UndoConflict("row #\(id) was deleted since") }
        guard try !setOnAnotherCopy("order_key", of: id, in: .rows) else { throw UndoConflict("row #\(id) was moved on another copy of the list since") }
        guard let sectionIndex = try db.sectionIndex(id: fromSection, list: list) else {
            throw UndoConflict("section #\(fromSection), which row #\(id) came from, was deleted or moved to another list since")
        }
        if let after, try rowIndex(ofNeighbour: after, inSection: fromSection, excluding: id) != nil {
            try moveRow(id: RowID(rawValue: id), after: RowID(rawValue: after))
        } else if let before, try rowIndex(ofNeighbour: before, inSection: fromSection, excluding: id) != nil {
            try moveRow(id: RowID(rawValue: id), before: RowID(rawValue: before))
        } else {
            let rows = try SectionRows.locate(section: sectionIndex, list: list, db, sizes: sizes).count - (now.section == fromSection ? 1 : 0)
            try moveRow(id: RowID(rawValue: id), toSection: SectionID(rawValue: fromSection), at: min(fromIndex, max(rows, 0)))
        }
    }

    private func revertUpdate(_ id: Int64, old: (title: String, payload: String?), new: (title: String, payload: String?)) throws {
        guard let now = try values(ofRow: id) else { throw UndoConflict("row #\(id) was deleted since") }
        if now.title == old.title && now.payload == old.payload { return }  // already as it was
        guard now.title == new.title, now.payload == new.payload else {
            let column = now.title == new.title ? "payload_stamp" : "title_stamp"
            throw UndoConflict("row #\(id) was changed\(try whereChanged(column, of: id, in: .rows)) since (\(Self.change(from: new.title, to: now.title)))")
        }
        try updateRow(id: RowID(rawValue: id), title: old.title, payload: old.payload.map { .set($0) } ?? .remove)
    }

    // MARK: Sections

    private func title(ofSection id: Int64) throws -> (title: String, rows: Int64)? {
        try db.cached("SELECT title, row_count FROM sections WHERE id = ?1").bind([.integer(id)]).first { ($0.text(0), $0.int64(1)) }
    }

    private func revertSectionInsert(_ id: Int64, title: String, runs: [[Int64]], entry: Int64) throws {
        guard let now = try self.title(ofSection: id) else { return }  // deleted since
        guard now.title == title else { throw UndoConflict("section #\(id) was renamed since (to \(ListStoreError.excerpt(now.title)))") }
        // It must hold exactly the rows it came with (none for a new section): others' rows added since are not deleted.
        guard let (ranges, expected) = EditEvent.ranges(runs) else { throw UndoConflict("its history entry is damaged") }
        var found: Int64 = 0
        for range in ranges {
            found +=
                try db.cached("SELECT count(*) FROM rows WHERE section_id = ?1 AND id BETWEEN ?2 AND ?3")
                .bind([.integer(id), .integer(range.lowerBound), .integer(range.upperBound)]).first { $0.int64(0) } ?? 0
        }
        guard found == expected, now.rows == expected else { throw UndoConflict("section #\(id) holds rows added or moved into it since") }
        // Rows an undo or redo restored into it were kept with their values: each must still have them.
        if let changed = try HistoryTable.firstChangedKeptRow(entry: entry, section: id, db) {
            throw UndoConflict("row #\(changed.id) of section #\(id) was changed since (\(changed.what))")
        }
        try deleteSections(ids: [SectionID(rawValue: id)])
    }

    /// The index of section `neighbour` when it exists and is not `excluding`.
    private func sectionIndex(ofSection neighbour: Int64?, excluding: Int64? = nil) throws -> Int? {
        guard let neighbour, neighbour != excluding else { return nil }
        return try db.sectionIndex(id: neighbour, list: list)
    }

    private func revertSectionDelete(_ id: Int64, title: String, index: Int, after: Int64?, before: Int64?, rowCount: Int64, entry: Int64) throws {
        if try self.title(ofSection: id) != nil { throw UndoConflict("section #\(id) exists again (an import or a hand edit gave its id to another section)") }
        guard try HistoryTable.keptRowCount(entry: entry, section: id, db) == rowCount else {
            throw UndoConflict("the rows of section #\(id) kept by its history entry are missing (changed by hand)")
        }
        let taken = try HistoryTable.takenRowIDs(entry: entry, section: id, db)
        if taken.count > 0 { throw UndoConflict("row #\(taken.first ?? 0) of section #\(id) exists again (an import or a hand edit gave its id to another row)") }
        let at = try sectionIndex(ofSection: after).map { $0 + 1 } ?? sectionIndex(ofSection: before) ?? index
        var section = try restoreSection(id: id, title: title, at: at)
        var start: Int64 = 0
        while start < rowCount {
            let rows = try HistoryTable.sectionRows(entry: entry, section: id, from: start, limit: Self.restoreBatch, db)
            guard !rows.isEmpty else { break }
            try restoreRows(rows, into: &section, at: section.count)
            start += Int64(rows.count)
        }
    }

    private func revertSectionMove(_ id: Int64, from: Int, after: Int64?, before: Int64?) throws {
        guard let current = try db.sectionIndex(id: id, list: list) else { throw UndoConflict("section #\(id) was deleted or moved to another list since") }
        guard try !setOnAnotherCopy("order_key", of: id, in: .sections) else {
            throw UndoConflict("section #\(id) was moved on another copy of the list since")
        }
        let count = try verifiedSectionCount()
        let target: Int
        if let a = try sectionIndex(ofSection: after, excluding: id) {
            target = current < a ? a : a + 1
        } else if let b = try sectionIndex(ofSection: before, excluding: id) {
            target = current < b ? b - 1 : b
        } else {
            target = min(from, count - 1)
        }
        try moveSection(id: SectionID(rawValue: id), to: target)
    }

    private func revertRename(_ id: Int64, old: String, new: String) throws {
        guard let now = try self.title(ofSection: id) else { throw UndoConflict("section #\(id) was deleted since") }
        if now.title == old { return }
        guard now.title == new else {
            throw UndoConflict("section #\(id) was renamed\(try whereChanged("title_stamp", of: id, in: .sections)) since (to \(ListStoreError.excerpt(now.title)))")
        }
        try renameSection(id: SectionID(rawValue: id), to: old)
    }
}
