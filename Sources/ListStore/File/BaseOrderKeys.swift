import SQLiteLayer

/// The order keys migration 15 gives the rows, sections and lists a file holds (``OrderKey/baseKey(position:)``):
/// made from their positions then, so that the copies made of the file afterwards share them. Every element is
/// written once, a chunk of ids at a time, inside the migrating write.
enum BaseOrderKeys {
    /// How many elements are read before their keys are written.
    static let chunk = 4096

    static func give(_ db: Connection) throws {
        for table in ["lists", "sections", "rows"] {
            let read = try db.cached("SELECT id, position FROM \(table) WHERE id > ?1 AND order_key IS NULL ORDER BY id LIMIT \(chunk)")
            let write = try db.cached("UPDATE \(table) SET order_key = ?2 WHERE id = ?1")
            var after = Int64.min
            while true {
                let found = try read.bind([.integer(after)]).map { (id: $0.int64(0), position: $0.int64(1)) }
                for element in found {
                    try write.bind([.integer(element.id), .blob(OrderKey.baseKey(position: element.position))]).run()
                }
                guard let last = found.last else { break }
                after = last.id
            }
        }
    }
}
