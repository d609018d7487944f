/// The change set of one ``ListEdit``: what a table view animates for it, in the edit's own coordinates.
extension ListEdit {
    /// Whether the edit changed nothing (an insert of no rows, a delete of none): it is not counted,
    /// and has neither change set nor events.
    var changesNothing: Bool {
        switch self {
        case .rowsInserted(let runs): runs.allSatisfy(\.rows.isEmpty)
        case .rowsRestored(let run): run.rows.isEmpty
        case .rowsDeleted(let rows): rows.isEmpty
        case .sectionsDeleted(let sections): sections.isEmpty
        case .rowMoved, .rowUpdated, .sectionInserted, .sectionRestored, .sectionMoved, .sectionRenamed, .rowTransferred, .sectionTransferred: false
        }
    }

    /// The change set of the edit as list `list` sees it: the list's side of a move between lists (a
    /// deletion in the list it left, an insertion in the one it reached); every other edit is in one list.
    func changes(forList list: Int64) -> ChangeSet {
        var changes = ChangeSet()
        switch self {
        case .rowsInserted(let runs):
            changes.insertedRows.reserveCapacity(runs.reduce(0) { $0 + $1.rows.count })
            for run in runs { changes.insertedRows += Self.inserted(run) }
        case .rowsRestored(let run):
            changes.insertedRows = Self.inserted(run)
        case .rowsDeleted(let rows):
            changes.deletedRows = rows.map { .init(indexPath: $0.path, id: RowID(rawValue: $0.id)) }.sorted(by: ChangeSet.RowChange.precedes)
        case .rowMoved(let move):
            changes.movedRows = [.init(from: move.from, to: move.to, id: RowID(rawValue: move.id))]
        case .rowUpdated(let update):
            let row = ListRow(id: RowID(rawValue: update.id), title: update.new.title, payload: update.new.payload)
            changes.updatedRows = [.init(indexPath: update.path, row: row)]
        case .sectionInserted(let section), .sectionRestored(let section):
            let snapshot = SectionSnapshot(id: SectionID(rawValue: section.id), title: section.title, rows: [])
            changes.insertedSections = [.init(index: section.index, section: snapshot)]
        case .sectionsDeleted(let sections):
            changes.deletedSections = sections.map { .init(index: $0.index, id: SectionID(rawValue: $0.id)) }.sorted(by: ChangeSet.SectionChange.precedes)
        case .sectionMoved(let move):
            changes.movedSections = [.init(from: move.from, to: move.to, id: SectionID(rawValue: move.id))]
        case .sectionRenamed(let id, let index, _, let title):
            changes.updatedSections = [.init(index: index, id: SectionID(rawValue: id), title: title)]
        case .rowTransferred(let transfer):
            if list == transfer.fromList { changes.deletedRows = [.init(indexPath: transfer.from, id: transfer.row.id)] }
            if list == transfer.toList { changes.insertedRows = [.init(indexPath: transfer.to, row: transfer.row)] }
        case .sectionTransferred(let transfer):
            if list == transfer.fromList { changes.deletedSections = [.init(index: transfer.from, id: transfer.section.id)] }
            if list == transfer.toList { changes.insertedSections = [.init(index: transfer.to, section: transfer.section)] }
        }
        return changes
    }

    /// A run's rows at their index paths after the edit.
    private static func inserted(_ run: InsertedRows) -> [ChangeSet.RowValue] {
        run.rows.enumerated().map { offset, row in
            .init(indexPath: ListIndexPath(section: run.sectionIndex, row: run.at + offset), row: row)
        }
    }
}
