/// Write transactions: several edits, one commit, one change set.
extension ListStore {
    /// Runs `body` as one write transaction (`BEGIN IMMEDIATE … COMMIT`): every edit it makes on the
    /// ``ListTransaction`` is applied in order, each seeing the state the ones before it left, and the
    /// whole is all-or-nothing — if `body` throws, nothing was changed, and the error is rethrown.
    ///
    /// Returns what `body` returned (read inside the same transaction, so it describes exactly the state
    /// committed: the ids an insert gave, say) with one ``ChangeSet`` for the whole transaction
    /// (deletions, move sources and updates as index paths before it; insertions and move targets after
    /// it), which observers receive too.
    ///
    /// ```swift
    /// let (newID, changes) = try store.write { tx in
    ///     try tx.deleteRows(ids: [draftID, spamID])
    ///     return try tx.insertRow("Inbox zero", intoSection: 0, at: 0)
    /// }
    /// ```
    ///
    /// Index paths a table view drew, which another process may have changed since, go through
    /// ``ListTransaction/asOf(_:)``.
    /// - Parameters:
    ///   - actionName: the name an undo menu shows for it ("Delete 2 Rows"), kept in its history entry
    ///     (``ListTransaction/actionName``).
    ///   - tracksChanges: false for very long transactions (a batch of 100,000 edits), whose memory then
    ///     does not grow with the number of edits: the change set returned is empty, and observers get a
    ///     ``ListUpdate/reset(_:)`` with the new state instead of a change set.
    ///   - body: the transaction's edits and reads; what it returns is the result's `value`. Throwing
    ///     from it rolls every edit back.
    @discardableResult
    public func write<T>(actionName: String? = nil, tracksChanges: Bool = true, _ body: (ListTransaction) throws -> T) throws -> (value: T, changes: ChangeSet) {
        var value: T?
        let changes = try mutateSeeingLogState { db, found in
            let transaction = ListTransaction(db, list: listID, tracksChanges: tracksChanges, sizes: rowBlockSizes)
            defer { transaction.close() }
            transaction.actionName = actionName
            transaction.logStateAtStart = found
            startHistory(of: transaction)
            value = try body(transaction)
            let changes = try transaction.finish()
            try recordHistory(of: transaction)
            return (changes, transaction.logEntry)
        }
        guard let value else { throw ListStoreError.transactionFinished }
        return (value, changes)
    }
}
