import SQLiteLayer

/// The full-text index of titles, opt-in per file (``ListStore/addTitleIndex()``): an FTS5 table keyed by the
/// row's id, external content (`content = 'rows'`: it holds the words, not the titles again), made from
/// ``indexed(_:)`` of each title and tokenized by `unicode61 remove_diacritics 2`.
///
/// It is kept true as the payload-field indexes are (``PayloadIndex``): while it exists, every write notes
/// the rows it writes or deletes in `liststore_payload_stale` with the title the index holds for them
/// (other programs' writes are noted by the schema's triggers, 0013), and ``refreshStale(_:)``, run by
/// ``PayloadIndex/refreshStale(_:)`` before every write commits, removes the noted words and makes the
/// rows' words again. A search reads the words of rows not noted, and judges the noted rows by their
/// titles (``TitleWordQuery/matches(_:)``).
enum TitleWords {
    /// The index's table; its existence is what turns the index on.
    static let table = "liststore_title_words"

    /// The index's definition: external content, no column sizes (no ranking needs them).
    static let definition = """
        CREATE VIRTUAL TABLE liststore_title_words USING fts5 (title, content = 'rows', content_rowid = 'id', \
        tokenize = 'unicode61 remove_diacritics 2', columnsize = 0)
        """

    /// What the file holds under the index's name.
    enum Presence {
        /// No such table: no index.
        case none
        /// The index, as ``definition`` makes it.
        case ours
        /// A table of that name that another program made or redefined: searches, writes and `check` leave it
        /// alone, `check` reports it, and `repair` (or adding the index) makes the index again in its place.
        case foreign
    }

    static func presence(_ db: Connection) throws -> Presence {
        guard let sql = try db.scalarText("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = '\(table)'") else { return .none }
        let words = { (text: String) in text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ") }
        return words(sql) == words(definition) ? .ours : .foreign
    }

    /// Whether the file has the index, as ListStore made it.
    static func exists(_ db: Connection) throws -> Bool { try presence(db) == .ours }

    /// The text the index holds for `title`: ``prepared(_:)`` without its marks (``withoutMarks(_:)``), so
    /// that accents are ignored in every script as ``TitleWordQuery/tokens(of:keepingAccents:)`` ignores them
    /// (`unicode61`'s `remove_diacritics` removes those of Latin letters only: `σίσυφος` would not be found by
    /// `σισυφος`, nor `ёлка` by `елка`).
    static func indexed(_ title: String) -> String {
        spaced(withoutMarks(folded(title)))
    }

    /// `title` as a search judges it in Swift: ``folded(_:)``, and spaced as the index is, marks kept (a
    /// search that matches accents compares them).
    static func prepared(_ title: String) -> String {
        spaced(folded(title))
    }

    /// `text` with every character of a script written without spaces between words set apart by spaces, so
    /// that each is a word of its own and a run of them is found as a phrase (`法` and `師` both find `法師`;
    /// `法師` finds it too, `師法` does not).
    static func spaced(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isWrittenWithoutSpaces) else { return text }
        var spaced = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isWrittenWithoutSpaces(scalar) {
                spaced.append(" ")
                spaced.append(scalar)
                spaced.append(" ")
            } else {
                spaced.append(scalar)
            }
        }
        return String(spaced)
    }

    /// `text` decomposed, without its combining marks (accents, tonos, Hebrew points, Arabic vowel marks),
    /// composed again.
    static func withoutMarks(_ text: String) -> String {
        // Decomposing costs about 3 µs a title: skipped when no character can hold a mark — ASCII, Han
        // ideographs and Hangul syllables (which decompose to letters alone), most titles.
        guard text.unicodeScalars.contains(where: mayHoldMarks) else { return text }
        let decomposed = text.decomposedStringWithCanonicalMapping
        guard decomposed.unicodeScalars.contains(where: isMark) else { return text }
        var kept = String.UnicodeScalarView()
        for scalar in decomposed.unicodeScalars where !isMark(scalar) { kept.append(scalar) }
        return String(kept).precomposedStringWithCanonicalMapping
    }

    private static func mayHoldMarks(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0...0x7F, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0x20000...0x3134F: false
        default: true
        }
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// `text` with what `unicode61` does not fold folded: `ß` and `ẞ` as `ss` (Unicode's full case folding;
    /// `unicode61` folds one character to one, and leaves `ß` a letter of its own), and the final sigma `ς`
    /// as `σ` (which `unicode61` folds `Σ` to).
    static func folded(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "ß" || $0 == "ẞ" || $0 == "ς" }) else { return text }
        var folded = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "ß", "ẞ": folded.append(contentsOf: "ss".unicodeScalars)
            case "ς": folded.append("σ")
            default: folded.append(scalar)
            }
        }
        return String(folded)
    }

    /// Whether `scalar` is of a script written without spaces between words: Han (with its compatibility
    /// ideographs and extensions), Hiragana, Katakana (full and half width), Thai, Lao, Khmer, Myanmar.
    static func isWrittenWithoutSpaces(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0E00...0x0EFF, 0x1000...0x109F, 0x1780...0x17FF, 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xF900...0xFAFF, 0xFF66...0xFF9F, 0x20000...0x3134F:
            true
        default: false
        }
    }

    /// Removes the words of every row noted in `liststore_payload_stale` with a title (those the index
    /// holds) and makes the words of the noted rows that exist again; the notes are left for
    /// ``PayloadIndex/refreshStale(_:)``, which calls this first and then forgets them.
    static func refreshStale(_ db: Connection) throws {
        let remove = try db.cached("INSERT INTO liststore_title_words (liststore_title_words, rowid, title) VALUES ('delete', ?1, ?2)")
        try db.cached("SELECT row_id, title FROM liststore_payload_stale WHERE title IS NOT NULL").bind([]).forEachRow { row in
            try remove.bind([.integer(row.int64(0)), .text(indexed(row.text(1)))]).run()
        }
        let insert = try db.cached("INSERT INTO liststore_title_words (rowid, title) VALUES (?1, ?2)")
        // The notes drive the join, as in PayloadIndex.refreshStale.
        try db.cached("SELECT r.id, r.title FROM liststore_payload_stale s CROSS JOIN rows r ON r.id = s.row_id").bind([]).forEachRow { row in
            try insert.bind([.integer(row.int64(0)), .text(indexed(row.text(1)))]).run()
        }
    }

    /// Makes the index from every row's title, in the caller's write transaction: the notes are forgotten
    /// first (``PayloadIndex/refreshStale(_:)``), so that every row is indexed as it is now. False when the
    /// file already had it (nothing done).
    static func add(_ db: Connection) throws -> Bool {
        let presence = try presence(db)
        guard presence != .ours else { return false }
        try PayloadIndex.refreshStale(db)
        if presence == .foreign { try db.run("DROP TABLE liststore_title_words") }
        try db.run(definition)
        try fill(db)
        return true
    }

    /// Drops the index (and the notes, when no payload field needs them); false when there was none.
    static func remove(_ db: Connection) throws -> Bool {
        guard try presence(db) != .none else { return false }
        try db.run("DROP TABLE liststore_title_words")
        if try !PayloadIndex.anyField(db) { try db.run("DELETE FROM liststore_payload_stale") }
        return true
    }

    /// Every row's words, into an empty index, merged into one segment.
    private static func fill(_ db: Connection) throws {
        let insert = try db.cached("INSERT INTO liststore_title_words (rowid, title) VALUES (?1, ?2)")
        try db.cached("SELECT id, title FROM rows ORDER BY id").bind([]).forEachRow { row in
            try insert.bind([.integer(row.int64(0)), .text(indexed(row.text(1)))]).run()
        }
        try db.run("INSERT INTO liststore_title_words (liststore_title_words) VALUES ('optimize')")
    }

    /// Makes the index again from every row's title (``ListStore/repair()``); the notes then hold each noted
    /// row's title as it is now, as the index does.
    static func rebuild(_ db: Connection) throws {
        // Dropped and made again, not emptied: a table another program redefined, or whose shadow tables it
        // damaged, is replaced whole.
        try db.run("DROP TABLE liststore_title_words")
        try db.run(definition)
        try fill(db)
        try db.run("UPDATE liststore_payload_stale SET title = (SELECT title FROM rows WHERE rows.id = row_id)")
    }

    /// How many rows not noted stale have words other than their title gives (or none), and how many rows
    /// the index holds words of that no longer exist (deleted by a program with triggers off); for `check`.
    /// Makes the words of every title again in a temporary index and compares the two, word by word.
    static func disagreements(_ db: Connection) throws -> (rows: Int, deadEntries: Int) {
        // A store opened for reading refuses writes with query_only, the temporary database's too (as in
        // Backup): lifted for these temporary tables alone; the file itself stays untouched.
        let queryOnly = try db.scalarInt("PRAGMA query_only") == 1
        if queryOnly { try db.run("PRAGMA query_only = OFF") }
        defer { if queryOnly { try? db.run("PRAGMA query_only = ON") } }
        try db.run("DROP TABLE IF EXISTS temp.liststore_title_words_expected")
        try db.run(
            "CREATE VIRTUAL TABLE temp.liststore_title_words_expected USING fts5 (title, content = '', tokenize = 'unicode61 remove_diacritics 2', columnsize = 0)")
        defer {
            try? db.run("DROP TABLE IF EXISTS temp.liststore_title_words_found")
            try? db.run("DROP TABLE IF EXISTS temp.liststore_title_words_made")
            try? db.run("DROP TABLE IF EXISTS temp.liststore_title_words_expected")
        }
        let insert = try db.cached("INSERT INTO temp.liststore_title_words_expected (rowid, title) VALUES (?1, ?2)")
        try db.cached("SELECT id, title FROM rows WHERE id NOT IN (SELECT row_id FROM liststore_payload_stale)").bind([]).forEachRow { row in
            try insert.bind([.integer(row.int64(0)), .text(indexed(row.text(1)))]).run()
        }
        try db.run("CREATE VIRTUAL TABLE temp.liststore_title_words_found USING fts5vocab(main, liststore_title_words, instance)")
        try db.run("CREATE VIRTUAL TABLE temp.liststore_title_words_made USING fts5vocab(temp, liststore_title_words_expected, instance)")
        let found = "SELECT term, doc, offset FROM temp.liststore_title_words_found WHERE doc NOT IN (SELECT row_id FROM liststore_payload_stale)"
        let made = "SELECT term, doc, offset FROM temp.liststore_title_words_made"
        var differing = 0
        var dead = 0
        try db.cached(
            """
            SELECT EXISTS (SELECT 1 FROM rows WHERE rows.id = doc) FROM (SELECT doc FROM (\(found) EXCEPT \(made)) \
            UNION SELECT doc FROM (\(made) EXCEPT \(found)))
            """
        ).bind([]).forEachRow { row in
            if row.int(0) == 1 { differing += 1 } else { dead += 1 }
        }
        return (differing, dead)
    }
}
