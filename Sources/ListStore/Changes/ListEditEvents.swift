/// The change-log events of one ``ListEdit``: what observers in other processes replay to build its
/// change set (their on-disk form is ``LogRecord``'s).
extension ListEdit {
    /// The events of the edit as list `list` sees it (its side of a move between lists).
    func logEvents(forList list: Int64) -> [EditEvent] {
        switch self {
        case .rowsInserted(let runs):
            return runs.map {
                .rowsInserted(ids: EditEvent.runs($0.rows.map(\.id)), section: $0.section, sectionIndex: $0.sectionIndex, at: $0.at)
            }
        case .rowsRestored(let run):
            return [.rowsRestored(ids: EditEvent.runs(run.rows.map(\.id)), section: run.section, sectionIndex: run.sectionIndex, at: run.at)]
        case .rowsDeleted(let rows):
            return [.rowsDeleted(rows.map { [Int64($0.path.section), Int64($0.path.row), $0.id, $0.section] })]
        case .rowMoved(let move):
            return [.rowMoved(id: move.id, from: move.from, source: move.source, to: move.to, target: move.target)]
        case .rowUpdated(let update):
            return [.rowUpdated(id: update.id, section: update.section, path: update.path, oldTitle: update.old.title, oldPayload: update.old.payload)]
        case .sectionInserted(let section):
            return [.sectionInserted(id: section.id, index: section.index)]
        case .sectionRestored(let section):
            return [.sectionRestored(id: section.id, index: section.index)]
        case .sectionsDeleted(let sections):
            return [.sectionsDeleted(sections.map { [Int64($0.index), $0.id] })]
        case .sectionMoved(let move):
            return [.sectionMoved(id: move.id, from: move.from, to: move.to)]
        case .sectionRenamed(let id, let index, let oldTitle, _):
            return [.sectionRenamed(id: id, index: index, oldTitle: oldTitle)]
        case .rowTransferred(let transfer):
            var events: [EditEvent] = []
            if list == transfer.fromList {
                events.append(.rowsDeleted([[Int64(transfer.from.section), Int64(transfer.from.row), transfer.row.id.rawValue, transfer.source]]))
            }
            if list == transfer.toList {
                events.append(.rowsInserted(ids: EditEvent.runs([transfer.row.id]), section: transfer.target, sectionIndex: transfer.to.section, at: transfer.to.row))
            }
            return events
        case .sectionTransferred(let transfer):
            var events: [EditEvent] = []
            if list == transfer.fromList { events.append(.sectionsDeleted([[Int64(transfer.from), transfer.section.id.rawValue]])) }
            if list == transfer.toList { events.append(.sectionInserted(id: transfer.section.id.rawValue, index: transfer.to)) }
            return events
        }
    }
}
