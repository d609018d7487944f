/// One edit of a write transaction as the ``ChangeTracker`` needs it: ids and the edit's own index
/// paths, in the order the edits happened. A transaction's events go into the change log
/// (`liststore_log`), so that observers in other processes can build the same change set; their
/// on-disk form is declared by ``LogRecord``, not by these names.
enum EditEvent: Sendable, Hashable {
    case sectionInserted(id: Int64, index: Int)
    /// Sections deleted by one edit, as `[index, id]` pairs at their indexes before that edit.
    case sectionsDeleted([[Int64]])
    case sectionMoved(id: Int64, from: Int, to: Int)
    case sectionRenamed(id: Int64, index: Int, oldTitle: String)
    /// Rows inserted by one edit into a section, the first at `at`; `ids` as runs of `[first, count]`.
    case rowsInserted(ids: [[Int64]], section: Int64, sectionIndex: Int, at: Int)
    /// Rows deleted by one edit, as `[section index, row index, id, section id]` at their paths before it.
    case rowsDeleted([[Int64]])
    case rowMoved(id: Int64, from: ListIndexPath, source: Int64, to: ListIndexPath, target: Int64)
    case rowUpdated(id: Int64, section: Int64, path: ListIndexPath, oldTitle: String, oldPayload: String?)
    /// A section put back with its old id by an undo or redo (otherwise as ``sectionInserted(id:index:)``).
    case sectionRestored(id: Int64, index: Int)
    /// Rows put back with their old ids by an undo or redo (otherwise as ``rowsInserted(ids:section:sectionIndex:at:)``).
    case rowsRestored(ids: [[Int64]], section: Int64, sectionIndex: Int, at: Int)

    /// Consecutive ids as runs of `[first, count]`: a bulk insert logs a few numbers, not one per row.
    static func runs(_ ids: [RowID]) -> [[Int64]] {
        var runs: [[Int64]] = []
        for id in ids.map(\.rawValue) {
            if let last = runs.last, last[0].addingReportingOverflow(last[1]) == (id, false) {
                runs[runs.count - 1][1] += 1
            } else {
                runs.append([id, 1])
            }
        }
        return runs
    }

    /// The runs of `[first, count]` as ranges of ids, with the number of ids; nil for a run that is not
    /// two numbers, counts nothing or passes the largest id (only a damaged or forged entry has one).
    static func ranges(_ runs: [[Int64]]) -> (ranges: [ClosedRange<Int64>], count: Int64)? {
        var ranges: [ClosedRange<Int64>] = []
        var total: Int64 = 0
        for run in runs {
            guard run.count == 2, run[1] > 0 else { return nil }
            let (last, overflow) = run[0].addingReportingOverflow(run[1] - 1)
            let (sum, totalOverflow) = total.addingReportingOverflow(run[1])
            guard !overflow, !totalOverflow else { return nil }
            ranges.append(run[0]...last)
            total = sum
        }
        return (ranges, total)
    }
}

extension ChangeTracker {
    /// Notes one edit. An event read from the change log is checked first
    /// (``EditEvent/isPlausible(_:)``): what it skips here only a damaged entry has.
    mutating func apply(_ event: EditEvent) {
        switch event {
        case .sectionInserted(let id, let index), .sectionRestored(let id, let index):
            sectionInserted(SectionID(rawValue: id), at: index)
        case .sectionsDeleted(let pairs):
            sectionsDeleted(pairs.filter { $0.count == 2 }.map { ChangeSet.SectionChange(index: Int(truncatingIfNeeded: $0[0]), id: SectionID(rawValue: $0[1])) })
        case .sectionMoved(let id, let from, let to):
            sectionMoved(SectionID(rawValue: id), from: from, to: to)
        case .sectionRenamed(let id, let index, let oldTitle):
            sectionRenamed(SectionID(rawValue: id), at: index, from: oldTitle)
        case .rowsInserted(let runs, let section, let sectionIndex, let at), .rowsRestored(let runs, let section, let sectionIndex, let at):
            guard let (ranges, count) = EditEvent.ranges(runs) else { return }
            rowsInserted(ranges, count: Int(truncatingIfNeeded: count), into: SectionID(rawValue: section), sectionIndex: sectionIndex, at: at)
        case .rowsDeleted(let entries):
            rowsDeleted(
                entries.filter { $0.count == 4 }.map {
                    (
                        ChangeSet.RowChange(indexPath: ListIndexPath(section: Int(truncatingIfNeeded: $0[0]), row: Int(truncatingIfNeeded: $0[1])), id: RowID(rawValue: $0[2])),
                        SectionID(rawValue: $0[3])
                    )
                })
        case .rowMoved(let id, let from, let source, let to, let target):
            rowMoved(RowID(rawValue: id), from: from, in: SectionID(rawValue: source), to: to, in: SectionID(rawValue: target))
        case .rowUpdated(let id, let section, let path, let oldTitle, let oldPayload):
            rowUpdated(RowID(rawValue: id), in: SectionID(rawValue: section), at: path, from: (oldTitle, oldPayload))
        }
    }
}
