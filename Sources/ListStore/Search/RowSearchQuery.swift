import SQLiteLayer

extension ListReader {
    /// The most rows one page of a search returns.
    package static let maximumSearchLimit = 10_000

    /// The longest title text a search takes, in UTF-8 bytes: escaped, it stays within the pattern length
    /// SQLite's `LIKE` accepts (50,000 bytes by default).
    package static let maximumSearchTextLength = 10_000

    /// One page of the rows that `search` finds, at most `limit` (1…10,000), after
    /// `cursor` (nil: from the first row), each with its index path, all of this reader's state.
    ///
    /// Rows come in id order, and the page's ``SearchPage/next`` continues after its last row (see
    /// ``SearchCursor``). When a payload field of the search is indexed (``ListStore/addPayloadIndex(on:)``),
    /// the page reads only the rows whose entry holds the value asked for (and the few rows written by
    /// other programs since ListStore's last write): about 0.1 ms for a page at 1,000,000 rows. Otherwise
    /// it reads the list's rows in id order until it has `limit` + 1 matches, so a page costs about
    /// (rows read) × (the cost of testing one), and a search that finds few rows reads all of them:
    /// 1,000,000 rows in about 0.1 s for a title, 0.3 s for a payload field (PayloadsAndSearch.md, "Search").
    /// A row whose section was deleted by hand (it has no index path) is passed over.
    public func findRows(_ search: RowSearch, limit: Int = 50, after cursor: SearchCursor? = nil) throws -> SearchPage {
        try whileOpen {
            let indexed = Set(try PayloadIndex.fields(db))
            return try RowSearchQuery(search, limit: limit, list: list, indexed: indexed).page(after: cursor, db)
        }
    }
}

/// A search as SQL over `rows` alone (no positions), with every value bound: one statement, or, when a
/// payload field of the search is indexed, one over that field's entries and one over the rows noted
/// stale, merged by id.
struct RowSearchQuery {
    /// The statements whose results are merged, each with how many of ``values`` it takes (the first ones):
    /// each gives `id, title, payload` in id order, at most `limit` + 1.
    let statements: [(sql: String, valueCount: Int)]
    let values: [SQLiteValue]
    let limit: Int
    let list: Int64

    init(_ search: RowSearch, limit: Int, list: Int64, indexed: Set<PayloadField> = []) throws {
        guard (1...ListReader.maximumSearchLimit).contains(limit) else {
            throw ListStoreError.invalidSearch("the limit is \(limit); it must be 1…\(ListReader.maximumSearchLimit)")
        }
        self.limit = limit
        self.list = list
        // ?1 the first id the page may hold, ?2 the list, ?3 the limit + 1; the conditions' values follow. The list's test is
        // `+r.section_id` so that no index on it is used: rows are read in id order and a page stops early.
        var values: [SQLiteValue] = [.null, .integer(list), .int(limit + 1)]
        var conditions: [String] = []
        if let text = search.titleContains, !text.isEmpty {
            guard !ByteSearch.contains(0, in: text) else { throw ListStoreError.invalidSearch("the title text contains a NUL character, which no title has") }
            guard text.utf8.count <= ListReader.maximumSearchTextLength else {
                throw ListStoreError.invalidSearch("the title text is \(text.utf8.count) bytes long; search for at most \(ListReader.maximumSearchTextLength) bytes of it")
            }
            values.append(.text("%" + Self.escapedForLike(text) + "%"))
            conditions.append("r.title LIKE ?\(values.count) ESCAPE '\\'")
        }
        // The first indexed field of the search, by the parameter number of its value.
        var driver: (field: PayloadField, value: Int)?
        for match in search.payloadMatches {
            values.append(try Self.value(match))
            // The path is written into the SQL text and is made of PayloadField's checked characters alone;
            // the value is bound. Kept for an indexed field too: a stale row's entry may say otherwise. An object,
            // an array, or a payload that is not valid JSON (a hand edit) matches nothing, as it has no entry.
            conditions.append("\(match.field.scalarValueSQL(of: "r.payload")) = ?\(values.count)")
            if driver == nil, indexed.contains(match.field) { driver = (match.field, values.count) }
        }
        conditions.append("+r.section_id IN (SELECT id FROM sections WHERE list_id = ?2)")  // last: tested only on matches
        let tests = conditions.joined(separator: " AND ")
        // CROSS JOIN keeps the entries (or the few stale rows) as the outer loop: SQLite's planner, without
        // statistics, would otherwise scan the list's rows and look each one up.
        if let driver {
            let scanned = values.count
            values.append(.text(driver.field.name))
            statements = [
                (
                    """
                    SELECT r.id, r.title, r.payload FROM liststore_payload_values v CROSS JOIN rows r ON r.id = v.row_id \
                    WHERE v.field = ?\(values.count) AND v.value = ?\(driver.value) AND v.row_id >= ?1 AND \(tests) ORDER BY v.row_id LIMIT ?3
                    """, values.count
                ),
                (
                    """
                    SELECT r.id, r.title, r.payload FROM liststore_payload_stale s CROSS JOIN rows r ON r.id = s.row_id \
                    WHERE s.row_id >= ?1 AND \(tests) ORDER BY s.row_id LIMIT ?3
                    """, scanned
                ),
            ]
        } else {
            statements = [("SELECT r.id, r.title, r.payload FROM rows r WHERE r.id >= ?1 AND \(tests) ORDER BY r.id LIMIT ?3", values.count)]
        }
        self.values = values
    }

    /// The page after `cursor`: ids first, then each row's index path.
    func page(after cursor: SearchCursor?, _ db: Connection) throws -> SearchPage {
        var bound = values
        // From the id after the cursor's (the first page from the smallest id there is, which a hand edit can give a row).
        var first = Int64.min
        if let cursor {
            let (next, past) = cursor.lastRowID.rawValue.addingReportingOverflow(1)
            if past { return SearchPage(results: [], next: nil, version: try StateVersion.read(db)) }
            first = next
        }
        bound[0] = .integer(first)
        var found: [Int64: ListRow] = [:]
        for (sql, valueCount) in statements {
            for row in try db.cached(sql).bind(Array(bound.prefix(valueCount))).map({ ListRow(id: RowID(rawValue: $0.int64(0)), title: $0.text(1), payload: $0.optionalText(2)) }) {
                found[row.id.rawValue] = row
            }
        }
        let ordered = found.values.sorted { $0.id.rawValue < $1.id.rawValue }.prefix(limit + 1)
        var results: [SearchResult] = []
        results.reserveCapacity(min(ordered.count, limit))
        for row in ordered.prefix(limit) {
            do {
                results.append(SearchResult(row: row, indexPath: try db.location(of: row.id, list: list).path))
            } catch let error as ListStoreError {
                guard case .unknownRow = error.reason else { throw error }
                continue  // its section was deleted by hand: not in the list a table view shows
            }
        }
        let next = ordered.count > limit ? ordered.prefix(limit).last.map { SearchCursor(after: $0.id) } : nil
        return SearchPage(results: results, next: next, version: try StateVersion.read(db))
    }

    /// `text` with `\`, `%` and `_` escaped for `LIKE … ESCAPE '\'`, so that each matches itself.
    static func escapedForLike(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            if character == "\\" || character == "%" || character == "_" { escaped += "\\" }
            escaped.unicodeScalars.append(character)
        }
        return escaped
    }

    private static func value(_ match: PayloadMatch) throws -> SQLiteValue {
        switch match.value {
        case .string(let text): return .text(text)
        case .integer(let number): return .integer(number)
        case .bool(let flag): return .integer(flag ? 1 : 0)
        case .double(let number):
            guard number.isFinite else { throw ListStoreError.invalidSearch("the value of \(match.field) is \(number), which no JSON payload holds") }
            return .real(number)
        }
    }
}
