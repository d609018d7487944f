import SQLiteLayer

/// What the copies of a list need to merge each other's edits (schemas 15 and 16, Docs/Merging.md), kept by every
/// ListStore write: order keys where elements are placed, the write's stamp on every value it sets, a
/// tombstone for everything it deletes, and on each element it changed the stamp of that change
/// (`changed_stamp`, by which a merge from this file finds what changed since it last read it). The order keys of new rows are given as they are
/// written (``keys(_:in:container:around:_:)``, by the writer of rows); everything else is derived here from each
/// edit's ``ListEdit``, once, as the change set and the history step are.
enum MergeRegisters {
    /// The tables of the elements that have order keys, and the column naming their container.
    enum Table: String {
        case rows, sections, lists

        var container: String? {
            switch self {
            case .rows: "section_id"
            case .sections: "list_id"
            case .lists: nil
            }
        }

        /// The `kind` of its elements' tombstones.
        var kind: String {
            switch self {
            case .rows: "row"
            case .sections: "section"
            case .lists: "list"
            }
        }
    }

    // MARK: Order keys

    /// `count` order keys, in order, for elements placed in `container` (nil for lists) of `table` at the
    /// positions from `first` to `last`: between the keys of the elements just before `first` and just after
    /// `last` (the elements there now without a key, inserted by another program, are passed over). Asked
    /// before the elements are written there or after: they are never their own neighbours.
    static func keys(_ count: Int, in table: Table, container: Int64?, around positions: (first: Int, last: Int), _ db: Connection) throws -> [[UInt8]] {
        guard count > 0 else { return [] }
        let scope = table.container.map { "\($0) = ?2 AND " } ?? ""
        let inContainer: [SQLiteValue] = table.container == nil ? [] : [container.map { .integer($0) } ?? .null]
        let lower =
            try db.cached(
                "SELECT order_key FROM \(table.rawValue) WHERE \(scope)position < ?1 AND order_key IS NOT NULL ORDER BY position DESC LIMIT 1"
            ).bind([.int(positions.first)] + inContainer).first { $0.blob(0) } ?? nil
        let upper =
            try db.cached(
                "SELECT order_key FROM \(table.rawValue) WHERE \(scope)position > ?1 AND order_key IS NOT NULL ORDER BY position LIMIT 1"
            ).bind([.int(positions.last)] + inContainer).first { $0.blob(0) } ?? nil
        return OrderKey.keys(between: lower, and: upper, count: count, stamp: try MergeClock.stamp(db), firstOrdinal: try MergeClock.ordinals(count, db))
    }

    /// The next key of an element appended by an import to a container the import emptied: the keys of one
    /// import share one prefix and follow one another.
    static func importKey(_ db: Connection) throws -> [UInt8] {
        OrderKey.keys(between: nil, and: nil, count: 1, stamp: try MergeClock.stamp(db), firstOrdinal: try MergeClock.ordinals(1, db))[0]
    }

    /// Gives the elements `ids` of `table`, which stand together in this order, new keys where they stand now.
    static func place(_ ids: [Int64], in table: Table, _ db: Connection) throws {
        guard let firstID = ids.first, let lastID = ids.last else { return }
        let locate = try db.cached("SELECT position, \(table.container ?? "NULL") FROM \(table.rawValue) WHERE id = ?1")
        guard let first = try locate.bind([.integer(firstID)]).first({ (position: $0.int(0), container: $0.isNull(1) ? nil : $0.int64(1)) }),
            let last = try locate.bind([.integer(lastID)]).first({ $0.int(0) })
        else { throw ListStoreError.corrupt("\(table.kind) #\(firstID) placed by this write is not in the file") }
        let keys = try keys(ids.count, in: table, container: first.container, around: (first.position, last), db)
        let write = try db.cached("UPDATE \(table.rawValue) SET order_key = ?2, changed_stamp = ?3 WHERE id = ?1")
        let stamp = try MergeClock.stamp(db)
        for (id, key) in zip(ids, keys) { try write.bind([.integer(id), .blob(key), .integer(stamp)]).run() }
    }

    // MARK: Stamps and tombstones

    /// Notes one edit: the keys of what it moved or put back, the stamps of the values it set, the
    /// tombstones of what it deleted. Called by ``ListTransaction/record(_:)``; an edit between lists is
    /// recorded by both lists' transactions and noted once, by the receiving one's.
    static func record(_ edit: ListEdit, list: Int64, _ db: Connection) throws {
        switch edit {
        case .rowsInserted:
            return  // keyed as they were written
        case .sectionInserted(let section):
            try place([section.id], in: .sections, db)
        case .rowsRestored(let run):
            let ids = run.rows.map(\.id.rawValue)
            try place(ids, in: .rows, db)
            try revive(ids, in: .rows, db)
        case .rowsDeleted(let rows):
            try bury(rows.map(\.id), in: .rows, db)
        case .rowMoved(let move):
            try place([move.id], in: .rows, db)
        case .rowUpdated(let update):
            if update.old.title != update.new.title { try stamp("title_stamp", of: update.id, in: .rows, db) }
            if update.old.payload != update.new.payload { try stamp("payload_stamp", of: update.id, in: .rows, db) }
        case .sectionRestored(let section):
            try place([section.id], in: .sections, db)
            try revive([section.id], in: .sections, db)
        case .sectionsDeleted(let sections):
            try buryContents(ofSections: sections.map(\.id), db)
        case .sectionMoved(let move):
            try place([move.id], in: .sections, db)
        case .sectionRenamed(let id, _, _, _):
            try stamp("title_stamp", of: id, in: .sections, db)
        case .rowTransferred(let transfer):
            if list == transfer.toList { try place([transfer.row.id.rawValue], in: .rows, db) }
        case .sectionTransferred(let transfer):
            if list == transfer.toList { try place([transfer.section.id.rawValue], in: .sections, db) }
        }
    }

    /// Sets the stamp `column` of element `id` to this write's (and the stamp of its last change).
    static func stamp(_ column: String, of id: Int64, in table: Table, _ db: Connection) throws {
        try db.cached("UPDATE \(table.rawValue) SET \(column) = ?2, changed_stamp = ?2 WHERE id = ?1").bind([.integer(id), .integer(try MergeClock.stamp(db))]).run()
    }

    /// Notes `ids` of `table` as deleted by this write; the values merges overwrote in them go with them
    /// (ListStore's connections run no triggers; `*_overwritten_forgotten` serve other programs' deletes).
    static func bury(_ ids: [Int64], in table: Table, _ db: Connection) throws {
        let write = try db.cached("INSERT OR REPLACE INTO liststore_tombstones (kind, id, stamp, changed_stamp) VALUES (?1, ?2, ?3, ?3)")
        let stamp = try MergeClock.stamp(db)
        for id in ids { try write.bind([.text(table.kind), .integer(id), .integer(stamp)]).run() }
        guard table != .lists, try keepsOverwrittenValues(db) else { return }
        let forget = try db.cached("DELETE FROM liststore_overwritten WHERE kind = ?1 AND id = ?2")
        for id in ids { try forget.bind([.text(table.kind), .integer(id)]).run() }
    }

    /// Whether the file keeps any value a merge overwrote: most never do, and their deletes ask only this.
    private static func keepsOverwrittenValues(_ db: Connection) throws -> Bool {
        try db.cached("SELECT EXISTS (SELECT 1 FROM liststore_overwritten)").bind([]).first { $0.int(0) } == 1
    }

    /// Notes sections `ids` and their rows as deleted by this write (before they go).
    static func buryContents(ofSections ids: [Int64], _ db: Connection) throws {
        try bury(ids, in: .sections, db)
        let rows = try db.cached("INSERT OR REPLACE INTO liststore_tombstones (kind, id, stamp, changed_stamp) SELECT 'row', id, ?2, ?2 FROM rows WHERE section_id = ?1")
        let stamp = try MergeClock.stamp(db)
        for id in ids { try rows.bind([.integer(id), .integer(stamp)]).run() }
        guard !ids.isEmpty, try keepsOverwrittenValues(db) else { return }
        let forget = try db.cached("DELETE FROM liststore_overwritten WHERE kind = 'row' AND id IN (SELECT id FROM rows WHERE section_id = ?1)")
        for id in ids { try forget.bind([.integer(id)]).run() }
    }

    /// Notes list `id`, its sections and their rows as deleted by this write (before they go); with
    /// `keepingList`, only what the list holds (an import replacing it).
    static func buryContents(ofList id: Int64, keepingList: Bool = false, _ db: Connection) throws {
        let sections = try db.cached("SELECT id FROM sections WHERE list_id = ?1").bind([.integer(id)]).map { $0.int64(0) }
        try buryContents(ofSections: sections, db)
        if !keepingList { try bury([id], in: .lists, db) }
    }

    /// Notes `ids` of `table` as put back by this write (an undo of their delete): no tombstone, and a stamp
    /// newer than the delete's wherever else it is known — on its values too, which it holds as they were when
    /// it was deleted, but written now (a new row of the file, whose stamps would otherwise be 0 like the ones
    /// another copy may hold for other values).
    private static func revive(_ ids: [Int64], in table: Table, _ db: Connection) throws {
        let forget = try db.cached("DELETE FROM liststore_tombstones WHERE kind = ?1 AND id = ?2")
        let values: String
        switch table {
        case .rows: values = "title_stamp = ?2, payload_stamp = ?2, "
        case .sections: values = "title_stamp = ?2, "
        case .lists: values = "name_stamp = ?2, "
        }
        let write = try db.cached("UPDATE \(table.rawValue) SET \(values)revived_stamp = ?2, changed_stamp = ?2 WHERE id = ?1")
        let stamp = try MergeClock.stamp(db)
        for id in ids {
            try forget.bind([.text(table.kind), .integer(id)]).run()
            try write.bind([.integer(id), .integer(stamp)]).run()
        }
    }
}
