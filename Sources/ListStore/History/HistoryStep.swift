/// One edit of a transaction as undoing it needs it: ids, the values it replaced, and where things were
/// (by neighbour ids, so that a row goes back next to the same rows when others moved things since).
/// Stored in `liststore_history.record` in the format ``HistoryRecord`` declares, not by these names.
enum HistoryStep: Sendable, Hashable {
    /// Rows inserted into section `section` by one edit, with their values (every insert in history
    /// record format 1; one of up to ``HistoryCapture/insertValuesKept`` rows in format 2); undone by
    /// deleting them, each only while it still has the title and payload it was inserted with.
    case rowsInserted(section: Int64, rows: [HistoryRow])
    /// Rows inserted into section `section` by one edit (format 2): their ids as runs of `[first id,
    /// count]` and the ``RowDigest`` of their ids, titles and payloads then. Undone by deleting them only
    /// while every one of them is there with those values (the digest of the rows read back matches);
    /// when none is left there is nothing to take back.
    case rowsInsertedRuns(section: Int64, ids: [[Int64]], digest: UInt64)
    /// Rows deleted from section `section` by one edit, in index order: each with its values, its index
    /// then and the rows just before and after it then. Undone first to last, so that each row can
    /// follow the one before it.
    case rowsDeleted(section: Int64, rows: [DeletedRow])
    /// One row moved out of `fromSection` (at `fromIndex`, between `after` and `before`) into `toSection`.
    case rowMoved(id: Int64, fromSection: Int64, fromIndex: Int, after: Int64?, before: Int64?, toSection: Int64)
    /// A row's title and payload changed from the old values to the new ones.
    case rowUpdated(id: Int64, oldTitle: String, oldPayload: String?, title: String, payload: String?)
    /// A section inserted with `title`; `rows` (runs of `[first id, count]`) are the rows restored into it
    /// with it by the same edit, which undoing it deletes with it.
    case sectionInserted(id: Int64, title: String, rows: [[Int64]])
    /// Sections deleted by one edit, in index order, each with its rows (kept in `liststore_history_rows`).
    case sectionsDeleted([DeletedSection])
    /// A section moved from `from` (between sections `after` and `before`).
    case sectionMoved(id: Int64, from: Int, after: Int64?, before: Int64?)
    /// A section renamed from `oldTitle` to `title`.
    case sectionRenamed(id: Int64, oldTitle: String, title: String)
}

/// A deleted row, and where it was.
struct DeletedRow: Sendable, Hashable {
    let row: HistoryRow
    let index: Int
    /// The rows just before and after it then (nil: none).
    let after: Int64?
    let before: Int64?
}

/// A deleted section, and where it was; its `rowCount` rows are kept in `liststore_history_rows`.
struct DeletedSection: Sendable, Hashable {
    let id: Int64
    let title: String
    let index: Int
    /// The sections just before and after it then (nil: none).
    let after: Int64?
    let before: Int64?
    let rowCount: Int64
}

/// A row's id and values, as the history keeps them.
struct HistoryRow: Sendable, Hashable {
    let id: Int64
    let title: String
    let payload: String?
}
