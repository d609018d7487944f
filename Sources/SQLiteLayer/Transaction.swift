import CSQLite

/// Transactions. Every write runs inside `BEGIN IMMEDIATE`, so it takes the write lock before it reads
/// what it will change; another process cannot slip a commit in between.
extension Connection {
    /// How a transaction starts.
    package enum TransactionKind: String, Sendable {
        /// Takes the write lock at once; use for every transaction that may write.
        case immediate = "BEGIN IMMEDIATE"
        /// Takes no lock until the first read; use for consistent multi-statement reads.
        case deferred = "BEGIN DEFERRED"
    }

    /// Runs `body` in a transaction, commits when it returns, and rolls back when it throws
    /// (or when the commit itself fails). Transactions do not nest.
    ///
    /// A write (`.immediate`) checks that the connection's files are still at its path (see
    /// ``movedFile()``) once it holds the write lock and again just before it commits, and rolls back
    /// with ``FileMovedError`` when they are not: a file renamed over the path, or a `-wal` deleted, while
    /// the transaction ran is never written.
    @discardableResult
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        guard isAutocommit else {
            throw SQLiteError(extendedCode: 1, message: "a transaction is already open on this connection", sql: kind.rawValue)
        }
        try run(kind.rawValue)
        transactionMemo = nil
        defer { transactionMemo = nil }
        let result: T
        do {
            if kind == .immediate { try verifyFilesInPlace() }
            result = try body()
            // SQLite ends a transaction itself after some errors (a full disk): a body that caught one and
            // returned must not be told its writes were committed.
            guard !isAutocommit else {
                throw SQLiteError(extendedCode: 4, message: "SQLite rolled the transaction back after an error inside it; nothing of it was written", sql: "COMMIT")
            }
            if kind == .immediate { try verifyFilesInPlace() }
            try run("COMMIT")
        } catch {
            rollbackIfOpen()
            throw error
        }
        return result
    }

    /// Runs `body` in a read transaction, so every statement sees one committed state. It ends with
    /// ROLLBACK: a read has nothing to commit, and ending it cannot fail on a damaged file.
    package func readTransaction<T>(_ body: () throws -> T) throws -> T {
        guard isAutocommit else {
            throw SQLiteError(extendedCode: 1, message: "a transaction is already open on this connection", sql: "BEGIN DEFERRED")
        }
        try run("BEGIN DEFERRED")
        defer { rollbackIfOpen() }
        return try body()
    }

    /// Rolls back the open transaction, if SQLite has not already done so after an error.
    private func rollbackIfOpen() {
        guard !isAutocommit else { return }
        // Not a cached statement: ROLLBACK runs on an interrupted connection too (``Interruption``). A failed
        // ROLLBACK leaves nothing better to do; SQLite rolls back on close regardless.
        StatementRecorder.record(sql: "ROLLBACK", parameterCount: 0, path: path)
        sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
    }
}
