import SQLiteLayer

/// What one write transaction's edits replaced, captured inside the transaction as they happen (the
/// store's connections run without triggers, so nothing else could): the steps of its history entry.
///
/// Each edit primitive calls one of these before (deletes, moves) or after (inserts, updates) it
/// changes the file. A one-row edit adds one small step (a delete: the row's values and neighbours,
/// read where the delete found it); the rows of a deleted section are copied by SQL into
/// `liststore_history_rows`, so deleting a section of any size costs no memory here.
final class HistoryCapture {
    private let db: Connection
    private(set) var steps: [HistoryStep] = []
    /// The transaction's history entry, inserted as soon as a step needs its id (a deleted section's
    /// rows point at it); else at the end.
    private(set) var entryID: Int64?
    /// Sections this transaction restored, by id: the index of their step, which collects the rows
    /// restored into them.
    private var restoredSections: [Int64: Int] = [:]
    /// How many rows were kept so far for each section this transaction restored.
    private var restoredRowCounts: [Int64: Int64] = [:]
    /// The steps (indexes) that record rows an undo or redo put back into a section it did not restore.
    private var restoredSteps: Set<Int> = []

    init(_ db: Connection) { self.db = db }

    /// The entry's id, inserting it (to be completed at the end) when it is not there yet.
    private func entry() throws -> Int64 {
        if let entryID { return entryID }
        let id = try HistoryTable.insertPlaceholder(db)
        entryID = id
        return id
    }

    // MARK: Rows

    /// The most rows of one insert whose values its step keeps (so that its undo names a row changed
    /// since, and leaves alone one deleted since); a larger insert keeps their ids and digest.
    static let insertValuesKept = 16

    /// After rows were inserted into section `section` by one edit: up to ``insertValuesKept`` with
    /// their values, more as their ids (runs) and the digest of their values, computed from the values
    /// in hand (history record format 2).
    func rowsInserted(section: Int64, ids: [RowID], rows: [NewRow]) {
        if rows.count <= Self.insertValuesKept {
            steps.append(.rowsInserted(section: section, rows: zip(ids, rows).map { HistoryRow(id: $0.rawValue, title: $1.title, payload: $1.payload) }))
            return
        }
        var digest = RowDigest()
        for (id, row) in zip(ids, rows) { digest.add(id: id.rawValue, title: row.title, payload: row.payload) }
        steps.append(.rowsInsertedRuns(section: section, ids: EditEvent.runs(ids), digest: digest.value))
    }

    /// After an undo or redo put rows back into section `section` with their old ids. The rows
    /// restored into a section the same transaction restored are kept with their values in
    /// `liststore_history_rows`, as a deleted section's are: taking the section back checks them.
    /// Others are recorded as any insert.
    func rowsRestored(section: Int64, rows: [HistoryRow]) throws {
        let ids = rows.map { RowID(rawValue: $0.id) }
        if let step = restoredSections[section], case .sectionInserted(let id, let title, let runs) = steps[step] {
            steps[step] = .sectionInserted(id: id, title: title, rows: runs + EditEvent.runs(ids))
            let keep = try db.cached("INSERT INTO liststore_history_rows (entry, section, ord, row_id, title, payload) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            let entry = try entry()
            var ord = restoredRowCounts[section, default: 0]
            for row in rows {
                try keep.bind([.integer(entry), .integer(section), .integer(ord), .integer(row.id), .text(row.title), .optionalText(row.payload)]).run()
                ord += 1
            }
            restoredRowCounts[section] = ord
            return
        }
        // Rows an undo puts back one by one (each after the one before it) make one step with the step
        // before when that one put rows back into the same section (the digest is a sum).
        var values: [HistoryRow]? = rows
        var runs = EditEvent.runs(ids)
        var digest = RowDigest()
        for row in rows { digest.add(id: row.id, title: row.title, payload: row.payload) }
        if restoredSteps.contains(steps.count - 1), let last = steps.last {
            switch last {
            case .rowsInserted(section, let earlier):
                values = earlier + rows
                runs = Self.joined(EditEvent.runs(earlier.map { RowID(rawValue: $0.id) }), runs)
                for row in earlier { digest.add(id: row.id, title: row.title, payload: row.payload) }
                steps.removeLast()
            case .rowsInsertedRuns(section, let earlier, let sum):
                values = nil
                runs = Self.joined(earlier, runs)
                digest.add(digest: sum, count: EditEvent.ranges(earlier)?.count ?? 0)
                steps.removeLast()
            default: break
            }
        }
        restoredSteps.insert(steps.count)
        if let values, values.count <= Self.insertValuesKept { return steps.append(.rowsInserted(section: section, rows: values)) }
        steps.append(.rowsInsertedRuns(section: section, ids: runs, digest: digest.value))
    }

    /// Runs of ids followed by more, the last and the first joined when they are consecutive.
    private static func joined(_ runs: [[Int64]], _ more: [[Int64]]) -> [[Int64]] {
        guard let last = runs.last, let first = more.first, last.count == 2, first.count == 2,
            last[0].addingReportingOverflow(last[1]) == (first[0], false), case (let count, false) = last[1].addingReportingOverflow(first[1])
        else { return runs + more }
        return runs.dropLast() + [[last[0], count]] + more.dropFirst()
    }

    /// Before rows of section `section` are deleted: their values and their neighbours then, as the
    /// look-up that found them read them (``SectionRows/departingRows(at:)``).
    func rowsDeleting(_ departing: [DepartingRow], section: Int64) {
        let rows = departing.sorted { $0.place.index < $1.place.index }.map {
            DeletedRow(row: HistoryRow(id: $0.place.id, title: $0.title, payload: $0.payload), index: $0.place.index, after: $0.previous, before: $0.next)
        }
        steps.append(.rowsDeleted(section: section, rows: rows))
    }

    /// Before the row at `place` of section `fromSection` moves into `toSection`.
    func rowMoving(_ place: RowPlace, fromSection: Int64, toSection: Int64) throws {
        let rows = RowBlocks(sectionID: fromSection, db: db)
        steps.append(
            .rowMoved(
                id: place.id, fromSection: fromSection, fromIndex: place.index, after: try rows.rowBefore(place.position),
                before: try rows.rowAfter(place.position), toSection: toSection))
    }

    /// After a row's title or payload changed.
    func rowUpdated(_ id: Int64, from old: (title: String, payload: String?), to new: (title: String, payload: String?)) {
        steps.append(.rowUpdated(id: id, oldTitle: old.title, oldPayload: old.payload, title: new.title, payload: new.payload))
    }

    // MARK: Sections

    /// After a section was inserted (`restored`: with its old id, by an undo).
    func sectionInserted(_ id: Int64, title: String, restored: Bool = false) {
        if restored { restoredSections[id] = steps.count }
        steps.append(.sectionInserted(id: id, title: title, rows: []))
    }

    /// Before sections are deleted (`[index, id]` each): their titles, neighbours and rows, the rows
    /// copied into `liststore_history_rows` by one statement each.
    func sectionsDeleting(_ doomed: [(index: Int, id: Int64)]) throws {
        let read = try db.cached(
            """
            SELECT s.title, s.row_count,
                   (SELECT id FROM sections WHERE list_id = s.list_id AND position = s.position - 1),
                   (SELECT id FROM sections WHERE list_id = s.list_id AND position = s.position + 1)
            FROM sections AS s WHERE s.id = ?1
            """)
        var sections: [DeletedSection] = []
        for section in doomed.sorted(by: { $0.index < $1.index }) {
            guard
                let found = try read.bind([.integer(section.id)]).first({
                    (title: $0.text(0), count: $0.int64(1), after: $0.isNull(2) ? nil : $0.int64(2), before: $0.isNull(3) ? nil : $0.int64(3))
                })
            else { throw ListStoreError.unknownSection(SectionID(rawValue: section.id)) }
            if found.count > 0 {
                try db.cached(
                    """
                    INSERT INTO liststore_history_rows (entry, section, ord, row_id, title, payload)
                    SELECT ?1, ?2, row_number() OVER (ORDER BY position) - 1, id, title, payload FROM rows WHERE section_id = ?2
                    """
                ).bind([.integer(try entry()), .integer(section.id)]).run()
            }
            sections.append(DeletedSection(id: section.id, title: found.title, index: section.index, after: found.after, before: found.before, rowCount: found.count))
        }
        steps.append(.sectionsDeleted(sections))
    }

    /// Before the section `id` moves from index `from`.
    func sectionMoving(_ id: Int64, from: Int) throws {
        let neighbours = try db.cached(
            """
            SELECT (SELECT id FROM sections WHERE list_id = (SELECT list_id FROM sections WHERE id = ?2) AND position = ?1 - 1),
                   (SELECT id FROM sections WHERE list_id = (SELECT list_id FROM sections WHERE id = ?2) AND position = ?1 + 1)
            """
        ).bind([.int(from), .integer(id)]).first { ($0.isNull(0) ? nil : $0.int64(0), $0.isNull(1) ? nil : $0.int64(1)) }
        steps.append(.sectionMoved(id: id, from: from, after: neighbours?.0, before: neighbours?.1))
    }

    /// After a section was renamed.
    func sectionRenamed(_ id: Int64, from old: String, to title: String) {
        steps.append(.sectionRenamed(id: id, oldTitle: old, title: title))
    }
}
