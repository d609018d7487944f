import SQLiteLayer

/// The one place rows are inserted into `rows`: new rows by the edits, rows put back by undo and redo,
/// and rows an import loads. New rows go into one section at positions chosen by ``SectionRows``, 32
/// rows per INSERT statement where there are that many: SQLite then updates the id counter and runs the
/// statement's set-up once per 32 rows, which makes a bulk insert cost less than a plain table's one
/// INSERT per row.
enum RowWriter {
    static let rowsPerStatement = 32

    /// The INSERT statement for `count` rows, each bound as id (NULL: AUTOINCREMENT assigns one, in a
    /// file that is replica 0; see ``ReplicaIdentity``),
    /// section id, position, title, payload, order key (``OrderKey``) and the write's stamp (``MergeClock``).
    private static func statement(rows count: Int) -> String {
        "INSERT INTO rows (id, section_id, position, title, payload, order_key, changed_stamp) VALUES "
            + Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
    }

    /// Inserts `rows` into section `sectionID` at `positions` with `orderKeys` (as many, increasing) and returns their new
    /// ids in order. A copy of the list gives them from its own range (``ReplicaIdentity``); otherwise
    /// AUTOINCREMENT gives the rows of one statement consecutive ids (one more than the largest ever
    /// given, row after row), and the write lock keeps anyone else from taking one between.
    static func insert(_ rows: [NewRow], intoSection sectionID: Int64, at positions: [Int], orderKeys: [[UInt8]], _ db: Connection) throws -> [RowID] {
        var ids: [RowID] = []
        ids.reserveCapacity(rows.count)
        let replica = try ReplicaIdentity.number(db)
        let firstID = try ReplicaIdentity.reserve(rows.count, in: .rows, replica: replica, db)
        /// The id to bind for the row at `index`: NULL where AUTOINCREMENT gives it.
        func id(_ index: Int) -> SQLiteValue { firstID.map { .integer($0 + Int64(index)) } ?? .null }
        let stamp = SQLiteValue.integer(try MergeClock.stamp(db))
        var offset = 0
        if rows.count >= rowsPerStatement {
            let chunk = try db.cached(statement(rows: rowsPerStatement))
            var arguments: [SQLiteValue] = []
            arguments.reserveCapacity(rowsPerStatement * 7)
            while rows.count - offset >= rowsPerStatement {
                arguments.removeAll(keepingCapacity: true)
                for index in offset..<(offset + rowsPerStatement) {
                    arguments += [
                        id(index), .integer(sectionID), .int(positions[index]), .text(rows[index].title), .optionalText(rows[index].payload), .blob(orderKeys[index]), stamp,
                    ]
                }
                do { try chunk.bind(arguments).run() } catch { throw db.explainingFull(error, inserting: "rows") }
                let last = db.lastInsertedRowID
                for step in stride(from: Int64(rowsPerStatement - 1), through: 0, by: -1) { ids.append(RowID(rawValue: last - step)) }
                offset += rowsPerStatement
            }
        }
        let single = try One(db, replica: replica)
        for index in offset..<rows.count {
            do {
                try single.insert(
                    id: firstID.map { $0 + Int64(index) }, section: sectionID, position: positions[index], title: rows[index].title, payload: rows[index].payload,
                    orderKey: orderKeys[index])
            } catch { throw db.explainingFull(error, inserting: "rows") }
            ids.append(RowID(rawValue: db.lastInsertedRowID))
        }
        return ids
    }

    /// Inserts one row at a time, with its own id or a new one; its errors are SQLite's, for the caller
    /// to explain (a taken id, ids used up). Made once for many rows (an import's).
    struct One {
        private let db: Connection
        private let statement: Statement
        /// The file's replica number, read once: a copy gives its new rows ids of its own range.
        private let replica: Int64

        /// A writer for `db`, whose replica number is `replica` if the caller read it already.
        init(_ db: Connection, replica: Int64? = nil) throws {
            self.db = db
            statement = try db.cached(RowWriter.statement(rows: 1))
            self.replica = try replica ?? ReplicaIdentity.number(db)
        }

        /// Inserts the row (`id` nil: a new id, then `db.lastInsertedRowID`; `orderKey` nil: given by the caller later).
        func insert(id: Int64?, section: Int64, position: Int, title: String, payload: String?, orderKey: [UInt8]?) throws {
            let id = try id ?? ReplicaIdentity.reserve(1, in: .rows, replica: replica, db)
            try statement.bind([
                id.map { .integer($0) } ?? .null, .integer(section), .int(position), .text(title), .optionalText(payload), orderKey.map { .blob($0) } ?? .null,
                .integer(try MergeClock.stamp(db)),
            ]).run()
        }
    }
}
