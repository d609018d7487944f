import SQLiteLayer

/// Builds the one change set of a write transaction that made several edits: deletions, move sources
/// and updates in the coordinates before the transaction, insertions and move targets after it, with
/// what UIKit cannot express in one batch (a section moved or renamed whose rows also changed, a row
/// moved and changed) turned into a delete and an insert.
///
/// Each edit reports what it did, by id and by its own index paths. The tracker notes, for every
/// section and row an edit touches first, where it was before the transaction (through ``OriginMap``s),
/// and at the end reads where each touched one is now. Its cost follows the edits, not the store.
struct ChangeTracker {
    private struct SectionRecord {
        /// Index before the transaction; nil for a section the transaction created.
        var before: Int?
        /// The title before the transaction's first rename; a section renamed back is not updated.
        var originalTitle: String?
        var renamed = false
        var moved = false
        var rowsChanged = false
    }

    private struct RowRecord {
        /// Index path before the transaction; nil for a row the transaction created.
        var before: ListIndexPath?
        var beforeSection: SectionID?
        /// Title and payload before the transaction's first update; a row changed back is not updated.
        var original: (title: String, payload: String?)?
        var updated = false
        var moved = false
    }

    private var sectionOrigins = OriginMap()
    private var rowOrigins: [SectionID: OriginMap] = [:]
    private var sections: [SectionID: SectionRecord] = [:]
    private var rows: [RowID: RowRecord] = [:]
    /// The ids of rows the transaction inserted, as runs: kept as ranges, not one record per id, so that
    /// what an insertion costs follows the rows that exist at the end, never the numbers an entry claims.
    private var insertedRuns: [ClosedRange<Int64>] = []

    // MARK: What the edits report, in their own coordinates, in the order they happen.

    mutating func sectionInserted(_ id: SectionID, at index: Int) {
        sectionOrigins.insert(count: 1, at: index)
        sections[id] = SectionRecord(before: nil)
    }

    /// Sections deleted by one edit, at their indexes before that edit.
    mutating func sectionsDeleted(_ deleted: [ChangeSet.SectionChange]) {
        for section in deleted { touchSection(section.id, at: section.index) }
        for section in deleted.sorted(by: { $0.index > $1.index }) { sectionOrigins.remove(at: section.index) }
    }

    mutating func sectionMoved(_ id: SectionID, from: Int, to: Int) {
        touchSection(id, at: from)
        sections[id]?.moved = true
        sectionOrigins.remove(at: from)
        sectionOrigins.insert(count: 1, at: to)
    }

    mutating func sectionRenamed(_ id: SectionID, at index: Int, from title: String?) {
        touchSection(id, at: index)
        if sections[id]?.renamed == false { sections[id]?.originalTitle = title }
        sections[id]?.renamed = true
    }

    /// `count` rows inserted by one edit into section `section` (now at `sectionIndex`), the first at
    /// `index`, their ids in the runs `ids`. A later edit of one of them finds it where the transaction
    /// placed it, so it counts as created there too.
    mutating func rowsInserted(_ ids: [ClosedRange<Int64>], count: Int, into section: SectionID, sectionIndex: Int, at index: Int) {
        touchSection(section, at: sectionIndex)
        sections[section]?.rowsChanged = true
        rowOrigins[section]?.insert(count: count, at: index)
        insertedRuns += ids
    }

    /// Rows deleted by one edit, at their index paths before that edit, with their sections' ids.
    mutating func rowsDeleted(_ deleted: [(row: ChangeSet.RowChange, section: SectionID)]) {
        for entry in deleted { touchRow(entry.row.id, in: entry.section, at: entry.row.indexPath) }
        for entry in deleted.sorted(by: { $0.row.indexPath.row > $1.row.indexPath.row }) {
            sections[entry.section]?.rowsChanged = true
            rowOrigins[entry.section]?.remove(at: entry.row.indexPath.row)
        }
    }

    mutating func rowMoved(_ id: RowID, from: ListIndexPath, in source: SectionID, to: ListIndexPath, in target: SectionID) {
        touchRow(id, in: source, at: from)
        rows[id]?.moved = true
        sections[source]?.rowsChanged = true
        rowOrigins[source]?.remove(at: from.row)
        // A row move leaves the section order as it is: `to.section` is the target's index now.
        touchSection(target, at: to.section)
        sections[target]?.rowsChanged = true
        rowOrigins[target]?.insert(count: 1, at: to.row)
    }

    mutating func rowUpdated(_ id: RowID, in section: SectionID, at path: ListIndexPath, from original: (title: String, payload: String?)?) {
        touchRow(id, in: section, at: path)
        if rows[id]?.updated == false { rows[id]?.original = original }
        rows[id]?.updated = true
        sections[section]?.rowsChanged = true
    }

    /// Notes where a section the transaction has not touched yet was before it.
    private mutating func touchSection(_ id: SectionID, at index: Int) {
        guard sections[id] == nil else { return }
        sections[id] = SectionRecord(before: sectionOrigins.origin(of: index))
        rowOrigins[id] = OriginMap()
    }

    /// Notes where a row the transaction has not touched yet was before it.
    private mutating func touchRow(_ id: RowID, in section: SectionID, at path: ListIndexPath) {
        touchSection(section, at: path.section)
        guard rows[id] == nil else { return }
        let sectionBefore = sections[section]?.before
        let rowBefore = rowOrigins[section]?.origin(of: path.row)
        rows[id] = RowRecord(before: sectionBefore.flatMap { s in rowBefore.map { ListIndexPath(section: s, row: $0) } }, beforeSection: section)
    }

    // MARK: The change set, read against the store at the end of the transaction.

    /// `list` is the list whose change set this is: a section or row now in another list is gone from it.
    func changes(_ db: Connection, list: Int64) throws -> ChangeSet {
        var changes = ChangeSet()
        var gone: Set<SectionID> = []  // deleted, or replaced: their rows are not listed in before-coordinates
        var arrived: Set<SectionID> = []  // inserted, or replaced: their rows are not listed in after-coordinates
        for (id, var record) in sections {
            // Where the section is now and its title, in one look-up; nil when it is gone.
            let stored = try db.cached("SELECT position, title FROM sections WHERE id = ?1 AND list_id = ?2").bind([.integer(id.rawValue), .integer(list)])
                .first { (position: $0.int(0), title: $0.text(1)) }
            let after = stored?.position
            if record.renamed, let original = record.originalTitle, stored?.title == original { record.renamed = false }
            switch (record.before, after) {
            case (nil, nil):
                break
            case (nil, let after?):
                changes.insertedSections.append(.init(index: after, section: try Self.section(id, db)))
                arrived.insert(id)
            case (let before?, nil):
                changes.deletedSections.append(.init(index: before, id: id))
                gone.insert(id)
            case (let before?, let after?):
                if ChangeSet.mustReplaceSection(moved: record.moved, renamed: record.renamed, rowsChanged: record.rowsChanged) {
                    changes.deletedSections.append(.init(index: before, id: id))
                    changes.insertedSections.append(.init(index: after, section: try Self.section(id, db)))
                    gone.insert(id)
                    arrived.insert(id)
                } else if record.moved {
                    changes.movedSections.append(.init(from: before, to: after, id: id))
                } else if record.renamed {
                    changes.updatedSections.append(.init(index: before, id: id, title: stored?.title ?? ""))
                }
            }
        }
        // Inserted rows no later edit touched: those that still exist arrive where they are now.
        for found in try Self.existingRows(in: insertedRuns, list: list, db) where rows[found.row.id] == nil && !arrived.contains(found.section) {
            changes.insertedRows.append(.init(indexPath: found.path, row: found.row))
        }
        for (id, var record) in rows {
            let after: (path: ListIndexPath, section: SectionID, row: ListRow)?
            do {
                let found = try db.location(of: id, list: list)
                after = (found.path, SectionID(rawValue: found.section), try ListReader.row(id: id.rawValue, db))
            } catch let error as ListStoreError {
                switch error.reason {
                case .unknownRow, .rowInAnotherList: after = nil
                default: throw error
                }
            }
            if record.updated, let original = record.original, let now = after?.row,
                now.title == original.title && now.payload == original.payload
            {
                record.updated = false
            }
            let landsInListedSection = after.map { !arrived.contains($0.section) } ?? false
            guard let before = record.before, let beforeSection = record.beforeSection, !gone.contains(beforeSection) else {
                // Created by the transaction, or its section left the list: only its arrival can be listed.
                if let after, landsInListedSection { changes.insertedRows.append(.init(indexPath: after.path, row: after.row)) }
                continue
            }
            guard let after, landsInListedSection else {
                changes.deletedRows.append(.init(indexPath: before, id: id))
                continue
            }
            if record.moved || after.section != beforeSection {
                if record.updated {
                    changes.deletedRows.append(.init(indexPath: before, id: id))
                    changes.insertedRows.append(.init(indexPath: after.path, row: after.row))
                } else {
                    changes.movedRows.append(.init(from: before, to: after.path, id: id))
                }
            } else if record.updated {
                changes.updatedRows.append(.init(indexPath: before, row: after.row))
            }
        }
        return changes.sorted()
    }

    /// The rows that exist now with an id in one of `runs`, each once, in ascending order of id, where
    /// they are and with their values (overlapping runs are merged first, so the look-ups never exceed
    /// the rows there are, whatever the runs claim).
    private static func existingRows(in runs: [ClosedRange<Int64>], list: Int64, _ db: Connection) throws -> [(path: ListIndexPath, section: SectionID, row: ListRow)] {
        var merged: [ClosedRange<Int64>] = []
        for run in runs.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, run.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, run.upperBound)
            } else {
                merged.append(run)
            }
        }
        var found: [(path: ListIndexPath, section: SectionID, row: ListRow)] = []
        let query = try db.cached(
            """
            SELECT s.position, r.position, s.id, r.id, r.title, r.payload
            FROM rows AS r CROSS JOIN sections AS s ON s.id = r.section_id WHERE r.id BETWEEN ?1 AND ?2 AND s.list_id = ?3 ORDER BY r.id
            """)  // CROSS JOIN: the rows by id first; SQLite's planner would otherwise read the list's every row by section
        var rows: [(section: Int, position: Int, sectionID: Int64, row: ListRow)] = []
        for run in merged {
            try query.bind([.integer(run.lowerBound), .integer(run.upperBound), .integer(list)]).forEachRow {
                rows.append(($0.int(0), $0.int(1), $0.int64(2), ListRow(id: RowID(rawValue: $0.int64(3)), title: $0.text(4), payload: $0.optionalText(5))))
            }
        }
        for row in rows {
            let place = try RowBlocks.place(ofRow: row.row.id.rawValue, db)?.place
            found.append((ListIndexPath(section: row.section, row: place?.index ?? ListIndexPath.noRow), SectionID(rawValue: row.sectionID), row.row))
        }
        return found
    }

    /// An inserted section as it is now: its title and its rows in order.
    private static func section(_ id: SectionID, _ db: Connection) throws -> SectionSnapshot {
        let title = try db.scalarText("SELECT title FROM sections WHERE id = ?1", [.integer(id.rawValue)]) ?? ""
        let rows = try db.cached("SELECT id, title, payload FROM rows WHERE section_id = ?1 ORDER BY position").bind([.integer(id.rawValue)])
            .map { ListRow(id: RowID(rawValue: $0.int64(0)), title: $0.text(1), payload: $0.optionalText(2)) }
        return SectionSnapshot(id: id, title: title, rows: rows)
    }
}
