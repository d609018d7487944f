/// Write transactions: several edits, one commit, one change set.
extension ListStore {
    /// Runs `body` as one write transaction (`BEGIN IMMEDIATE … COMMIT`): every edit it makes on the
    /// ``ListTransaction`` is applied in order, each seeing the state the ones before it left, and the
    /// whole is all-or-nothing — if `body` throws, nothing was changed, and the error is rethrown.
    /// Returns one ``ChangeSet`` for the whole transaction (deletions, move sources and updates as
    /// index paths before it; insertions and move targets after it), which observers receive too.
    ///
    /// ```swift
    /// try store.write { tx in
    ///     try tx.deleteRows(ids: [draftID, spamID])
    ///     try tx.insertRow("Inbox zero", intoSection: 0, at: 0)
    /// }
    /// ```
    @discardableResult
    public func write(_ body: (ListTransaction) throws -> Void) throws -> ChangeSet {
        try writeReturning { transaction -> Void in try body(transaction) }.changes
    }

    /// Runs `body` as one write transaction, like ``write(_:)-3oqvi``, and returns what `body` returned (read
    /// inside the same transaction, so it describes exactly the state committed) with the change set.
    /// (A name of its own, so that a closure whose last expression has a value — `tx.insertRow(…)`
    /// returns the new row's id — never picks this one by accident.)
    public func writeReturning<T>(_ body: (ListTransaction) throws -> T) throws -> (value: T, changes: ChangeSet) {
        try transaction(tracksChanges: true, body)
    }

    /// ``write(_:)-3oqvi`` with the name an undo menu shows for it ("Delete 2 Rows"), kept in its history
    /// entry (``ListTransaction/actionName``).
    @discardableResult
    public func write(actionName: String?, _ body: (ListTransaction) throws -> Void) throws -> ChangeSet {
        try writeReturning(actionName: actionName) { transaction -> Void in try body(transaction) }.changes
    }

    /// ``writeReturning(_:)`` with the name an undo menu shows for it (``ListTransaction/actionName``).
    public func writeReturning<T>(actionName: String?, _ body: (ListTransaction) throws -> T) throws -> (value: T, changes: ChangeSet) {
        try transaction(tracksChanges: true) { transaction in
            transaction.actionName = actionName
            return try body(transaction)
        }
    }

    /// Runs `body` as one write transaction, like ``write(_:)-3oqvi``, but reports no change set: for very long
    /// transactions (a batch of 100,000 edits), whose memory then does not grow with the number of edits.
    /// Observers get a ``ListUpdate/reset(_:)`` with the new state instead of a change set.
    public func writeUntracked(_ body: (ListTransaction) throws -> Void) throws {
        _ = try transaction(tracksChanges: false, body)
    }

    private func transaction<T>(tracksChanges: Bool, _ body: (ListTransaction) throws -> T) throws -> (value: T, changes: ChangeSet) {
        var value: T?
        let changes = try mutate { db in
            let transaction = ListTransaction(db, list: listID, tracksChanges: tracksChanges, sizes: rowBlockSizes)
            defer { transaction.close() }
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
