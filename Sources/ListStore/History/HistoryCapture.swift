import SQLiteLayer

/// What one write transaction's edits replaced, captured inside the transaction as they happen (the
/// store's connections run without triggers, so nothing else could): the steps of its history entry.
///
/// Each edit's step is derived from its ``ListEdit`` (``record(_:)``), which carries what undo needs
/// (a deleted row's values and neighbours, read where the delete found it). A one-row edit adds one
/// small step; the rows of a deleted section are copied by SQL into `liststore_history_rows` (its edit
/// is recorded before the section goes), so deleting a section of any size costs no memory here.
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

    /// Adds the step (or, for rows appended to every section, the steps) of one edit. A move between
    /// lists has none: its transaction keeps no history.
    func record(_ edit: ListEdit) throws {
        switch edit {
        case .rowsInserted(let runs): for run in runs { rowsInserted(run) }
        case .rowsRestored(let run): try rowsRestored(run)
        case .rowsDeleted(let rows): try rowsDeleted(rows)
        case .rowMoved(let move): try rowMoved(move)
        case .rowUpdated(let update):
            steps.append(.rowUpdated(id: update.id, oldTitle: update.old.title, oldPayload: update.old.payload, title: update.new.title, payload: update.new.payload))
        case .sectionInserted(let section): sectionInserted(section, restored: false)
        case .sectionRestored(let section): sectionInserted(section, restored: true)
        case .sectionsDeleted(let sections): try sectionsDeleted(sections)
        case .sectionMoved(let move):
            guard let old = move.oldNeighbours else { throw Self.missing("section", move.id) }
            steps.append(.sectionMoved(id: move.id, from: move.from, after: old.previous, before: old.next))
        case .sectionRenamed(let id, _, let oldTitle, let title): steps.append(.sectionRenamed(id: id, oldTitle: oldTitle, title: title))
        case .rowTransferred, .sectionTransferred: break
        }
    }

    /// An edit whose primitive did not read what its undo needs, though the transaction keeps history.
    private static func missing(_ what: String, _ id: Int64) -> ListStoreError {
        .corrupt("the edit of \(what) #\(id) lacks what its undo needs")
    }

    // MARK: Rows

    /// The most rows of one insert whose values its step keeps (so that its undo names a row changed
    /// since, and leaves alone one deleted since); a larger insert keeps their ids and digest.
    static let insertValuesKept = 16

    /// Rows inserted into one section by one edit: up to ``insertValuesKept`` with their values, more as
    /// their ids (runs) and the digest of their values, computed from the values in hand (history
    /// record format 2).
    private func rowsInserted(_ run: ListEdit.InsertedRows) {
        if run.rows.count <= Self.insertValuesKept {
            steps.append(.rowsInserted(section: run.section, rows: run.rows.map { HistoryRow(id: $0.id.rawValue, title: $0.title, payload: $0.payload) }))
            return
        }
        var digest = RowDigest()
        for row in run.rows { digest.add(id: row.id.rawValue, title: row.title, payload: row.payload) }
        steps.append(.rowsInsertedRuns(section: run.section, ids: EditEvent.runs(run.rows.map(\.id)), digest: digest.value))
    }

    /// Rows an undo or redo put back into a section with their old ids. The rows
    /// restored into a section the same transaction restored are kept with their values in
    /// `liststore_history_rows`, as a deleted section's are: taking the section back checks them.
    /// Others are recorded as any insert.
    private func rowsRestored(_ run: ListEdit.InsertedRows) throws {
        let section = run.section
        let rows = run.rows.map { HistoryRow(id: $0.id.rawValue, title: $0.title, payload: $0.payload) }
        let ids = run.rows.map(\.id)
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

    /// Rows deleted by one edit: one step per section (in the order the caller first named each), its
    /// rows in index order with their values and neighbours then.
    private func rowsDeleted(_ rows: [ListEdit.DeletedRow]) throws {
        var order: [Int64] = []
        var bySection: [Int64: [DeletedRow]] = [:]
        for row in rows {
            guard let values = row.values, let neighbours = row.neighbours else { throw Self.missing("row", row.id) }
            if bySection[row.section] == nil { order.append(row.section) }
            bySection[row.section, default: []].append(
                DeletedRow(row: HistoryRow(id: row.id, title: values.title, payload: values.payload), index: row.path.row, after: neighbours.previous, before: neighbours.next))
        }
        for section in order {
            steps.append(.rowsDeleted(section: section, rows: (bySection[section] ?? []).sorted { $0.index < $1.index }))
        }
    }

    /// A row moved: where it was, by index and by neighbours.
    private func rowMoved(_ move: ListEdit.MovedRow) throws {
        guard let old = move.oldNeighbours else { throw Self.missing("row", move.id) }
        steps.append(.rowMoved(id: move.id, fromSection: move.source, fromIndex: move.from.row, after: old.previous, before: old.next, toSection: move.target))
    }

    // MARK: Sections

    /// A section inserted (`restored`: with its old id, by an undo or redo).
    private func sectionInserted(_ section: ListEdit.InsertedSection, restored: Bool) {
        if restored { restoredSections[section.id] = steps.count }
        steps.append(.sectionInserted(id: section.id, title: section.title, rows: []))
    }

    /// Sections about to be deleted by one edit (their rows still there): their titles, neighbours and
    /// rows, the rows copied into `liststore_history_rows` by one statement each.
    private func sectionsDeleted(_ doomed: [ListEdit.DeletedSection]) throws {
        var sections: [DeletedSection] = []
        for section in doomed.sorted(by: { $0.index < $1.index }) {
            guard let found = section.details else { throw Self.missing("section", section.id) }
            if found.rowCount > 0 {
                try db.cached(
                    """
                    INSERT INTO liststore_history_rows (entry, section, ord, row_id, title, payload)
                    SELECT ?1, ?2, row_number() OVER (ORDER BY position) - 1, id, title, payload FROM rows WHERE section_id = ?2
                    """
                ).bind([.integer(try entry()), .integer(section.id)]).run()
            }
            sections.append(
                DeletedSection(
                    id: section.id, title: found.title, index: section.index, after: found.neighbours.previous, before: found.neighbours.next,
                    rowCount: found.rowCount))
        }
        steps.append(.sectionsDeleted(sections))
    }
}
