/// One entry of `sqlite_schema` (``Schema/Object``): what ``Schema`` compares a file's schema by, and what
/// the generated ``SchemaSnapshot`` lists.
struct SchemaObject: Hashable, Sendable, CustomStringConvertible {
    let type: String
    let name: String
    /// The table or view the object belongs to (itself for tables and views).
    let table: String
    let sql: String?
    var description: String { "\(type) \(name)" }
}
