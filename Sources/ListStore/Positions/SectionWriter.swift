import SQLiteLayer

/// The one place sections are inserted into `sections`: by the edits, by undo and redo putting one
/// back, by an import and by a repair. The caller keeps the list's section count and the section's
/// first block and page.
enum SectionWriter {
    /// Inserts section `id` (nil: a new id, of the replica's range in a copy of the list) titled `title`
    /// at `position` of list `list` with `orderKey` (nil: given by the caller later) and returns its id. Its
    /// errors are SQLite's, for the caller to explain (a taken id, ids used up).
    @discardableResult
    static func insert(id: Int64?, title: String, at position: Int, list: Int64, orderKey: [UInt8]? = nil, _ db: Connection) throws -> Int64 {
        let id = try id ?? ReplicaIdentity.reserve(1, in: .sections, db)
        try db.cached("INSERT INTO sections (id, list_id, position, title, order_key, changed_stamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
            .bind([
                id.map { .integer($0) } ?? .null, .integer(list), .int(position), .text(title), orderKey.map { .blob($0) } ?? .null,
                .integer(try MergeClock.stamp(db)),
            ]).run()
        return db.lastInsertedRowID
    }
}
