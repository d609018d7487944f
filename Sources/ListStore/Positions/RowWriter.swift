import SQLiteLayer

/// Writes new rows into one section at positions chosen by ``SectionRows``, 32 rows per INSERT
/// statement where there are that many: SQLite then updates the id counter and runs the statement's
/// set-up once per 32 rows, which makes a bulk insert cost less than a plain table's one INSERT per row.
enum RowWriter {
    static let rowsPerStatement = 32

    /// Inserts `rows` into section `sectionID` at `positions` (as many, increasing) and returns their new
    /// ids in order. AUTOINCREMENT gives the rows of one statement consecutive ids (one more than the
    /// largest ever given, row after row), and the write lock keeps anyone else from taking one between.
    static func insert(_ rows: [NewRow], intoSection sectionID: Int64, at positions: [Int], _ db: Connection) throws -> [RowID] {
        var ids: [RowID] = []
        ids.reserveCapacity(rows.count)
        var offset = 0
        if rows.count >= rowsPerStatement {
            let values = Array(repeating: "(?, ?, ?, ?)", count: rowsPerStatement).joined(separator: ", ")
            let chunk = try db.cached("INSERT INTO rows (section_id, position, title, payload) VALUES \(values)")
            var arguments: [SQLiteValue] = []
            arguments.reserveCapacity(rowsPerStatement * 4)
            while rows.count - offset >= rowsPerStatement {
                arguments.removeAll(keepingCapacity: true)
                for index in offset..<(offset + rowsPerStatement) {
                    arguments += [.integer(sectionID), .int(positions[index]), .text(rows[index].title), .optionalText(rows[index].payload)]
                }
                do { try chunk.bind(arguments).run() } catch { throw db.explainingFull(error, inserting: "rows") }
                let last = db.lastInsertedRowID
                for step in stride(from: Int64(rowsPerStatement - 1), through: 0, by: -1) { ids.append(RowID(rawValue: last - step)) }
                offset += rowsPerStatement
            }
        }
        let single = try db.cached("INSERT INTO rows (section_id, position, title, payload) VALUES (?1, ?2, ?3, ?4)")
        for index in offset..<rows.count {
            do {
                try single.bind([.integer(sectionID), .int(positions[index]), .text(rows[index].title), .optionalText(rows[index].payload)]).run()
            } catch { throw db.explainingFull(error, inserting: "rows") }
            ids.append(RowID(rawValue: db.lastInsertedRowID))
        }
        return ids
    }
}
