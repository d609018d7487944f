import SQLiteLayer

/// The version of the state a transaction sees (``ListVersion``): the sequence number of the last
/// change-log entry ever written.
enum StateVersion {
    /// The last entry's sequence number: the larger of SQLite's AUTOINCREMENT record and the last entry
    /// there is, so that neither edited by hand moves it back (0 for a log that never had one). An
    /// expression, so that the change log's head reads it in the same statement as the rest.
    static let lastSequenceSQL =
        "max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'liststore_log'), 0), coalesce((SELECT max(seq) FROM liststore_log), 0))"

    /// The version of the state `db` sees; ``ListVersion/unversioned`` for a file without a change log
    /// (schema 1 or 2, read with `.inspect`). Called inside the transaction that reads the state.
    static func read(_ db: Connection) throws -> ListVersion {
        let hasLog = try db.cached("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'liststore_log'").bind([]).first { $0.int64(0) } ?? 0
        guard hasLog > 0 else { return .unversioned }
        return ListVersion(rawValue: try db.cached("SELECT \(lastSequenceSQL)").bind([]).first { $0.int64(0) } ?? 0)
    }
}
