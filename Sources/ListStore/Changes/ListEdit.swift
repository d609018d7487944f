/// One edit of a write transaction, described once: what it did, by stable ids, and what it was
/// anchored to. Every edit primitive builds exactly one and hands it to `ListTransaction.record(_:)`;
/// the three things the store keeps of an edit are derived from it, each in one place: the change set
/// a table view animates (``changes(forList:)``), the change-log events observers in other processes
/// replay (``logEvents(forList:)``) and the step undo takes back (`HistoryCapture.record(_:)`).
///
/// Ids here are the rows' and sections' own (never positions alone), and each insertion or move names
/// its ``Anchor``, so that a later version can send an edit to another replica and apply it there
/// against that replica's state; nothing does so yet. Index paths are the edit's own: before it for
/// what left, after it for what arrived.
///
/// What only undo needs (a deleted row's values and neighbours, a moving row's or section's old
/// neighbours) is read by the primitive before it writes, and only when the transaction keeps history;
/// it is nil otherwise. A deleted section's rows are not carried at all: the history copies them by SQL
/// from the file (``sectionsDeleted(_:)`` is recorded before the sections go), so deleting a section of
/// a million rows costs no memory here.
enum ListEdit: Sendable, Hashable {
    /// New rows (new ids) inserted, one run per section: several for `appendRowToEverySection(_:)`.
    case rowsInserted([InsertedRows])
    /// Rows put back with their old ids by an undo or redo (one run).
    case rowsRestored(InsertedRows)
    /// Rows deleted by one edit, in the order the caller named them.
    case rowsDeleted([DeletedRow])
    /// One row moved, within its section or into another of the same list.
    case rowMoved(MovedRow)
    /// A row's title and/or payload changed.
    case rowUpdated(UpdatedRow)
    /// An empty section inserted with a new id.
    case sectionInserted(InsertedSection)
    /// A section put back, empty, with its old id by an undo or redo (its rows follow as ``rowsRestored(_:)``).
    case sectionRestored(InsertedSection)
    /// Sections deleted (with their rows) by one edit, in the order the caller named them.
    case sectionsDeleted([DeletedSection])
    /// A section moved (with its rows) to another index of its list.
    case sectionMoved(MovedSection)
    /// A section's title changed.
    case sectionRenamed(id: Int64, index: Int, oldTitle: String, title: String)
    /// A row moved from one list into another, keeping its id and values.
    case rowTransferred(TransferredRow)
    /// A section moved, with its rows, from one list into another, keeping its id.
    case sectionTransferred(TransferredSection)

    /// Where inserted or moved rows went, by what was next to them there.
    enum Anchor: Sendable, Hashable {
        /// First in the section.
        case sectionStart
        /// Last in the section.
        case sectionEnd
        /// Right after the row with this id.
        case afterRow(Int64)
    }

    /// The ids just before and after a row or section (nil: none, it was first or last).
    struct Neighbours: Sendable, Hashable {
        let previous: Int64?
        let next: Int64?
    }

    /// Rows inserted into one section by one edit, the first at row index `at`, in order.
    struct InsertedRows: Sendable, Hashable {
        let section: Int64
        let sectionIndex: Int
        let at: Int
        let anchor: Anchor
        /// The rows with their ids and values, in order.
        let rows: [ListRow]
    }

    /// A row deleted, at its index path before the edit.
    struct DeletedRow: Sendable, Hashable {
        let id: Int64
        let path: ListIndexPath
        let section: Int64
        /// Its title and payload then, when the transaction keeps history.
        let values: Values?
        /// Its neighbours then, when the transaction keeps history.
        let neighbours: Neighbours?
    }

    /// A row's title and payload.
    struct Values: Sendable, Hashable {
        let title: String
        let payload: String?
    }

    /// A row moved from `from` in section `source` to `to` (after the move) in section `target`.
    struct MovedRow: Sendable, Hashable {
        let id: Int64
        let from: ListIndexPath
        let source: Int64
        let to: ListIndexPath
        let target: Int64
        let anchor: Anchor
        /// Its neighbours before the move, when the transaction keeps history.
        let oldNeighbours: Neighbours?
    }

    /// A row's values changed from `old` to `new`, at `path` in section `section`.
    struct UpdatedRow: Sendable, Hashable {
        let id: Int64
        let section: Int64
        let path: ListIndexPath
        let old: Values
        let new: Values
    }

    /// A section inserted at `index`, empty, titled `title`.
    struct InsertedSection: Sendable, Hashable {
        let id: Int64
        let title: String
        let index: Int
    }

    /// A section deleted from `index` (before the edit).
    struct DeletedSection: Sendable, Hashable {
        let id: Int64
        let index: Int
        /// Its title, neighbours and row count then, when the transaction keeps history.
        let details: Details?

        /// What undoing a section's delete needs besides its rows.
        struct Details: Sendable, Hashable {
            let title: String
            let neighbours: Neighbours
            let rowCount: Int64
        }
    }

    /// A section moved from index `from` to `to`.
    struct MovedSection: Sendable, Hashable {
        let id: Int64
        let from: Int
        let to: Int
        /// Its neighbours before the move, when the transaction keeps history.
        let oldNeighbours: Neighbours?
    }

    /// A row that left list `fromList` (from `from` in section `source`) for list `toList` (to `to` in
    /// section `target`), with its values.
    struct TransferredRow: Sendable, Hashable {
        let row: ListRow
        let fromList: Int64
        let from: ListIndexPath
        let source: Int64
        let toList: Int64
        let to: ListIndexPath
        let target: Int64
        let anchor: Anchor
    }

    /// A section that left list `fromList` (from index `from`) for list `toList` (at index `to`), with
    /// its rows as they arrived.
    struct TransferredSection: Sendable, Hashable {
        let section: SectionSnapshot
        let fromList: Int64
        let from: Int
        let toList: Int64
        let to: Int
    }
}
