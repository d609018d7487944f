import Foundation
import SQLiteLayer

/// Undo and redo, durable in the file and per author (UndoAndRedo.md).
extension ListStore {
    /// The history limit a store gets unless it is opened with another: each author's last 100 transactions.
    package static let defaultHistoryLimit = 100

    /// The author a store's transactions are recorded under unless it is opened with another: the
    /// process's name (an app's executable name), else `"app"`. Two apps sharing a file thus undo their own edits.
    package static var defaultAuthor: String { processAuthor }

    /// ``defaultAuthor``, looked up once per process.
    private static let processAuthor: String = {
        let name = ProcessInfo.processInfo.processName
        return (try? HistoryNames.checkedAuthor(name)) ?? "app"
    }()

    /// Opens the store at `path` with an author and a history limit (see ``open(at:mode:busyTimeout:author:historyLimit:)``).
    package static func open(
        at path: String, mode: AccessMode = .readWrite, busyTimeout: Int32 = 5_000, author: String, historyLimit: Int = defaultHistoryLimit
    ) throws -> ListStore {
        try open(at: path, mode: mode, busyTimeout: busyTimeout, author: author, historyLimit: historyLimit, rowBlockSizes: .standard)
    }

    /// Takes back this store's ``author``'s last transaction in this store's list not yet undone (undo is
    /// per author and list: a handle from ``list(named:)`` undoes its own list's), as a new transaction with an
    /// ordinary change set (observers and other processes see it like any edit): deleted rows and
    /// sections come back with their ids, titles, payloads and places; inserted ones go; moved ones go
    /// back next to their old neighbours; titles and payloads get their old values. Edits by other
    /// authors and by hand since are kept.
    ///
    /// Throws a ``ListStoreError/Family/refused`` error (nothing to undo) when there is none, and
    /// a ``ListStoreError/Family/refused`` error (undo refused) when it is no longer possible — a
    /// section it needs was deleted, a row it changed was changed again by someone else, an import or
    /// untracked write came after it, a row or section it needs was moved to another list (moves between
    /// lists and changes of the lists themselves are not in the history); nothing is changed then. A transaction whose every change others
    /// already took back has nothing to undo and is passed over for the one before it.
    ///
    /// `author`: whose last transaction to take back; nil (the default) for this store's ``author``.
    @discardableResult
    public func undo(by author: String? = nil) throws -> ChangeSet { try takeBack(redo: false, by: author ?? self.author) }

    /// Re-applies the transaction this store's ``author`` undid last, as a new transaction (which
    /// ``ListStore/undo(by:)`` takes back in turn). The author's next ordinary transaction clears what can be redone.
    /// Throws a ``ListStoreError/Family/refused`` error (nothing to redo) or a ``ListStoreError/Family/refused`` error (undo refused).
    /// `author`: whose undo to re-apply; nil (the default) for this store's ``author``.
    @discardableResult
    public func redo(by author: String? = nil) throws -> ChangeSet { try takeBack(redo: true, by: author ?? self.author) }

    /// What ``undo(by:)`` (or, with `redo`, ``redo(by:)``) would take back now, for a menu ("Undo Delete
    /// 2 Rows"): the entry, or nil when there is none. It may still refuse when called.
    public func nextUndo(by author: String? = nil, redo: Bool = false) throws -> HistoryEntry? {
        let author = try HistoryNames.checkedAuthor(author ?? self.author)
        return try withReadTransaction { db in
            guard let first = try HistoryTable.candidates(author: author, list: listID, redo: redo, db).first else { return nil }
            return try HistoryListing.entries(limit: 1, upTo: first.id, db).first
        }
    }

    /// The last `limit` (1–10,000) commits to the file, newest first: every history entry (with its
    /// author, action name and state) and every other change-log entry — hand edits, and changes no
    /// history entry describes — with the change-log record of its edits while the log keeps it.
    public func history(limit: Int = 50) throws -> [HistoryEntry] {
        guard (1...10_000).contains(limit) else {
            throw ListStoreError.invalidHistoryName(String(limit), what: "history length", reason: "ask for 1 to 10000 entries")
        }
        return try withReadTransaction { db in try HistoryListing.entries(limit: limit, upTo: nil, db) }
    }

    // MARK: Recording

    /// Gives a write transaction its history capture, unless it keeps none (untracked, a limit of 0).
    func startHistory(of transaction: ListTransaction) {
        if transaction.tracksChanges, historyLimit > 0 { transaction.history = HistoryCapture(transaction.db) }
    }

    /// Writes the transaction's history entry, inside it (an untracked one leaves a barrier instead).
    func recordHistory(of transaction: ListTransaction) throws {
        guard transaction.editCount > 0 else { return }
        guard transaction.tracksChanges else { return try recordUntrackedWrite("untracked write", transaction.db) }
        guard let capture = transaction.history else { return }
        let action = try HistoryNames.checkedAction(transaction.actionName)
        try HistoryTable.commit(capture, kind: .edit, author: author, list: transaction.list, action: action, reverts: nil, limit: historyLimit, transaction.db)
    }

    /// After a write no history entry can describe: nothing before it can be undone any more.
    func recordUntrackedWrite(_ what: String, _ db: Connection) throws {
        try HistoryTable.barrier(author: author, list: listID, action: what, limit: historyLimit, db)
    }

    private func takeBack(redo: Bool, by author: String) throws -> ChangeSet {
        let author = try HistoryNames.checkedAuthor(author)
        return try mutate { db in
            try TakingBack.lastEntry(redo: redo, by: author, list: listID, sizes: rowBlockSizes, historyLimit: historyLimit, db)
        }
    }
}
