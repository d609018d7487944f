import SQLiteLayer

extension ListStore {
    /// Indexes the payload field `field` for searches (``ListReader/findRows(_:limit:after:)``), in every list of
    /// the file, so that a search whose condition names it reads only the rows that match: a page in
    /// about 0.1 ms at 1,000,000 rows, where a search that matches few rows reads every row otherwise.
    ///
    /// ```swift
    /// try store.addPayloadIndex(on: PayloadField("city"))  // once; later launches find it there
    /// let page = try store.read { try $0.findRows(RowSearch(where: [PayloadMatch(try PayloadField("city"), equals: "Lyon")])) }
    /// ```
    ///
    /// The index is kept in the file (`liststore_payload_values`, schema 10): building it reads every
    /// row once (about 2 s at 1,000,000 rows), and from then on every write that inserts or updates rows
    /// writes their entries in the same transaction (about one more statement per edit and field).
    /// Writes by other programs are noted by the file's triggers and caught up by ListStore's next write;
    /// searches are right meanwhile. Returns false, writing nothing, when `field` was already indexed. It is
    /// a write (it waits for the file's write lock, as every edit does): to ask without writing, read
    /// ``payloadIndexes()``. On a file of an older schema, the migration and the index are one transaction.
    @discardableResult
    public func addPayloadIndex(on field: PayloadField) throws -> Bool {
        var added = false
        _ = try mutatingLists { db, _ in
            added = try PayloadIndex.add(field, db)
            // No edit: a write that adds nothing is rolled back (unless it migrated the file).
            return ([:], added ? .structure(lists: []) : .edits(ListedEvents([], list: Self.defaultListID)))
        }
        return added
    }

    /// Drops the index on payload field `field` and its entries; searches by it read every row again.
    /// Throws a ``ListStoreError/Family/refused`` error (no payload index) when `field` has none.
    public func removePayloadIndex(on field: PayloadField) throws {
        _ = try changingLists { db in try PayloadIndex.remove(field, db) }
    }

    /// The payload fields the file indexes, by name.
    public func payloadIndexes() throws -> [PayloadField] {
        try read { try PayloadIndex.fields($0.db) }
    }
}
