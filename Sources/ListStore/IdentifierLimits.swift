import SQLiteLayer

/// Used-up automatic ids. Sections and rows use AUTOINCREMENT: a new id is one more than the largest
/// ever used, so after a hand edit writes the id 2^63 − 1 every insert fails with SQLite's
/// "database or disk is full" (SQLITE_FULL), which looks like a full disk. These find the real cause.
extension Connection {
    /// The tables (`sections`, `rows`) whose next automatic id would pass 2^63 − 1.
    func tablesWithExhaustedIDs() throws -> [String] {
        var exhausted: [String] = []
        // The table names are constants, never user text.
        for table in ["sections", "rows"] {
            let largest = try cached("SELECT max(id) FROM \(table)").bind([]).first { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
            let counter = try cached("SELECT seq FROM sqlite_sequence WHERE name = ?1").bind([.text(table)]).first { $0.int64(0) }
            if largest == Int64.max || counter == Int64.max { exhausted.append(table) }
        }
        return exhausted
    }

    /// `error`, unless it is SQLITE_FULL because `table`'s ids are used up: then the error that says so.
    func explainingFull(_ error: Error, inserting table: String) -> Error {
        guard let sqliteError = error as? SQLiteError, sqliteError.isFull,
              (try? tablesWithExhaustedIDs().contains(table)) == true else { return error }
        return ListStoreError.identifiersExhausted(table: table)
    }
}

extension ListStore {
    /// The tables (`sections`, `rows`) whose automatic ids are used up, so that no section or row can be
    /// added: call it when an insert fails with ``ListStoreError/full(_:)`` to tell a full disk from used-up
    /// ids (see ``ListStoreError/identifiersExhausted(table:)``).
    public func tablesWithExhaustedIDs() throws -> [String] {
        try read { db in try db.tablesWithExhaustedIDs() }
    }

    /// `error`, or — when it is ``ListStoreError/full(_:)`` and a table's ids are used up — the
    /// ``ListStoreError/identifiersExhausted(table:)`` error that says which table and what to do.
    public func explainingFull(_ error: Error) -> Error {
        guard case ListStoreError.full = error, let table = try? tablesWithExhaustedIDs().first else { return error }
        return ListStoreError.identifiersExhausted(table: table)
    }
}
