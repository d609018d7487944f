import SQLiteLayer

/// One list of a file, as ``ListStore/lists()`` enumerates them.
public struct ListSummary: Hashable, Sendable {
    /// The list's name (unique in the file): what ``ListStore/list(named:)`` and `--list` take.
    public let name: String
    /// Its place among the file's lists (``ListStore/moveList(named:to:)``), from 0.
    public let index: Int
    /// Whether it is the default list, which the store ``ListStore/open(at:mode:busyTimeout:author:historyLimit:)`` returns acts on.
    public let isDefault: Bool
    /// Its number of sections.
    public let sectionCount: Int
    /// Its number of rows, in all its sections (from the sections' counts).
    public let rowCount: Int
}

/// Several named lists in one file (schema 8). A file holds any number of lists, each with its own
/// sections and rows, index paths and change sets. The store ``open(at:mode:busyTimeout:)-(String,_,_)`` returns acts
/// on the default list — every file has one, older files' sections migrated into it —, so a file used as
/// one list needs none of this. ``list(named:)`` gives a handle on another list: a `ListStore` that shares
/// the file's connections, lock, readers and observers with the store it came from (one poller per file,
/// whatever the number of lists and observers), on which every call of the store acts on that list.
extension ListStore {
    /// The name the default list has in a new or migrated file (it can be renamed; it cannot be deleted).
    public static let defaultListName = ListDamage.defaultName

    /// A handle on the list named `name`: every call on it — reads, edits, `write`, `observe`, import,
    /// export — acts on that list, with the list's own index paths and change sets. It shares this store's
    /// connections, lock, readers and observation hub, so opening and observing it costs what the store
    /// does; it stays on the same list when the list is renamed. Throws a ``ListStoreError/Family/notFound`` error (unknown list).
    public func list(named name: String) throws -> ListStore {
        let id = try withReadTransaction { db in try Self.listID(named: name, db) }
        return id == listID ? self : ListStore(sharing: self, listID: id)
    }

    /// The default list's handle (the store ``open(at:mode:busyTimeout:)-(String,_,_)`` returned, for a handle on another list).
    package var defaultList: ListStore {
        listID == Self.defaultListID ? self : ListStore(sharing: self, listID: Self.defaultListID)
    }

    /// The name of the list this store acts on now.
    public func listName() throws -> String {
        try withReadTransaction { db in try Self.existingName(of: listID, db) }
    }

    /// The file's lists in display order, with their numbers of sections and rows (one read).
    public func lists() throws -> [ListSummary] {
        try withReadTransaction { db in
            try db.cached(
                """
                SELECT l.name, l.position, l.id, count(s.id), coalesce(sum(s.row_count), 0)
                FROM lists AS l LEFT JOIN sections AS s ON s.list_id = l.id GROUP BY l.id ORDER BY l.position
                """
            ).bind([]).map {
                ListSummary(name: $0.text(0), index: $0.int(1), isDefault: $0.int64(2) == Self.defaultListID, sectionCount: $0.int(3), rowCount: $0.int(4))
            }
        }
    }

    /// Adds an empty list named `name` at `index` among the lists (at the end when nil) and returns its handle.
    /// Throws a ``ListStoreError/Family/refused`` error (duplicate list name) or a ``ListStoreError/Family/invalidInput`` error (invalid list name).
    @discardableResult
    public func addList(named name: String, at index: Int? = nil) throws -> ListStore {
        try Self.validateListName(name)
        var id: Int64 = 0
        _ = try changingLists { db in
            try Self.refuseTaken(name, db)
            let count = try Self.listCount(db)
            let at = index ?? count
            guard (0...count).contains(at) else { throw ListStoreError.listIndexOutOfRange(index: at, listCount: count + 1) }
            var order = try Self.listOrder(db)
            try Self.insertList(named: name, position: try Self.belowEveryPosition(db), db)
            id = db.lastInsertedRowID
            order.insert(id, at: at)
            try Self.setListOrder(order, db)
            try MergeRegisters.place([id], in: .lists, db)
        }
        return ListStore(sharing: self, listID: id)
    }

    /// Inserts a list (with a new id: of the replica's range, in a copy of the list); then `db.lastInsertedRowID` is its id.
    static func insertList(named name: String, position: Int64, _ db: Connection) throws {
        let id = try ReplicaIdentity.reserve(1, in: .lists, db)
        try db.run("INSERT INTO lists (id, name, position) VALUES (?1, ?2, ?3)", [id.map { .integer($0) } ?? .null, .text(name), .integer(position)])
    }

    /// Renames the list named `name` to `newName` (its handles stay on it).
    public func renameList(named name: String, to newName: String) throws {
        try Self.validateListName(newName)
        _ = try changingLists { db in
            let id = try Self.listID(named: name, db)
            guard name != newName else { return }
            try Self.refuseTaken(newName, db)
            try db.run("UPDATE lists SET name = ?2 WHERE id = ?1", [.integer(id), .text(newName)])
            try MergeRegisters.stamp("name_stamp", of: id, in: .lists, db)
        }
    }

    /// Moves the list named `name` to `index` among the lists.
    public func moveList(named name: String, to index: Int) throws {
        _ = try changingLists { db in
            let id = try Self.listID(named: name, db)
            var order = try Self.listOrder(db)
            guard (0..<order.count).contains(index) else { throw ListStoreError.listIndexOutOfRange(index: index, listCount: order.count) }
            order.removeAll { $0 == id }
            order.insert(id, at: index)
            try Self.setListOrder(order, db)
            try MergeRegisters.place([id], in: .lists, db)
        }
    }

    /// Deletes the list named `name` with all its sections and rows, in one transaction; its observers
    /// get a change set deleting every section, then their streams end with a ``ListStoreError/Family/notFound`` error (list deleted)
    /// (so do they when another process deletes it). The default list is never deleted
    /// (a ``ListStoreError/Family/refused`` error): the store's own calls act on it.
    @discardableResult
    public func deleteList(named name: String) throws -> ChangeSet {
        var deletedID: Int64 = 0
        let result = try mutatingLists { db, _ in
            let id = try Self.listID(named: name, db)
            guard id != Self.defaultListID else { throw ListStoreError.cannotDeleteDefaultList(name) }
            deletedID = id
            let sections = try db.cached("SELECT position, id FROM sections WHERE list_id = ?1 ORDER BY position").bind([.integer(id)])
                .map { ChangeSet.SectionChange(index: $0.int(0), id: SectionID(rawValue: $0.int64(1))) }
            var order = try Self.listOrder(db)
            try PayloadIndex.noteDeleting(.list(id), db)
            try MergeRegisters.buryContents(ofList: id, db)
            try db.run("DELETE FROM lists WHERE id = ?1", [.integer(id)])  // its sections, rows, blocks and pages go with it
            try HistoryTable.forget(list: id, db)
            order.removeAll { $0 == id }
            try Self.setListOrder(order, db)
            guard !sections.isEmpty else { return ([:], .structure(lists: [])) }
            let edit = ListEdit.sectionsDeleted(sections.map { .init(id: $0.id.rawValue, index: $0.index, details: nil) })
            return ([id: edit.changes(forList: id)], .edits(ListedEvents(edit.logEvents(forList: id), list: id)))
        }
        return result.changes[deletedID] ?? result.unchanged
    }

    /// Moves the row with `id` of this list into section `section` of the list named `list`, at row index
    /// `index` there (at the end when nil), in one transaction: it keeps its id, title and payload. Each
    /// list's observers get their own change set: this list's a deletion, the other's an insertion.
    /// Naming this handle's own list throws ``ListStoreError/Family/refused`` (move it within the list
    /// with ``ListTransaction/moveRow(id:toSection:at:)``).
    @discardableResult
    public func transferRow(id: RowID, toList list: String, section: Int, at index: Int? = nil) throws -> ListMoveChanges {
        try movingBetweenLists(to: list) { source, target in
            try source.moveRow(id, toSection: section, at: index, in: target)
            return ([id.rawValue], [])
        }
    }

    /// Moves the section with `id` of this list, with its rows, to index `index` among the sections of the
    /// list named `list` (at the end when nil), in one transaction; each list's observers get their own change set.
    /// Naming this handle's own list throws ``ListStoreError/Family/refused`` (see ``ListTransaction/moveSection(id:to:)``).
    @discardableResult
    public func transferSection(id: SectionID, toList list: String, at index: Int? = nil) throws -> ListMoveChanges {
        try movingBetweenLists(to: list) { source, target in
            try source.moveSection(id, to: index, in: target)
            return ([], [id.rawValue])
        }
    }

    // MARK: Shared steps

    private func movingBetweenLists(to name: String, _ body: (ListTransaction, ListTransaction) throws -> (rows: [Int64], sections: [Int64])) throws
        -> ListMoveChanges
    {
        var targetID: Int64 = 0
        let sourceID = listID
        let result = try mutatingLists { db, _ in
            targetID = try Self.listID(named: name, db)
            guard try db.scalarInt("SELECT 1 FROM lists WHERE id = ?1", [.integer(sourceID)]) != nil else {
                throw ListStoreError.listDeleted(listID: sourceID)
            }
            guard targetID != sourceID else { throw ListStoreError.moveWithinList(name) }
            let source = ListTransaction(db, list: sourceID, sizes: rowBlockSizes)
            let target = ListTransaction(db, list: targetID, sizes: rowBlockSizes)
            defer {
                source.close()
                target.close()
            }
            let arrived = try body(source, target)
            let events = ListedEvents(lists: [sourceID: source.events, targetID: target.events], arrivedRows: arrived.rows, arrivedSections: arrived.sections)
            return ([sourceID: try source.finish(), targetID: try target.finish()], .edits(events))
        }
        return ListMoveChanges(source: result.changes[sourceID] ?? result.unchanged, target: result.changes[targetID] ?? result.unchanged)
    }

    /// A write that changes only the lists themselves (names, order): no list's change set.
    func changingLists(_ body: (Connection) throws -> Void) throws -> ChangeSet {
        try mutatingLists { db, _ in
            try body(db)
            return ([:], .structure(lists: []))
        }.unchanged
    }

    static func listID(named name: String, _ db: Connection) throws -> Int64 {
        guard let id = try db.cached("SELECT id FROM lists WHERE name = ?1").bind([.text(name)]).first({ $0.int64(0) }) else {
            throw ListStoreError.unknownList(name)
        }
        return id
    }

    /// The name of list `id`, or ``ListStoreError/unknownList(_:)`` (with `#id`) when it was deleted.
    static func existingName(of id: Int64, _ db: Connection) throws -> String {
        guard let name = try db.cached("SELECT name FROM lists WHERE id = ?1").bind([.integer(id)]).first({ $0.text(0) }) else {
            throw id == defaultListID ? ListStoreError.defaultListMissing : ListStoreError.listDeleted(listID: id)
        }
        return name
    }

    private static func refuseTaken(_ name: String, _ db: Connection) throws {
        if try db.cached("SELECT 1 FROM lists WHERE name = ?1").bind([.text(name)]).first({ $0.int(0) }) != nil {
            throw ListStoreError.duplicateListName(name)
        }
    }

    /// A position below every list's position and below `-(largest id)`, so that `value - id` is free for every id.
    static func belowEveryPosition(_ db: Connection) throws -> Int64 {
        let lowest = min(try db.scalarInt("SELECT min(position) FROM lists").map(Int64.init) ?? 0, 0)
        let largestID = try db.scalarInt("SELECT max(id) FROM lists").map(Int64.init) ?? 0
        let (below, overflow) = lowest.subtractingReportingOverflow(largestID &+ 1)
        guard !overflow, largestID >= 0 else { throw ListStoreError.listOrderDamaged }
        return below
    }

    private static func listCount(_ db: Connection) throws -> Int { try db.scalarInt("SELECT count(*) FROM lists") ?? 0 }

    static func listOrder(_ db: Connection) throws -> [Int64] {
        try db.cached("SELECT id FROM lists ORDER BY position, id").bind([]).map { $0.int64(0) }
    }

    /// Gives the lists the positions `0..<count` in `order`: first all out of the way (negative), then
    /// each to its place, so that UNIQUE (position) holds at every step.
    static func setListOrder(_ order: [Int64], _ db: Connection) throws {
        // Below every position there is (hand edits may have left gaps or negatives), one per id.
        try db.run("UPDATE lists SET position = ?1 - id", [.integer(try belowEveryPosition(db))])
        let place = try db.cached("UPDATE lists SET position = ?2 WHERE id = ?1")
        for (index, id) in order.enumerated() { try place.bind([.integer(id), .int(index)]).run() }
    }

    /// Whether two list names are one name by the file's rule: byte for byte, as SQLite's `UNIQUE` on
    /// `lists.name`, ``list(named:)`` and the `sqlite3` shell compare them — not by Swift's `==`, which
    /// takes "é" (one scalar) and "e" followed by U+0301 for the same string, though the file holds two
    /// lists by those names.
    package static func sameListName(_ first: String, _ second: String) -> Bool {
        first.utf8.elementsEqual(second.utf8)
    }

    /// The first of `names` that an earlier one repeats by ``sameListName(_:_:)``; nil when they all differ.
    package static func firstRepeatedListName(_ names: [String]) -> String? {
        var seen = Set<[UInt8]>()
        return names.first { !seen.insert(Array($0.utf8)).inserted }
    }

    /// The rule for list names: not empty, no control characters (a name is typed on command lines and
    /// shown in one-line headers), at most 200 characters.
    static func validateListName(_ name: String) throws {
        if name.isEmpty { throw ListStoreError.invalidListName(name, reason: "a list name cannot be empty") }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw ListStoreError.invalidListName(name, reason: "a list name cannot contain control characters (newlines, tabs, NUL)")
        }
        if name.count > 200 { throw ListStoreError.invalidListName(name, reason: "a list name has at most 200 characters") }
    }
}

/// What a move between lists changed: the change set of the list it left and of the list it went to
/// (each list's observers get theirs).
public struct ListMoveChanges: Hashable, Sendable {
    /// The change set of the list the row or section left (a deletion).
    public let source: ChangeSet
    /// The change set of the list it went to (an insertion).
    public let target: ChangeSet
}
