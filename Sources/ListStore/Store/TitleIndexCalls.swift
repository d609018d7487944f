import SQLiteLayer

extension ListStore {
    /// Adds the file's full-text index of titles, so that a search by ``RowSearch/titleWords`` — a search
    /// bar — reads only the rows it finds: its first page in milliseconds at 1,000,000 rows, with the
    /// number of rows found (``SearchPage/total``), where it reads every title otherwise.
    ///
    /// ```swift
    /// try store.addTitleIndex()  // once; later launches find it there
    /// var search = RowSearch(titleWords: "caf")  // finds "Café au lait", as the person types
    /// let page = try store.read { try $0.findRows(search) }
    /// ```
    ///
    /// The index (an FTS5 table, `liststore_title_words`, holding the titles' words, not the titles again)
    /// covers every list of the file. Building it reads every row once, in one transaction (a process killed
    /// meanwhile leaves the file as it was, without the index); from then on every write keeps it current
    /// in its own transaction, at a cost per edit (BENCHMARKS.md, "Search by title words"). Writes by other
    /// programs are noted by the file's triggers and caught up by ListStore's next write; searches are right
    /// meanwhile. Returns false, writing nothing, when the file already has it.
    @discardableResult
    public func addTitleIndex() throws -> Bool {
        var added = false
        _ = try mutatingLists { db, _ in
            added = try TitleWords.add(db)
            // No edit: a write that adds nothing is rolled back (unless it migrated the file).
            return ([:], added ? .structure(lists: []) : .edits(ListedEvents([], list: Self.defaultListID)))
        }
        return added
    }

    /// Drops the file's index of titles: edits no longer pay for it, and searches by title words read every
    /// title again. Returns false, writing nothing, when the file has none.
    @discardableResult
    public func removeTitleIndex() throws -> Bool {
        var removed = false
        _ = try mutatingLists { db, _ in
            removed = try TitleWords.remove(db)
            return ([:], removed ? .structure(lists: []) : .edits(ListedEvents([], list: Self.defaultListID)))
        }
        return removed
    }

    /// Whether the file has the index of titles (``addTitleIndex()``).
    public func hasTitleIndex() throws -> Bool {
        try read { try TitleWords.exists($0.db) }
    }
}
