import Foundation
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
    /// Rows come in id order (or ``RowSearch/inDisplayOrder``, or best match first: ``RowSearch/ranked``),
    /// and the page's ``SearchPage/next`` continues after its last row (see ``SearchCursor``). A search by
    /// ``RowSearch/titleWords`` reads the full-text index of titles (and the
    /// few rows written by other programs since ListStore's last write) when the file has it
    /// (``ListStore/addTitleIndex()``), else reads and judges every title; its pages carry the number of
    /// rows the whole search finds (``SearchPage/total``). Otherwise, when a payload field of the search is indexed (``ListStore/addPayloadIndex(on:)``),
    /// the page reads only the rows whose entry holds the value asked for (and the few rows written by
    /// other programs since ListStore's last write): about 0.1 ms for a page at 1,000,000 rows. Otherwise
    /// it reads the list's rows in id order until it has `limit` + 1 matches, so a page costs about
    /// (rows read) × (the cost of testing one), and a search that finds few rows reads all of them:
    /// 1,000,000 rows in about 0.1 s for a title, 0.3 s for a payload field (PayloadsAndSearch.md, "Search").
    /// A row whose section was deleted by hand (it has no index path) is passed over.
    public func findRows(_ search: RowSearch, limit: Int = 50, after cursor: SearchCursor? = nil) throws -> SearchPage {
        try whileOpen {
            let indexed = Set(try PayloadIndex.fields(db))
            // A file without the index of titles (it is opt-in): its titles are judged one by one.
            let titleIndex = try search.titleWords == nil || TitleWords.exists(db)
            let onlyList = try search.titleWords != nil && db.scalarInt("SELECT count(*) FROM (SELECT 1 FROM lists LIMIT 2)") == 1
            return try RowSearchQuery(search, limit: limit, list: list, indexed: indexed, titleIndex: titleIndex, onlyList: onlyList).page(after: cursor, db)
        }
    }
}

/// A search as SQL over `rows` alone (no positions), with every value bound: one statement; or, when the
/// search has title words, one over the full-text index and one over the rows noted stale (judged in Swift);
/// or, when a payload field of the search is indexed, one over that field's entries and one over the rows
/// noted stale; merged by id.
struct RowSearchQuery {
    /// One statement whose results are merged: it gives `id, title, payload` in id order, at most `limit` + 1,
    /// taking the first `valueCount` of ``values``; `accepts`, when there is one, judges each row's title
    /// further (the statement is then run again after its last row until enough rows pass or none is left).
    struct Part {
        let sql: String
        let valueCount: Int
        let accepts: (@Sendable (String) -> Bool)?
    }

    let statements: [Part]
    let values: [SQLiteValue]
    let limit: Int
    let list: Int64
    let displayOrder: Bool
    /// The statement counting the rows the index finds for the title words (those not noted stale), when the
    /// search has them: with ``values``; when the words are judged further in Swift, it gives their titles.
    let counting: (sql: String, valueCount: Int, accepts: (@Sendable (String) -> Bool)?)?
    /// The statement of the noted rows meeting the search's SQL tests, with its judge: for the count.
    let staleCounting: Part?
    /// For a ranked search (``RowSearch/ranked``): the words, the statement ranking the index's rows (none
    /// without the index), and the one whose rows are scored in Swift (the noted rows; every row found
    /// without the index), both as ``statements`` has them.
    let ranking: Ranking?

    struct Ranking {
        let words: TitleWordQuery
        /// Gives `id, title, payload, score` after the key (`?1` the id, the last value the score; NULL: from
        /// the start), best first, at most `limit` + 1.
        let fromIndex: Part?
        let scoredHere: Part
    }

    /// `onlyList`: the file has one list, so that a search by title words alone counts its rows from the index
    /// without reading them.
    init(_ search: RowSearch, limit: Int, list: Int64, indexed: Set<PayloadField> = [], titleIndex: Bool = true, onlyList: Bool = false) throws {
        guard (1...ListReader.maximumSearchLimit).contains(limit) else {
            throw ListStoreError.invalidSearch("the limit is \(limit); it must be 1…\(ListReader.maximumSearchLimit)")
        }
        self.limit = limit
        self.list = list
        displayOrder = search.inDisplayOrder
        if search.ranked {
            guard search.titleWords != nil else {
                throw ListStoreError.invalidSearch("ranked orders rows by how well their titles match titleWords; give titleWords too")
            }
            guard !search.inDisplayOrder else { throw ListStoreError.invalidSearch("ranked and inDisplayOrder are two orders; choose one") }
        }
        // ?1 the first id the page may hold, ?2 the list, ?3 the limit + 1; the conditions' values follow. The list's test is
        // `+r.section_id` so that no index on it is used: rows are read in id order and a page stops early.
        var values: [SQLiteValue] = [.null, .integer(list), .int(limit + 1)]
        var conditions: [String] = []
        let words = try search.titleWords.map { try TitleWordQuery($0, lastIsPrefix: search.lastWordIsPrefix, matchingAccents: search.matchingAccents) }
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
        let stale = """
            SELECT r.id, r.title, r.payload FROM liststore_payload_stale s CROSS JOIN rows r ON r.id = s.row_id \
            WHERE s.row_id >= ?1 AND \(tests) ORDER BY s.row_id LIMIT ?3
            """
        if let words, !titleIndex {
            let judge: @Sendable (String) -> Bool = { words.matches($0) }
            statements = [Part(sql: "SELECT r.id, r.title, r.payload FROM rows r WHERE r.id >= ?1 AND \(tests) ORDER BY r.id LIMIT ?3", valueCount: values.count, accepts: judge)]
            counting = ("SELECT r.title FROM rows r WHERE ?1 IS NULL AND ?3 > 0 AND \(tests)", values.count, judge)
            staleCounting = nil
            ranking = search.ranked ? Ranking(words: words, fromIndex: nil, scoredHere: statements[0]) : nil
        } else if let words {
            // The index's entries of rows noted stale may be out of date: those rows are judged by their titles.
            let scanned = values.count
            values.append(.text(words.expression))
            let judge: @Sendable (String) -> Bool = { words.matches($0) }
            let fromIndex = """
                FROM liststore_title_words CROSS JOIN rows r ON r.id = liststore_title_words.rowid \
                WHERE liststore_title_words MATCH ?\(values.count) AND liststore_title_words.rowid NOT IN (SELECT row_id FROM liststore_payload_stale) \
                AND \(tests)
                """
            let accepts = words.matchesAccents ? judge : nil
            let key = values.count + 1
            // `score` is bm25 again at each use; FTS5 keeps a row's size and instances once read, so a later page's
            // key costs no more than the first page's (measured: 0.19–0.23 s against 0.25 s for inv's 97,500 rows).
            ranking =
                search.ranked
                ? Ranking(
                    words: words,
                    fromIndex: Part(
                        sql: """
                            SELECT r.id, r.title, r.payload, bm25(liststore_title_words) AS score \(fromIndex) \
                            AND (?\(key) IS NULL OR score > ?\(key) OR (score = ?\(key) AND r.id > ?1)) ORDER BY score, r.id LIMIT ?3
                            """, valueCount: values.count, accepts: accepts),
                    scoredHere: Part(sql: stale, valueCount: scanned, accepts: judge)) : nil
            statements = [
                Part(
                    sql: "SELECT r.id, r.title, r.payload \(fromIndex) AND liststore_title_words.rowid >= ?1 ORDER BY liststore_title_words.rowid LIMIT ?3",
                    valueCount: values.count, accepts: accepts),
                Part(sql: stale, valueCount: scanned, accepts: judge),
            ]
            if onlyList && accepts == nil && conditions.count == 1 {
                // Every row is the list's: the index counts its matches without reading the rows (at 100,000 matches,
                // 45 ms through the rows), less those of rows noted stale, which are judged by their titles below. A row
                // whose section a hand edit deleted (`check` reports it) is counted though no page returns it. The `+` keeps
                // FTS5 from taking the noted ids as rowid look-ups, each of which would run the whole match again.
                let words = "liststore_title_words MATCH ?\(values.count)"
                counting = (
                    """
                    SELECT (SELECT count(*) FROM liststore_title_words WHERE \(words)) - (SELECT count(*) FROM liststore_title_words \
                    WHERE \(words) AND +liststore_title_words.rowid IN (SELECT row_id FROM liststore_payload_stale))
                    """, values.count, nil
                )
            } else {
                counting = (
                    accepts == nil ? "SELECT count(*) \(fromIndex) AND ?1 IS NULL AND ?3 > 0" : "SELECT r.title \(fromIndex) AND ?1 IS NULL AND ?3 > 0", values.count,
                    accepts
                )
            }
            staleCounting = Part(
                sql: "SELECT r.id, r.title, r.payload FROM liststore_payload_stale s CROSS JOIN rows r ON r.id = s.row_id WHERE ?1 IS NULL AND ?3 > 0 AND \(tests)",
                valueCount: scanned, accepts: judge)
        } else if let driver {
            let scanned = values.count
            values.append(.text(driver.field.name))
            statements = [
                Part(
                    sql: """
                        SELECT r.id, r.title, r.payload FROM liststore_payload_values v CROSS JOIN rows r ON r.id = v.row_id \
                        WHERE v.field = ?\(values.count) AND v.value = ?\(driver.value) AND v.row_id >= ?1 AND \(tests) ORDER BY v.row_id LIMIT ?3
                        """, valueCount: values.count, accepts: nil),
                Part(sql: stale, valueCount: scanned, accepts: nil),
            ]
            counting = nil
            staleCounting = nil
            ranking = nil
        } else {
            statements = [Part(sql: "SELECT r.id, r.title, r.payload FROM rows r WHERE r.id >= ?1 AND \(tests) ORDER BY r.id LIMIT ?3", valueCount: values.count, accepts: nil)]
            counting = nil
            staleCounting = nil
            ranking = nil
        }
        self.values = values
    }

    /// The page after `cursor`: ids first, then each row's index path.
    func page(after cursor: SearchCursor?, _ db: Connection) throws -> SearchPage {
        if let ranking { return try rankedPage(ranking, after: cursor, db) }
        if displayOrder { return try displayOrderPage(after: cursor, db) }
        // From the id after the cursor's (the first page from the smallest id there is, which a hand edit can give a row).
        var first = Int64.min
        if let cursor {
            let (next, past) = cursor.lastRowID.rawValue.addingReportingOverflow(1)
            if past { return SearchPage(results: [], next: nil, version: try StateVersion.read(db), total: try total(db)) }
            first = next
        }
        var found: [Int64: ListRow] = [:]
        for part in statements {
            for row in try rows(of: part, from: first, db) { found[row.id.rawValue] = row }
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
        return SearchPage(results: results, next: next, version: try StateVersion.read(db), total: try total(db))
    }

    /// A page in display order: every row found, with its section's position and its own, sorted; the rows
    /// after the cursor's row where it is now.
    private func displayOrderPage(after cursor: SearchCursor?, _ db: Connection) throws -> SearchPage {
        var found: [Int64: ListRow] = [:]
        for part in statements {
            var bound = Array(values.prefix(part.valueCount))
            bound[0] = .integer(Int64.min)
            bound[2] = .integer(-1)  // no limit
            try db.cached(part.sql).bind(bound).forEachRow { row in
                let title = row.text(1)
                if part.accepts?(title) ?? true { found[row.int64(0)] = ListRow(id: RowID(rawValue: row.int64(0)), title: title, payload: row.optionalText(2)) }
            }
        }
        let place = try db.cached(
            "SELECT s.position, r.position FROM rows r CROSS JOIN sections s ON s.id = r.section_id WHERE r.id = ?1 AND s.list_id = ?2")
        func position(_ id: Int64) throws -> (Int64, Int64)? {
            try place.bind([.integer(id), .integer(list)]).first { ($0.int64(0), $0.int64(1)) }
        }
        var placed: [(place: (Int64, Int64), row: ListRow)] = []
        placed.reserveCapacity(found.count)
        for (id, row) in found {
            if let at = try position(id) { placed.append((at, row)) }  // a row whose section was deleted by hand has no place
        }
        placed.sort { $0.place < $1.place }
        var start = 0
        if let cursor {
            guard let at = try position(cursor.lastRowID.rawValue) else {
                return SearchPage(results: [], next: nil, version: try StateVersion.read(db), total: try total(db))
            }
            start = placed.firstIndex { $0.place > at } ?? placed.count
        }
        let page = placed[start...].prefix(limit)
        let results = try page.map { SearchResult(row: $0.row, indexPath: try db.location(of: $0.row.id, list: list).path) }
        let next = start + page.count < placed.count ? page.last.map { SearchCursor(after: $0.row.id) } : nil
        return SearchPage(results: results, next: next, version: try StateVersion.read(db), total: try total(db))
    }

    /// A page best match first: the index's rows after the cursor's key (its row's score and id), by SQL, and
    /// the rows scored here after it, merged.
    private func rankedPage(_ ranking: Ranking, after cursor: SearchCursor?, _ db: Connection) throws -> SearchPage {
        var statistics: TitleRanking?
        func score(_ title: String) throws -> Double {
            let known = try statistics ?? (ranking.fromIndex == nil ? TitleRanking.fromTitles(ranking.words, db) : TitleRanking.fromIndex(ranking.words, db))
            statistics = known
            let tokens = TitleWordQuery.tokens(of: TitleWords.indexed(title), keepingAccents: false)
            return known.score(occurrences: ranking.words.occurrences(inIndexedTokens: tokens), title: title)
        }
        var bound = Array(values.prefix(ranking.scoredHere.valueCount))
        bound[0] = .integer(Int64.min)
        bound[2] = .integer(-1)  // no limit
        let read = try db.cached(ranking.scoredHere.sql).bind(bound).map { ListRow(id: RowID(rawValue: $0.int64(0)), title: $0.text(1), payload: $0.optionalText(2)) }
        var found: [(score: Double, row: ListRow)] = []
        for row in read where ranking.scoredHere.accepts?(row.title) ?? true { found.append((try score(row.title), row)) }
        var key: (score: Double, id: Int64)?
        if let cursor {
            let id = cursor.lastRowID.rawValue
            if let scored = found.first(where: { $0.row.id.rawValue == id }) {
                key = (scored.score, id)
            } else if ranking.fromIndex != nil,
                let scored = try db.cached(
                    """
                    SELECT bm25(liststore_title_words) FROM liststore_title_words WHERE liststore_title_words MATCH ?1 AND rowid = ?2 \
                    AND ?2 NOT IN (SELECT row_id FROM liststore_payload_stale)
                    """
                ).bind([.text(ranking.words.expression), .integer(id)]).first({ $0.double(0) })
            {
                key = (scored, id)
            } else {
                return SearchPage(results: [], next: nil, version: try StateVersion.read(db), total: try total(db))  // the cursor's row no longer matches
            }
        }
        func isAfterKey(_ score: Double, _ id: Int64) -> Bool {
            guard let key else { return true }
            return score > key.score || (score == key.score && id > key.id)
        }
        var candidates = found.filter { isAfterKey($0.score, $0.row.id.rawValue) }
        if let part = ranking.fromIndex {
            var bound = Array(values.prefix(part.valueCount))
            bound[0] = key.map { .integer($0.id) } ?? .null
            bound.append(key.map { .real($0.score) } ?? .null)
            var kept = 0
            while true {
                let read = try db.cached(part.sql).bind(bound).map { ($0.double(3), ListRow(id: RowID(rawValue: $0.int64(0)), title: $0.text(1), payload: $0.optionalText(2))) }
                let accepted = part.accepts.map { accepts in read.filter { accepts($0.1.title) } } ?? read
                candidates += accepted.map { (score: $0.0, row: $0.1) }
                kept += accepted.count
                guard part.accepts != nil, kept <= limit, read.count == limit + 1, let last = read.last else { break }
                bound[0] = .integer(last.1.id.rawValue)
                bound[bound.count - 1] = .real(last.0)
            }
        }
        candidates.sort { ($0.score, $0.row.id.rawValue) < ($1.score, $1.row.id.rawValue) }
        let ordered = candidates.prefix(limit + 1)
        var results: [SearchResult] = []
        for scored in ordered.prefix(limit) {
            do {
                results.append(SearchResult(row: scored.row, indexPath: try db.location(of: scored.row.id, list: list).path))
            } catch let error as ListStoreError {
                guard case .unknownRow = error.reason else { throw error }
                continue  // its section was deleted by hand: not in the list a table view shows
            }
        }
        let next = ordered.count > limit ? ordered.prefix(limit).last.map { SearchCursor(after: $0.row.id) } : nil
        return SearchPage(results: results, next: next, version: try StateVersion.read(db), total: try total(db))
    }

    /// At most `limit` + 1 rows of `part` from id `first` on, in id order, each accepted by its judge.
    private func rows(of part: Part, from first: Int64, _ db: Connection) throws -> [ListRow] {
        var bound = Array(values.prefix(part.valueCount))
        var from = first
        var kept: [ListRow] = []
        while true {
            bound[0] = .integer(from)
            let read = try db.cached(part.sql).bind(bound).map { ListRow(id: RowID(rawValue: $0.int64(0)), title: $0.text(1), payload: $0.optionalText(2)) }
            kept += part.accepts.map { accepts in read.filter { accepts($0.title) } } ?? read
            guard part.accepts != nil, kept.count <= limit, read.count == limit + 1, let last = read.last else { break }
            let (next, past) = last.id.rawValue.addingReportingOverflow(1)
            if past { break }
            from = next
        }
        return Array(kept.prefix(limit + 1))
    }

    /// How many rows the whole search finds, when it has title words: the index's matches among rows not
    /// noted stale, and the noted rows whose titles match. A row whose section was deleted by hand is left
    /// out, except where the index alone counts the matches (a one-list file): it is counted there.
    private func total(_ db: Connection) throws -> Int? {
        guard let counting else { return nil }
        var bound = Array(values.prefix(counting.valueCount))
        bound[0] = .null
        var total = 0
        if let accepts = counting.accepts {
            try db.cached(counting.sql).bind(bound).forEachRow { if accepts($0.text(0)) { total += 1 } }
        } else {
            total = try db.cached(counting.sql).bind(bound).first { $0.int(0) } ?? 0
        }
        guard let staleCounting else { return total }
        try db.cached(staleCounting.sql).bind(Array(bound.prefix(staleCounting.valueCount))).forEachRow { row in
            if staleCounting.accepts?(row.text(1)) ?? true { total += 1 }
        }
        return total
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
