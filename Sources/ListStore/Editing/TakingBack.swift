import SQLiteLayer

/// Undo and redo's loop: takes back an author's last history entry in a list not yet taken back (with
/// `redo`, re-applies the last one undone), passing over entries with nothing left to take back. Here,
/// not in History/: reverting an entry's steps is a ``ListTransaction``'s work.
enum TakingBack {
    /// Runs inside the write's transaction on `db`; returns the change set and the change-log entry of
    /// the entry taken back, or throws ``ListStoreError/nothingToUndo(author:)`` (``ListStoreError/nothingToRedo(author:)``)
    /// or ``ListStoreError/undoRefused(action:entry:redo:reason:)``. `author` is already checked.
    static func lastEntry(
        redo: Bool, by author: String, list: Int64, sizes: RowBlockSizes, historyLimit: Int, _ db: Connection
    ) throws -> (changes: ChangeSet, log: ChangeLog.Entry) {
        for candidate in try HistoryTable.candidates(author: author, list: list, redo: redo, db) {
            func refused(_ reason: String) -> ListStoreError { .undoRefused(action: candidate.action, entry: candidate.id, redo: redo, reason: reason) }
            if candidate.state == "blocked" {
                let barrier = try HistoryTable.barrier(after: candidate.id, db)
                let what = barrier.map { "an \($0.action ?? "untracked write") by \(ListStoreError.excerpt($0.author)) (history entry #\($0.id))" } ?? "an untracked write"
                throw refused("\(what) came after it, which the history cannot see through")
            }
            guard let record = try HistoryTable.record(of: candidate.id, db), let steps = HistoryRecord.decode(record) else {
                throw refused("its history record is not of a format ListStore writes (changed by hand)")
            }
            let transaction = ListTransaction(db, list: list, sizes: sizes)
            defer { transaction.close() }
            let capture = HistoryCapture(db)
            transaction.history = capture
            do { try transaction.revert(steps, entry: candidate.id) } catch let conflict as UndoConflict {
                throw refused(conflict.reason)
            } catch let error as ListStoreError {
                switch error.reason {
                case .rowInAnotherList(let row, let list): throw refused("row #\(row.rawValue) was moved to list \(ListStoreError.excerpt(list)) since")
                case .sectionInAnotherList(let section, let list): throw refused("section #\(section.rawValue) was moved to list \(ListStoreError.excerpt(list)) since")
                default: throw error
                }
            }
            let changes = try transaction.finish()
            guard transaction.editCount > 0 else {
                try HistoryTable.markPassed(candidate.id, db)  // nothing of it is left to take back
                continue
            }
            try HistoryTable.commit(
                capture, kind: redo ? .redo : .undo, author: author, list: list, action: candidate.action, reverts: candidate.id, limit: max(historyLimit, 1), db)
            return (changes, transaction.logEntry)
        }
        throw redo ? ListStoreError.nothingToRedo(author: author) : ListStoreError.nothingToUndo(author: author)
    }
}
