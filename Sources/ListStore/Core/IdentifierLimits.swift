import SQLiteLayer

/// Used-up automatic ids. Sections and rows use AUTOINCREMENT: a new id is one more than the largest
/// ever used, so after a hand edit writes the id 2^63 − 1 every insert fails with SQLite's
/// "database or disk is full" (SQLITE_FULL), which looks like a full disk. These find the real cause.
extension Connection {
    /// The tables (`sections`, `rows`) whose next automatic id would pass 2^63 − 1.
    func tablesWithExhaustedIDs() throws -> [String] {
        try IDExhaustion.states(self).filter { $0.highestID == Int64.max || $0.sequence == Int64.max }.map(\.table)
    }

    /// `error`, unless it is SQLITE_FULL because `table`'s ids are used up: then the error that says so.
    /// Every insert of ListStore's goes through it.
    func explainingFull(_ error: Error, inserting table: String) -> Error {
        guard let sqliteError = error as? SQLiteError, sqliteError.isFull,
            (try? tablesWithExhaustedIDs().contains(table)) == true
        else { return error }
        return ListStoreError.identifiersExhausted(table: table)
    }
}

/// Ids that have run out: SQLite's AUTOINCREMENT gives a new row `max(seq, max(id)) + 1` and fails
/// ("database or disk is full") once that would pass 2^63 − 1, as after a hand insert at that id.
enum IDExhaustion {
    struct State {
        let table: String
        let highestID: Int64
        let sequence: Int64
    }

    static func states(_ db: Connection) throws -> [State] {
        try ["sections", "rows"].map { table in
            State(
                table: table,
                highestID: try db.cached("SELECT coalesce(max(id), 0) FROM \(table)").bind([]).first { $0.int64(0) } ?? 0,
                sequence: try db.cached("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?1), 0)")
                    .bind([.text(table)]).first { $0.int64(0) } ?? 0)
        }
    }
}
