/// Exactly what one mutation changed, in the coordinates UIKit's batch updates expect:
/// deletions, move sources and updates as index paths **before** the mutation; insertions and
/// move destinations **after** it. Shifts of untouched neighbours are implied, never listed, and the
/// rows of an inserted or deleted section are not listed separately.
public struct ChangeSet: Hashable, Sendable {
    /// A section named by its index and stable id.
    public struct SectionChange: Hashable, Sendable {
        /// The section's index (before or after the mutation, depending on the list).
        public let index: Int
        /// The section's stable id.
        public let id: SectionID
        /// A section change.
        package init(index: Int, id: SectionID) {
            self.index = index
            self.id = id
        }
        /// The order of a change set's list: by index, then id.
        package static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.index, lhs.id) < (rhs.index, rhs.id) }
    }

    /// A row named by its index path and stable id.
    public struct RowChange: Hashable, Sendable {
        /// The row's index path (before or after the mutation, depending on the list).
        public let indexPath: ListIndexPath
        /// The row's stable id.
        public let id: RowID
        /// A row change.
        package init(indexPath: ListIndexPath, id: RowID) {
            self.indexPath = indexPath
            self.id = id
        }
        /// The order of a change set's list: by index path (section, then row), then id.
        package static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.indexPath, lhs.id) < (rhs.indexPath, rhs.id) }
    }

    /// A section that moved from `from` (before) to `to` (after).
    public struct SectionMove: Hashable, Sendable {
        /// The index before the mutation.
        public let from: Int
        /// The index after the mutation.
        public let to: Int
        /// The section's stable id.
        public let id: SectionID
        /// A section move.
        package init(from: Int, to: Int, id: SectionID) {
            self.from = from
            self.to = to
            self.id = id
        }
        /// The order of a change set's list: by `from`, then `to`.
        package static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.from, lhs.to) < (rhs.from, rhs.to) }
    }

    /// A section inserted, at its index after the change, with its title and all of its rows: what a
    /// table view needs to draw it without reading the store again.
    public struct SectionInsertion: Hashable, Sendable {
        /// The section's index after the change.
        public let index: Int
        /// The section, with its id, title and rows in order.
        public let section: SectionSnapshot
        /// The section's stable id.
        public var id: SectionID { section.id }
        /// A section insertion.
        package init(index: Int, section: SectionSnapshot) {
            self.index = index
            self.section = section
        }
        /// The order of a change set's list: by index, then id.
        package static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.index, lhs.id) < (rhs.index, rhs.id) }
    }

    /// A section whose header changed, at its index before the change, with its new title.
    public struct SectionUpdate: Hashable, Sendable {
        /// The section's index before the change.
        public let index: Int
        /// The section's stable id.
        public let id: SectionID
        /// The section's title after the change.
        public let title: String
        /// A section update.
        package init(index: Int, id: SectionID, title: String) {
            self.index = index
            self.id = id
            self.title = title
        }
        /// The order of a change set's list: by index, then id.
        package static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.index, lhs.id) < (rhs.index, rhs.id) }
    }

    /// A row inserted (at its index path after the change) or updated (at its index path before the
    /// change), with its values after the change.
    public struct RowValue: Hashable, Sendable {
        /// The row's index path: after the change for an insertion, before it for an update.
        public let indexPath: ListIndexPath
        /// The row as it is after the change: id, title and payload.
        public let row: ListRow
        /// The row's stable id.
        public var id: RowID { row.id }
        /// A row with its values.
        package init(indexPath: ListIndexPath, row: ListRow) {
            self.indexPath = indexPath
            self.row = row
        }
        /// The order of a change set's list: by index path (section, then row), then id.
        package static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.indexPath, lhs.id) < (rhs.indexPath, rhs.id) }
    }

    /// A row that moved from `from` (before) to `to` (after).
    public struct RowMove: Hashable, Sendable {
        /// The index path before the mutation.
        public let from: ListIndexPath
        /// The index path after the mutation.
        public let to: ListIndexPath
        /// The row's stable id.
        public let id: RowID
        /// A row move.
        package init(from: ListIndexPath, to: ListIndexPath, id: RowID) {
            self.from = from
            self.to = to
            self.id = id
        }
        /// The order of a change set's list: by `from`, then `to`.
        package static func precedes(_ lhs: Self, _ rhs: Self) -> Bool { (lhs.from, lhs.to) < (rhs.from, rhs.to) }
    }

    /// Sections removed, at their indexes before the mutation.
    public var deletedSections: [SectionChange] = []
    /// Sections added, at their indexes after the mutation, each with its title and rows.
    public var insertedSections: [SectionInsertion] = []
    /// Sections moved.
    public var movedSections: [SectionMove] = []
    /// Sections whose header changed (to reload), at their indexes before the mutation, with their new titles.
    public var updatedSections: [SectionUpdate] = []
    /// Rows removed, at their index paths before the mutation.
    public var deletedRows: [RowChange] = []
    /// Rows added, at their index paths after the mutation, with their values.
    public var insertedRows: [RowValue] = []
    /// Rows moved.
    public var movedRows: [RowMove] = []
    /// Rows whose content changed (to reload), at their index paths before the mutation, with their new values.
    public var updatedRows: [RowValue] = []

    /// The version of the state right after the commit (or the commits) this change set describes: the
    /// change-log entry of a write, the last entry included in a change set merged from other
    /// connections. ``ListVersion/unversioned`` for a change set built by hand or computed
    /// (``ChangeSet/between(_:_:)`` gives the later snapshot's), and for a write whose
    /// changes no change set describes (``ListStore/write(actionName:tracksChanges:_:)`` with `tracksChanges: false`). A write that changed nothing
    /// gives an empty change set at the version it found.
    public var version: ListVersion = .unversioned

    /// An empty change set.
    package init() {}

    /// True when the mutation changed nothing.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && movedSections.isEmpty && updatedSections.isEmpty
            && deletedRows.isEmpty && insertedRows.isEmpty && movedRows.isEmpty && updatedRows.isEmpty
    }

    /// The same changes with every list sorted, as the store returns them.
    func sorted() -> ChangeSet {
        var copy = self
        copy.deletedSections.sort(by: SectionChange.precedes)
        copy.insertedSections.sort(by: SectionInsertion.precedes)
        copy.movedSections.sort(by: SectionMove.precedes)
        copy.updatedSections.sort(by: SectionUpdate.precedes)
        copy.deletedRows.sort(by: RowChange.precedes)
        copy.insertedRows.sort(by: RowValue.precedes)
        copy.movedRows.sort(by: RowMove.precedes)
        copy.updatedRows.sort(by: RowValue.precedes)
        return copy
    }
}
