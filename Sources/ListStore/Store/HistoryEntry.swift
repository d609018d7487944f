import SQLiteLayer

/// One commit to a store's file as ``ListStore/history(limit:)`` lists it: a transaction in the undo
/// history, or another change-log entry (a hand edit, a change no history entry describes).
public struct HistoryEntry: Hashable, Sendable {
    /// What made the commit.
    public enum Kind: String, Hashable, Sendable {
        /// An ordinary ListStore transaction.
        case edit
        /// ``ListStore/undo(by:)`` taking back an entry.
        case undo
        /// ``ListStore/redo(by:)`` re-applying one.
        case redo
        /// An import or ``ListStore/write(actionName:tracksChanges:_:)`` with `tracksChanges: false`: nothing before it can be undone.
        case untracked
        /// A title or payload changed by another program (the `sqlite3` shell); never undone.
        case handEdit = "hand-edit"
        /// A change no history entry describes: a hand edit that inserted, deleted or moved rows or
        /// sections, a repair, a write by a store with a history limit of 0, or an entry the history
        /// no longer keeps.
        case other
    }

    /// Where an entry stands for undo and redo.
    public enum State: String, Hashable, Sendable {
        /// Undo (for an undo entry: redo) would take it back.
        case done
        /// It was taken back (by an undo or a redo, or passed over as having nothing left to take back).
        case undone
        /// An undo entry whose redo its author's next ordinary transaction cleared.
        case cleared
        /// An import or untracked write came after it: it can no longer be undone.
        case blocked
    }

    /// The commit's change-log sequence number: the state right after it.
    public let version: ListVersion
    /// What made it: an edit, an undo, a redo, an untracked write, a hand edit, or a change no entry describes.
    public let kind: Kind
    /// The author who made it; nil for hand edits and changes no history entry describes.
    public let author: String?
    /// The action name it was given ("Delete 2 Rows"); for an undo or redo, that of the entry it took back.
    public let actionName: String?
    /// Its history state; nil when it has no history entry.
    public let state: State?
    /// The history entry's number (`liststore_history.id`); nil when it has none.
    package let entry: Int64?
    /// The change-log record of its edits (TheFile.md, "The change-log record"), while the log keeps it.
    package let changes: String?
    /// The name of the list its history entry edited (undo is per author and list); nil when it has no
    /// history entry, or its list was deleted since.
    public let list: String?
}

/// Reading the history and the change log together, newest first.
enum HistoryListing {
    /// The last `limit` entries (of the history up to entry `upTo` only, when given).
    static func entries(limit: Int, upTo: Int64?, _ db: Connection) throws -> [HistoryEntry] {
        let sql: String
        var arguments: [SQLiteValue] = [.int(limit)]
        if let upTo {
            sql = """
                SELECT h.log_seq, l.kind, h.id, h.author, h.kind, h.state, h.action, l.events, (SELECT name FROM lists WHERE id = h.list_id)
                FROM liststore_history AS h LEFT JOIN liststore_log AS l ON l.seq = h.log_seq WHERE h.id = ?2 LIMIT ?1
                """
            arguments.append(.integer(upTo))
        } else {
            sql = """
                SELECT * FROM (
                    SELECT l.seq, l.kind, h.id, h.author, h.kind, h.state, h.action, l.events, (SELECT name FROM lists WHERE id = h.list_id)
                    FROM liststore_log AS l LEFT JOIN liststore_history AS h ON h.log_seq = l.seq
                    UNION ALL
                    SELECT h.log_seq, NULL, h.id, h.author, h.kind, h.state, h.action, NULL, (SELECT name FROM lists WHERE id = h.list_id) FROM liststore_history AS h
                    WHERE NOT EXISTS (SELECT 1 FROM liststore_log WHERE seq = h.log_seq)
                ) ORDER BY 1 DESC LIMIT ?1
                """
        }
        return try db.prepare(sql).bind(arguments).map { row in
            let logKind = row.optionalText(1)
            let historyKind = row.optionalText(4)
            let kind: HistoryEntry.Kind
            switch historyKind {
            case "do": kind = .edit
            case "undo": kind = .undo
            case "redo": kind = .redo
            case "barrier": kind = .untracked
            default: kind = logKind == "row" || logKind == "section" ? .handEdit : .other
            }
            return HistoryEntry(
                version: ListVersion(rawValue: row.int64(0)), kind: kind, author: row.optionalText(3), actionName: row.optionalText(6),
                state: row.optionalText(5).flatMap(HistoryEntry.State.init(rawValue:)), entry: row.isNull(2) ? nil : row.int64(2),
                changes: row.optionalText(7), list: row.optionalText(8))
        }
    }
}
