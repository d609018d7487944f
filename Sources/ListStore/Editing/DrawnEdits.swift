/// Edits of index paths as a table view drew them.
extension ListTransaction {
    /// This transaction's edits given index paths *as drawn* at `version` — the ``ListSnapshot/version``
    /// of the snapshot (or change set) a table view drew — acting on the rows and sections those paths
    /// named then, wherever they are now (see ``AsOfTransaction`` for how paths, gaps and several edits
    /// are translated). The translation reads the change log inside this transaction, under the write
    /// lock, so nothing can commit between it and the edits.
    ///
    /// Its calls throw ``ListStoreError/Family/notFound`` when something drawn was deleted since, or when
    /// the change log cannot translate from `version`; throwing out of the write's closure then rolls
    /// everything back.
    ///
    /// ```swift
    /// // A swipe on what the table view drew from `mirror`:
    /// try store.write { tx in
    ///     try tx.asOf(mirror.version).deleteRows(at: [swipedPath])
    /// }
    /// ```
    public func asOf(_ version: ListVersion) throws -> AsOfTransaction {
        try whileOpen {
            guard let found = logStateAtStart else { throw ListStoreError.transactionFinished }
            return AsOfTransaction(self, try DrawnPaths(version, found: found, list: list, db))
        }
    }
}
