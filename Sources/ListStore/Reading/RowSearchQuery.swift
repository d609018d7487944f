import SQLiteLayer

extension ListReader {
    /// The most rows one page of a search returns.
    public static let maximumSearchLimit = 10_000

    /// The longest title text a search takes, in UTF-8 bytes: escaped, it stays within the pattern length
    /// SQLite's `LIKE` accepts (50,000 bytes by default).
    public static let maximumSearchTextLength = 10_000

    /// One page of the rows that `search` finds, at most `limit` (1…``maximumSearchLimit``), after
    /// `cursor` (nil: from the first row), each with its index path, all of this reader's state.
    ///
    /// Rows come in id order, and the page's ``SearchPage/next`` continues after its last row (see
    /// ``SearchCursor``). The query finds ids by the title and payload conditions alone, then reads each
    /// row's index path. It reads the rows in id order until it has `limit` + 1 matches, so a page costs
    /// about (rows read) × (the cost of testing one), and a search that finds few rows reads all of them:
    /// 1,000,000 rows in about 0.1 s for a title, 0.3 s for a payload field (README, "Typed payloads and search").
    /// A row whose section was deleted by hand (it has no index path) is passed over.
    public func findRows(_ search: RowSearch, limit: Int = 50, after cursor: SearchCursor? = nil) throws -> SearchPage {
        try whileOpen { try RowSearchQuery(search, limit: limit).page(after: cursor, list: list, db) }
    }
}

/// A search as one SQL statement over `rows` alone (no positions), with every value bound.
struct RowSearchQuery {
    let sql: String
    let values: [SQLiteValue]
    let limit: Int

    init(_ search: RowSearch, limit: Int) throws {
        guard (1...ListReader.maximumSearchLimit).contains(limit) else {
            throw ListStoreError.invalidSearch("the limit is \(limit); it must be 1…\(ListReader.maximumSearchLimit)")
        }
        self.limit = limit
        var conditions = ["id > ?1"]
        var values: [SQLiteValue] = [.null]
        if let text = search.titleContains, !text.isEmpty {
            guard !ByteSearch.contains(0, in: text) else { throw ListStoreError.invalidSearch("the title text contains a NUL character, which no title has") }
            guard text.utf8.count <= ListReader.maximumSearchTextLength else {
                throw ListStoreError.invalidSearch("the title text is \(text.utf8.count) bytes long; search for at most \(ListReader.maximumSearchTextLength) bytes of it")
            }
            values.append(.text("%" + Self.escapedForLike(text) + "%"))
            conditions.append("title LIKE ?\(values.count) ESCAPE '\\'")
        }
        for match in search.payloadMatches {
            values.append(try Self.value(match))
            // The path is written into the SQL text (an expression index would match only a literal path)
            // and is made of PayloadField's checked characters alone; the value is bound.
            conditions.append("json_extract(payload, '\(match.field.jsonPath)') = ?\(values.count)")
        }
        values.append(.int(limit + 1))
        sql = "SELECT id, title, payload FROM rows WHERE \(conditions.joined(separator: " AND ")) ORDER BY id LIMIT ?\(values.count)"
        self.values = values
    }

    /// The page after `cursor`: ids first, then each row's index path. Rows of lists other than `list`
    /// are left out (a page may then hold fewer than `limit` results, and `next` still goes on).
    func page(after cursor: SearchCursor?, list: Int64, _ db: Connection) throws -> SearchPage {
        var bound = values
        bound[0] = .integer(cursor?.lastRowID.rawValue ?? Int64.min)
        let found = try db.cached(sql).bind(bound).map { ListRow(id: RowID(rawValue: $0.int64(0)), title: $0.text(1), payload: $0.optionalText(2)) }
        var results: [SearchResult] = []
        results.reserveCapacity(min(found.count, limit))
        for row in found.prefix(limit) {
            do {
                results.append(SearchResult(row: row, indexPath: try db.location(of: row.id, list: list).path))
            } catch ListStoreError.unknownRow {
                continue  // its section was deleted by hand: not in the list a table view shows
            } catch ListStoreError.rowInAnotherList {
                continue
            }
        }
        let next = found.count > limit ? found.prefix(limit).last.map { SearchCursor(after: $0.id) } : nil
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
