import SQLiteLayer

/// The history entries in `liststore_history` (schema version 9): appending one per transaction,
/// keeping each author's last ones, finding what an author can undo or redo, and the barrier an
/// untracked write leaves.
enum HistoryTable {
    /// What an entry is, as stored in its `kind` column.
    enum Kind: String {
        /// An ordinary transaction.
        case edit = "do"
        case undo
        case redo
        /// An untracked write (`writeUntracked`, an import): nothing before it can be undone.
        case barrier
    }

    /// One stored entry, as undo and redo find it (its record is read only when it is the one taken back).
    struct Stored {
        let id: Int64
        let kind: Kind
        let state: String
        let action: String?
    }

    /// A new entry of kind 'do', to be completed by ``commit(_:kind:author:action:reverts:limit:_:)``.
    static func insertPlaceholder(_ db: Connection) throws -> Int64 {
        try db.cached("INSERT INTO liststore_history (author, kind, state, log_seq, record) VALUES ('', 'do', 'done', 0, '')").bind([]).run()
        return db.lastInsertedRowID
    }

    /// Writes the transaction's entry (nothing when it captured no step), in the transaction, before its
    /// change-log entry: `log_seq` is the sequence number that entry gets (AUTOINCREMENT's next).
    /// An ordinary edit clears the author's redo stack in list `list`; an undo or redo marks the entry it reverted.
    /// Then only the author's last `limit` entries are kept.
    static func commit(_ capture: HistoryCapture, kind: Kind, author: String, list: Int64, action: String?, reverts: Int64?, limit: Int, _ db: Connection) throws {
        guard !capture.steps.isEmpty else { return }
        let record = try HistoryRecord.encode(capture.steps)
        let values: [SQLiteValue] = [.text(author), .text(kind.rawValue), reverts.map { .integer($0) } ?? .null, .optionalText(action), .text(record), .integer(list)]
        if let id = capture.entryID {
            try db.cached(
                "UPDATE liststore_history SET author = ?1, kind = ?2, reverts = ?3, action = ?4, record = ?5, list_id = ?6, log_seq = (SELECT \(StateVersion.lastSequenceSQL)) + 1 WHERE id = ?7"
            ).bind(values + [.integer(id)]).run()
        } else {
            try db.cached(
                "INSERT INTO liststore_history (author, kind, state, reverts, action, record, list_id, log_seq) VALUES (?1, ?2, 'done', ?3, ?4, ?5, ?6, (SELECT \(StateVersion.lastSequenceSQL)) + 1)"
            ).bind(values).run()
        }
        switch kind {
        case .edit:
            try db.cached("UPDATE liststore_history SET state = 'cleared' WHERE author = ?1 AND list_id = ?2 AND state = 'done' AND kind = 'undo'").bind([
                .text(author), .integer(list),
            ]).run()
        case .undo, .redo:
            if let reverts { try db.cached("UPDATE liststore_history SET state = 'undone' WHERE id = ?1").bind([.integer(reverts)]).run() }
        case .barrier:
            break
        }
        if PruneSchedule.isDue(db, author: author, list: list, limit: limit) { try prune(author: author, list: list, keeping: limit, db) }
    }

    /// Keeps `author`'s last `limit` transactions in list `list` — entries of kind 'do' or 'redo', what
    /// undo takes back — and the undo entries and barriers after the oldest of them; older ones go (their
    /// deleted sections' rows with them). Undo is per author and list, so a busy list never pushes
    /// another list's undo out. An undo entry reverts one of those, so an author has at most about twice
    /// `limit` entries per list. To spare most writes the pruning (a sort of the author's entries and the
    /// pages of the ones it deletes), it runs once `limit / 8` more have gathered (up to 12 for the
    /// default 100): until then those older ones can still be undone. An ordinary write counts them only
    /// every `limit / 8` writes of this process to the author's list (``PruneSchedule``), so an author
    /// has at most `limit + 2 × (limit / 8)` such entries per list and process (124 for the default).
    private static func prune(author: String, list: Int64, keeping limit: Int, _ db: Connection) throws {
        let limit = max(limit, 1)
        let count =
            try db.cached("SELECT count(*) FROM liststore_history WHERE author = ?1 AND list_id = ?2 AND kind IN ('do', 'redo')")
            .bind([.text(author), .integer(list)]).first { $0.int(0) } ?? 0
        guard count > limit + limit / 8 else { return }
        try db.cached(
            """
            DELETE FROM liststore_history WHERE author = ?1 AND list_id = ?3
                AND id < (SELECT id FROM liststore_history WHERE author = ?1 AND list_id = ?3 AND kind IN ('do', 'redo') ORDER BY id DESC LIMIT 1 OFFSET ?2)
            """
        ).bind([.text(author), .int(limit - 1), .integer(list)]).run()
    }

    /// After list `list` was deleted: its entries, which nothing can undo any more.
    static func forget(list: Int64, _ db: Connection) throws {
        try db.cached("DELETE FROM liststore_history WHERE list_id = ?1").bind([.integer(list)]).run()
    }

    /// After an untracked write (no steps to undo it by): every entry still to undo or redo, by any
    /// author, is blocked, and a barrier entry says why.
    static func barrier(author: String, list: Int64, action: String, limit: Int, _ db: Connection) throws {
        try db.cached("UPDATE liststore_history SET state = 'blocked' WHERE state = 'done'").bind([]).run()
        try db.cached(
            "INSERT INTO liststore_history (author, list_id, kind, state, action, record, log_seq) VALUES (?1, ?3, 'barrier', 'blocked', ?2, '', (SELECT \(StateVersion.lastSequenceSQL)) + 1)"
        ).bind([.text(author), .text(action), .integer(list)]).run()
        try prune(author: author, list: list, keeping: max(limit, 1), db)
    }

    /// `author`'s entries in list `list` that undo (kinds 'do' and 'redo') or redo (kind 'undo') would
    /// take back, newest first: those still 'done', and 'blocked' ones (which refuse).
    static func candidates(author: String, list: Int64, redo: Bool, _ db: Connection) throws -> [Stored] {
        let kinds = redo ? "kind = 'undo'" : "kind IN ('do', 'redo')"
        return try db.cached(
            "SELECT id, kind, state, action FROM liststore_history WHERE author = ?1 AND list_id = ?2 AND state IN ('done', 'blocked') AND \(kinds) ORDER BY id DESC"
        ).bind([.text(author), .integer(list)]).map {
            Stored(id: $0.int64(0), kind: Kind(rawValue: $0.text(1)) ?? .edit, state: $0.text(2), action: $0.optionalText(3))
        }
    }

    /// The record of entry `id`.
    static func record(of id: Int64, _ db: Connection) throws -> String? {
        try db.cached("SELECT record FROM liststore_history WHERE id = ?1").bind([.integer(id)]).first { $0.text(0) }
    }

    /// The barrier entry after entry `id`, if any: what blocked it.
    static func barrier(after id: Int64, _ db: Connection) throws -> (id: Int64, action: String?, author: String)? {
        try db.cached("SELECT id, action, author FROM liststore_history WHERE kind = 'barrier' AND id > ?1 ORDER BY id LIMIT 1")
            .bind([.integer(id)]).first { ($0.int64(0), $0.optionalText(1), $0.text(2)) }
    }

    /// Marks an entry whose undo (or redo) would change nothing as taken back, with no entry of its own.
    static func markPassed(_ id: Int64, _ db: Connection) throws {
        try db.cached("UPDATE liststore_history SET state = 'undone' WHERE id = ?1").bind([.integer(id)]).run()
    }

    /// Up to `limit` rows of deleted section `section` kept by entry `entry`, from index `start` on, in order.
    static func sectionRows(entry: Int64, section: Int64, from start: Int64, limit: Int, _ db: Connection) throws -> [HistoryRow] {
        try db.cached("SELECT row_id, title, payload FROM liststore_history_rows WHERE entry = ?1 AND section = ?2 AND ord >= ?3 ORDER BY ord LIMIT ?4")
            .bind([.integer(entry), .integer(section), .integer(start), .int(limit)]).map {
                HistoryRow(id: $0.int64(0), title: $0.text(1), payload: $0.optionalText(2))
            }
    }

    /// How many rows kept by `entry` for section `section` have an id a row of the store has now.
    static func takenRowIDs(entry: Int64, section: Int64, _ db: Connection) throws -> (count: Int64, first: Int64?) {
        try db.cached(
            "SELECT count(*), min(h.row_id) FROM liststore_history_rows AS h JOIN rows AS r ON r.id = h.row_id WHERE h.entry = ?1 AND h.section = ?2"
        ).bind([.integer(entry), .integer(section)]).first { ($0.int64(0), $0.isNull(1) ? nil : $0.int64(1)) } ?? (0, nil)
    }

    /// A row kept by `entry` for section `section` (restored into it by that entry) whose title or
    /// payload is not the kept one any more, with what changed; nil when every kept row is as kept (or
    /// gone: one deleted since has nothing left to take back).
    static func firstChangedKeptRow(entry: Int64, section: Int64, _ db: Connection) throws -> (id: Int64, what: String)? {
        try db.cached(
            """
            SELECT r.id, r.title IS NOT h.title FROM liststore_history_rows AS h JOIN rows AS r ON r.id = h.row_id
            WHERE h.entry = ?1 AND h.section = ?2 AND (r.title IS NOT h.title OR r.payload IS NOT h.payload) ORDER BY h.ord LIMIT 1
            """
        ).bind([.integer(entry), .integer(section)]).first { ($0.int64(0), $0.int64(1) != 0 ? "its title" : "its payload") }
    }

    /// How many rows kept by `entry` for section `section`.
    static func keptRowCount(entry: Int64, section: Int64, _ db: Connection) throws -> Int64 {
        try db.cached("SELECT count(*) FROM liststore_history_rows WHERE entry = ?1 AND section = ?2")
            .bind([.integer(entry), .integer(section)]).first { $0.int64(0) } ?? 0
    }
}

/// When a write counts its author's entries in its list against the bound: on the process's first write
/// to that file, author and list, then every `limit / 8` writes (every write for a limit under 16).
/// Counting is an index scan of the author's entries, the one history statement a write need not run.
enum PruneSchedule {
    /// Writes since the last count, by file, author and list, in this process.
    private static let writesSinceCount = Locked<[String: Int]>([:])

    /// Whether this write, on `db`, counts; notes it either way.
    static func isDue(_ db: Connection, author: String, list: Int64, limit: Int) -> Bool {
        let every = max(1, limit / 8)
        // An in-memory database is its connection's own.
        let file = db.path == ":memory:" ? "memory \(UInt(bitPattern: ObjectIdentifier(db).hashValue))" : "file \(db.path)"
        let key = "\(list)\u{0}\(author)\u{0}\(file)"
        return writesSinceCount.withLock { counts in
            guard let since = counts[key], since + 1 < every else {
                counts[key] = 0
                return true
            }
            counts[key] = since + 1
            return false
        }
    }
}
