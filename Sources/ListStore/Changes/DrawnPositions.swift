/// Where a place drawn at one version is after later edits: a row, a section, or a gap between rows
/// or sections (where an insert or a move's target goes), followed through edit events in order.
///
/// A gap stays right before the row (or section) that was drawn below it — at the end of the section
/// (or list) for the last gap — so rows inserted at that very place since land before it: the gap keeps
/// its neighbours whenever they survive, and two inserts at one drawn gap keep their order. When the row
/// below moves away or is deleted, the gap stays where it is — after the row drawn above it — rather
/// than following a neighbour that left.
enum DrawnPositions {
    /// What became of a drawn place.
    enum Fate<Place: Equatable>: Equatable {
        /// It is at `Place` now.
        case at(Place)
        /// The row was deleted (a row's fate only).
        case rowDeleted(RowID)
        /// The section (of the row, or the section itself) was deleted.
        case sectionDeleted(SectionID)
        /// An event that cannot be followed (only a damaged change-log entry has one).
        case unreadable
    }

    /// A drawn section (or section gap, when `gap`) followed through events, with how many sections
    /// were added since (negative for removed), to check the drawn index against the drawn count.
    struct Section {
        var index: Int
        let gap: Bool
        var sectionsAdded = 0

        init(_ index: Int, gap: Bool) {
            self.index = index
            self.gap = gap
        }

        /// After `event`; the section's fate when it ends here.
        mutating func follow(_ event: EditEvent) -> Fate<Int>? {
            switch event {
            case .sectionInserted(_, let at), .sectionRestored(_, let at):
                sectionsAdded += 1
                if at <= index { index += 1 }
            case .sectionsDeleted(let pairs):
                // Loops, not filters: a long transaction's own edits are followed once per drawn path.
                sectionsAdded -= pairs.count
                var above = 0
                for pair in pairs where pair.count == 2 {
                    if !gap && pair[0] == Int64(index) { return .sectionDeleted(SectionID(rawValue: pair[1])) }
                    if pair[0] < Int64(index) { above += 1 }
                }
                index -= above
            case .sectionMoved(_, let from, let to):
                if !gap && from == index {
                    index = to
                } else {
                    if from < index { index -= 1 }
                    if to <= index { index += 1 }
                }
            case .sectionRenamed, .rowsInserted, .rowsRestored, .rowsDeleted, .rowMoved, .rowUpdated:
                break
            }
            return nil
        }
    }

    /// A drawn row (or row gap, when `gap`) followed through events, with its section and how many rows
    /// that section gained since (negative for lost), to check the drawn index against the drawn count.
    struct Row {
        var section: Section
        var row: Int
        let gap: Bool
        var rowsAdded = 0
        /// The row's id, once an event named it (a move): a section deleted after the row moved into it
        /// deleted the row.
        var id: RowID?

        init(_ path: ListIndexPath, gap: Bool) {
            section = Section(path.section, gap: false)
            row = path.row
            self.gap = gap
        }

        var path: ListIndexPath { ListIndexPath(section: section.index, row: row) }

        /// After `event`; the row's fate when it ends here.
        mutating func follow(_ event: EditEvent) -> Fate<ListIndexPath>? {
            switch event {
            case .rowsInserted(let runs, _, let sectionIndex, let at), .rowsRestored(let runs, _, let sectionIndex, let at):
                guard sectionIndex == section.index else { return nil }
                guard let count = EditEvent.ranges(runs)?.count, let added = Int(exactly: count) else { return .unreadable }
                rowsAdded += added
                if at <= row { row += added }
            case .rowsDeleted(let entries):
                var here = 0
                var above = 0
                for entry in entries where entry.count == 4 && entry[0] == Int64(section.index) {
                    if !gap && entry[1] == Int64(row) { return .rowDeleted(RowID(rawValue: entry[2])) }
                    here += 1
                    if entry[1] < Int64(row) { above += 1 }
                }
                rowsAdded -= here
                row -= above
            case .rowMoved(let movedID, let from, _, let to, _):
                if !gap && from == path {
                    // It leaves its section for another (a row move keeps the section order): follow it there.
                    id = RowID(rawValue: movedID)
                    if to.section != section.index { section.index = to.section }
                    row = to.row
                    rowsAdded = 0  // the count check is of the drawn section, which this row has left
                    return nil
                }
                if from.section == section.index {
                    rowsAdded -= 1
                    if from.row < row { row -= 1 }
                }
                if to.section == section.index {
                    rowsAdded += 1
                    if to.row <= row { row += 1 }
                }
            case .sectionInserted, .sectionRestored, .sectionsDeleted, .sectionMoved:
                switch section.follow(event) {
                case .sectionDeleted(let sectionID): return id.map { .rowDeleted($0) } ?? .sectionDeleted(sectionID)
                default: break
                }
            case .sectionRenamed, .rowUpdated:
                break
            }
            return nil
        }
    }
}
