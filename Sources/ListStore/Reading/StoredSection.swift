import SQLiteLayer

/// A `sections` row as stored, before any check.
struct StoredSection {
    let id: Int64
    let position: Int
    let title: String
    let rowCount: Int

    init(_ statement: Statement) {
        id = statement.int64(0)
        position = statement.int(1)
        title = statement.text(2)
        rowCount = statement.int(3)
    }
}
