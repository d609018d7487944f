import SQLiteLayer

/// Rows, sections and lists whose order keys (schema 15, ``OrderKey``) do not follow their positions: inserted
/// by another program (no key), or moved by one (`UPDATE … SET position`). Nothing but a merge reads keys, so
/// `check` does not count this as damage (editing with the `sqlite3` shell is allowed); a merge would place
/// them wrongly on other copies, so ``ListStore/repair()`` gives them keys where they stand now, as a move
/// made by the repair would (its stamp): the hand edit reaches the other copies as an edit.
enum OrderKeyDamage {
    static let tables: [MergeRegisters.Table] = [.lists, .sections, .rows]

    /// Gives the elements without a key, or out of key order, new keys where they stand; one line per table fixed.
    static func repair(_ db: Connection) throws -> [String] {
        try tables.compactMap { table in
            let containers = try db.cached("SELECT DISTINCT \(table.container ?? "0") FROM (\(outOfOrder(table)))").bind([]).map { $0.int64(0) }
            var fixed = 0
            for container in containers { fixed += try rekey(table, container: table.container == nil ? nil : container, db) }
            return fixed == 0 ? nil : "\(table.rawValue): gave \(fixed) \(table.kind)\(fixed == 1 ? "" : "s") order keys where they stand (inserted or moved by another program)"
        }
    }

    /// How many elements of `table` have no key, or a key not above the one before them: none in a file
    /// whose order only ListStore changed since its last `repair`.
    static func count(in table: MergeRegisters.Table, _ db: Connection) throws -> Int {
        try db.scalarInt("SELECT count(*) FROM (\(outOfOrder(table)))") ?? 0
    }

    /// How many elements of `table` have no key: since schema 16 an insert or a move by another program
    /// leaves one without (its triggers), so a file with none has all in key order unless keys were
    /// changed by hand. Read from an index of them alone, without a scan.
    static func keyless(in table: MergeRegisters.Table, _ db: Connection) throws -> Int {
        try db.scalarInt("SELECT count(*) FROM \(table.rawValue) WHERE order_key IS NULL") ?? 0
    }

    /// The elements of `table` without a key or with a key not above the one before them (as the query's rows).
    private static func outOfOrder(_ table: MergeRegisters.Table) -> String {
        let container = table.container ?? "0"
        return """
            SELECT \(container), order_key FROM (SELECT \(container), order_key,
                lag(order_key) OVER (PARTITION BY \(container) ORDER BY position) AS previous FROM \(table.rawValue))
            WHERE order_key IS NULL OR previous >= order_key
            """
    }

    /// Re-keys one container: its elements without a key, and the fewest others whose keys, left alone, put
    /// the rest in order (all but a longest run of keys increasing with position: a row moved by hand is the
    /// one re-keyed, not its neighbours), a run at a time between the keys kept around it. Returns how many.
    private static func rekey(_ table: MergeRegisters.Table, container: Int64?, _ db: Connection) throws -> Int {
        let scope = table.container.map { "WHERE \($0) = ?1 " } ?? ""
        let elements = try db.cached("SELECT id, order_key FROM \(table.rawValue) \(scope)ORDER BY position").bind(container.map { [.integer($0)] } ?? [])
            .map { (id: $0.int64(0), key: $0.blob(1)) }
        let kept = longestIncreasing(elements.map(\.key))
        var runs: [[Int64]] = []
        var run: [Int64] = []
        for (index, element) in elements.enumerated() {
            if kept.contains(index) {
                if !run.isEmpty { runs.append(run) }
                run = []
            } else {
                run.append(element.id)
            }
        }
        if !run.isEmpty { runs.append(run) }
        let forget = try db.cached("UPDATE \(table.rawValue) SET order_key = NULL WHERE id = ?1")
        for id in runs.joined() { try forget.bind([.integer(id)]).run() }
        for run in runs { try MergeRegisters.place(run, in: table, db) }
        return runs.reduce(0) { $0 + $1.count }
    }

    /// The indexes of a longest strictly increasing subsequence of the keys present (patience sorting).
    static func longestIncreasing(_ keys: [[UInt8]?]) -> Set<Int> {
        var tails: [Int] = []  // tails[k]: the index ending the best increasing run of length k + 1 so far
        var previous = [Int?](repeating: nil, count: keys.count)
        for (index, key) in keys.enumerated() {
            guard let key else { continue }
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if keys[tails[middle]].map({ $0.lexicographicallyPrecedes(key) }) ?? false { low = middle + 1 } else { high = middle }
            }
            previous[index] = low > 0 ? tails[low - 1] : nil
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var kept: Set<Int> = []
        var cursor = tails.last
        while let index = cursor {
            kept.insert(index)
            cursor = previous[index]
        }
        return kept
    }
}
