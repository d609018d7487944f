import SQLiteLayer

/// Input checks shared by the mutations. They run inside the write transaction, against the file as
/// it is now, and throw a ``ListStoreError`` naming the offending input.
extension Connection {
    /// The id of section `index`, or a `sectionIndexOutOfRange` error.
    func sectionID(at index: Int) throws -> Int64 {
        if index >= 0, let id = try cached("SELECT id FROM sections WHERE position = ?1").bind([.int(index)]).first({ $0.int64(0) }) {
            return id
        }
        throw ListStoreError.sectionIndexOutOfRange(index: index, sectionCount: try SectionOrder.count(self))
    }

    /// The current index path of row `id`, with its section's id, or `unknownRow`.
    func location(of id: RowID) throws -> (path: ListIndexPath, section: Int64) {
        let found = try cached("""
            SELECT s.position, r.position - s.row_base, s.id FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE r.id = ?1
            """).bind([.integer(id.rawValue)]).first { (ListIndexPath(section: $0.int(0), row: $0.int(1)), $0.int64(2)) }
        guard let found else { throw ListStoreError.unknownRow(id) }
        return (found.0, found.1)
    }

    /// Throws `invalidPayload` unless `payload` is nil or valid JSON (as SQLite's `json_valid` sees it),
    /// and `payloadTooDeep` when it nests deeper than ``ListStore/maximumPayloadDepth``.
    func validatePayload(_ payload: String?) throws {
        guard let payload else { return }
        try ListStore.checkPayloadDepth(payload)
        guard try scalarInt("SELECT json_valid(?1)", [.text(payload)]) == 1 else {
            throw ListStoreError.invalidPayload(payload)
        }
    }
}

/// Throws `invalidTitle` for titles a table view cannot show or the `sqlite3` shell would cut short.
func validateTitle(_ title: String) throws {
    if title.isEmpty { throw ListStoreError.invalidTitle(title, reason: "a title cannot be empty") }
    if title.utf8.contains(0) { throw ListStoreError.invalidTitle(title, reason: "a title cannot contain NUL characters") }
}

/// The first value that appears a second time in `values`, or nil when all are distinct.
package func firstRepeated<T: Hashable>(_ values: [T]) -> T? {
    var seen = Set<T>()
    return values.first { !seen.insert($0).inserted }
}
