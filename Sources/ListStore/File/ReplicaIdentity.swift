import SQLiteLayer

/// Which copy of its list a file is, and the ids it gives (`Migrations/0014_replica_identity.sql`,
/// Docs/Merging.md): a file that was never copied is replica 0 and gives ids as SQLite's AUTOINCREMENT
/// does; a copy claims a random number in its first write and gives ids in that number's range, so that
/// the copies of one list never give one id to two rows.
enum ReplicaIdentity {
    /// Replica numbers are below this (20 bits): every id of every range is then below 2^53.
    static let numberLimit: Int64 = 1 << 20
    /// The `sqlite_sequence` row holding the last id a numbered replica gave, in any table.
    static let lastIDRow = "liststore_replica_ids"

    /// The tables whose new ids a replica gives.
    enum Table: String {
        case rows, sections, lists
    }

    /// The ids replica `number` (1 or more) gives: `number × 2^32 + 1` through `number × 2^32 + 2^32 − 1`.
    static func range(of number: Int64) -> ClosedRange<Int64> {
        (number << 32 + 1)...(number << 32 + 0xFFFF_FFFF)
    }

    /// The replica this file is, as recorded.
    static func number(_ db: Connection) throws -> Int64 {
        try db.cached("SELECT number FROM liststore_replica WHERE id = 1").bind([]).first { $0.int64(0) } ?? 0
    }

    /// At the start of every ListStore write: notes the file the replica's number is claimed for at the
    /// first write, and claims a new number when the file is another than that one — a copy, wherever it
    /// came from. A database in memory is never copied and keeps its number.
    static func claim(_ db: Connection, drawing draw: () -> Int64 = randomNumber) throws {
        guard let file = db.mainFile() else { return }
        let device = Int64(bitPattern: file.device)
        let inode = Int64(bitPattern: file.inode)
        let recorded = try db.cached("SELECT device, inode FROM liststore_replica WHERE id = 1").bind([]).first { row in
            (device: row.isNull(0) ? nil : row.int64(0), inode: row.isNull(1) ? nil : row.int64(1))
        }
        guard let recorded else {
            // The row was deleted by another program: this file can no longer say which replica it was.
            try db.run(
                "INSERT INTO liststore_replica (id, number, lineage) VALUES (1, 0, (random() & 9223372036854775807) | 1)")
            try renumber(db, device: device, inode: inode, draw: draw)
            return
        }
        if recorded.device == device, recorded.inode == inode { return }
        if recorded.device == nil, recorded.inode == nil {
            try db.run("UPDATE liststore_replica SET device = ?1, inode = ?2 WHERE id = 1", [.integer(device), .integer(inode)])
        } else {
            try renumber(db, device: device, inode: inode, draw: draw)
        }
    }

    /// Before a file's first merge: a file that is still replica 0 takes a number, for once it holds another
    /// copy's ids, AUTOINCREMENT would give the next of them (one more than the largest), which is that
    /// copy's to give.
    static func numberBeforeMerging(_ db: Connection, drawing draw: () -> Int64 = randomNumber) throws {
        guard try number(db) == 0 else { return }
        let file = db.mainFile()
        try renumber(db, device: Int64(bitPattern: file?.device ?? 0), inode: Int64(bitPattern: file?.inode ?? 0), draw: draw)
    }

    /// A replica number drawn at random.
    static func randomNumber() -> Int64 { Int64.random(in: 1..<numberLimit) }

    /// Takes a number no id of the file is in the range of (nor the present one), claimed for this file.
    private static func renumber(_ db: Connection, device: Int64, inode: Int64, draw: () -> Int64) throws {
        let present = try number(db)
        let start = min(max(draw(), 1), numberLimit - 1)
        // Numbers from a random one on, wrapping: the first is free unless another program wrote ids there.
        var candidate = start
        repeat {
            if candidate != present, try !hasIDs(inRangeOf: candidate, db) {
                try db.run(
                    "UPDATE liststore_replica SET number = ?1, device = ?2, inode = ?3 WHERE id = 1",
                    [.integer(candidate), .integer(device), .integer(inode)])
                try setLastID(candidate << 32, db)
                return
            }
            candidate = candidate == numberLimit - 1 ? 1 : candidate + 1
        } while candidate != start
        throw ListStoreError.corrupt(
            "every one of the \(numberLimit - 1) replica numbers has ids in this file (ids from 2^32 up written by other programs), so this copy cannot take one; give those rows, sections or lists ids below 2^32"
        )
    }

    private static func hasIDs(inRangeOf number: Int64, _ db: Connection) throws -> Bool {
        let range = range(of: number)
        for table in [Table.rows, .sections, .lists] {
            let found = try db.cached("SELECT EXISTS (SELECT 1 FROM \(table.rawValue) WHERE id BETWEEN ?1 AND ?2)")
                .bind([.integer(range.lowerBound), .integer(range.upperBound)]).first { $0.int64(0) }
            if found == 1 { return true }
        }
        return false
    }

    /// The first of `count` consecutive new ids for `table`, noted as given; nil for replica 0, whose
    /// new ids SQLite's AUTOINCREMENT gives. A replica whose range is used up claims a new number.
    static func reserve(_ count: Int, in table: Table, _ db: Connection) throws -> Int64? {
        try reserve(count, in: table, replica: try number(db), db)
    }

    /// ``reserve(_:in:_:)`` for a caller that read the replica's ``number(_:)`` in this transaction.
    static func reserve(_ count: Int, in table: Table, replica: Int64, _ db: Connection) throws -> Int64? {
        guard replica > 0, count > 0 else { return nil }
        let range = range(of: replica)
        let noted = try db.cached("SELECT seq FROM sqlite_sequence WHERE name = ?1").bind([.text(lastIDRow)]).first { $0.int64(0) }
        let largest =
            try db.cached("SELECT max(id) FROM \(table.rawValue) WHERE id BETWEEN ?1 AND ?2")
            .bind([.integer(range.lowerBound), .integer(range.upperBound)]).first { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
        var last = range.lowerBound - 1
        if let noted, range.contains(noted) { last = noted }
        if let largest { last = max(last, largest) }
        guard Int64(count) <= range.upperBound - last else {
            guard let file = db.mainFile(), Int64(count) < 1 << 32 else { throw ListStoreError.identifiersExhausted(table: table.rawValue) }
            try renumber(db, device: Int64(bitPattern: file.device), inode: Int64(bitPattern: file.inode), draw: randomNumber)
            return try reserve(count, in: table, db)
        }
        try setLastID(last + Int64(count), db)
        return last + 1
    }

    private static func setLastID(_ id: Int64, _ db: Connection) throws {
        try db.cached("UPDATE sqlite_sequence SET seq = ?2 WHERE name = ?1").bind([.text(lastIDRow), .integer(id)]).run()
        if db.changes == 0 {
            try db.cached("INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)").bind([.text(lastIDRow), .integer(id)]).run()
        }
    }
}
