import SQLiteLayer

/// Reads of one consistent state of the store: every call sees the same committed state (inside
/// ``ListStore/read(_:)-9gs6v``), or the state a write transaction's edits have left so far (a
/// ``ListTransaction`` is a reader too).
///
/// Reads name rows and sections by the same rule as edits (see ``ScannedItem``); reads that hand out
/// arrays refuse a file whose positions were damaged by hand, because an array position must be an
/// index. A reader is valid only inside its closure; using it afterwards throws
/// a ``ListStoreError/Family/misuse`` error (transaction finished).
public class ListReader {
    let db: Connection
    /// The list this reader reads (``ListStore/list(named:)``; the default list's id is 1).
    let list: Int64
    private let scope = HandleScope()

    init(_ db: Connection, list: Int64) {
        self.db = db
        self.list = list
    }

    /// Runs `body` if the reader's closure has not returned yet. A SQLite failure becomes the
    /// ``ListStoreError`` the store's own calls throw (a full disk is `.full`, whoever catches it).
    func whileOpen<T>(_ body: () throws -> T) throws -> T {
        try scope.check()
        // Every reader runs inside a transaction; without one, statements would commit one by one.
        if db.isAutocommit { throw ListStoreError.transactionRolledBack }
        return try ListStoreError.translating(body)
    }

    /// Ends the reader's validity.
    func close() { scope.close() }

    /// The number of sections.
    public func sectionCount() throws -> Int {
        try whileOpen { try SectionOrder.count(db, list: list) }
    }

    /// The sections in display order, with their row counts. The position of a section in the array
    /// is its index. Throws `sectionOrderDamaged` when hand edits broke the section order, as edits do.
    public func sections() throws -> [ListSection] {
        try whileOpen {
            try SectionOrder.verify(db, list: list)
            var positions: [Int] = []
            let sections = try db.cached("SELECT id, title, row_count, position FROM sections WHERE list_id = ?1 ORDER BY position").bind([.integer(list)])
                .map { row in
                    positions.append(row.int(3))
                    return Self.section(row)
                }
            try SectionOrder.expectArrayPositions(positions)
            return sections
        }
    }

    /// The section at `index`.
    public func section(at index: Int) throws -> ListSection {
        try whileOpen {
            try SectionOrder.verify(db, list: list)
            return try section(id: SectionID(rawValue: try SectionRows.locate(section: index, list: list, db).sectionID))
        }
    }

    /// The section with id `id`, wherever it is now.
    public func section(id: SectionID) throws -> ListSection {
        try whileOpen {
            guard
                let section = try db.cached("SELECT id, title, row_count FROM sections WHERE id = ?1").bind([.integer(id.rawValue)])
                    .first(Self.section)
            else { throw ListStoreError.unknownSection(id) }
            _ = try db.existingSectionIndex(id, list: list)
            return section
        }
    }

    /// The current index of the section with id `id`, or nil when it no longer exists.
    public func index(of id: SectionID) throws -> Int? {
        try whileOpen { try db.sectionIndex(id: id.rawValue, list: list) }
    }

    /// The number of rows in all sections (from the sections' counts, not a scan of the rows).
    public func totalRowCount() throws -> Int {
        try whileOpen { try db.scalarInt("SELECT coalesce(sum(row_count), 0) FROM sections WHERE list_id = ?1", [.integer(list)]) ?? 0 }
    }

    /// The number of rows in section `section`.
    public func rowCount(inSection section: Int) throws -> Int {
        try whileOpen { try checkedSection(section).count }
    }

    /// The rows of section `section` in order; with `range`, only those rows (a page), read through the
    /// position index without touching the rest of the section. A range past the end is clamped.
    /// The position of a row in the array is its index (offset by the range's start): a section whose
    /// positions were damaged by hand is refused with `positionsDamaged`, as edits refuse it.
    public func rows(inSection section: Int, range: Range<Int>? = nil) throws -> [ListRow] {
        try whileOpen { try rows(of: try checkedSection(section), range: range) }
    }

    /// The row at `indexPath`: the row an edit given that index path acts on.
    public func row(at indexPath: ListIndexPath) throws -> ListRow {
        try whileOpen {
            let id = try checkedSection(indexPath.section).rowID(at: indexPath.row)
            return try Self.row(id: id, db)
        }
    }

    /// The row with `id`, wherever it is now in this list (a row of another list throws
    /// a ``ListStoreError/Family/notFound`` error).
    public func row(id: RowID) throws -> ListRow {
        try whileOpen {
            let row = try Self.row(id: id.rawValue, db)
            if let section = try db.cached("SELECT section_id FROM rows WHERE id = ?1").bind([.integer(id.rawValue)]).first({ $0.int64(0) }) {
                try db.requireSection(section, ofRow: id, inList: list)
            }
            return row
        }
    }

    /// The current index path of the row with `id`, or nil when it no longer exists (or is in another list).
    public func indexPath(of id: RowID) throws -> ListIndexPath? {
        try whileOpen {
            do { return try db.location(of: id, list: list).path } catch let error as ListStoreError {
                switch error.reason {
                case .unknownRow, .rowInAnotherList: return nil
                default: throw error
                }
            }
        }
    }

    /// Every section with every row, in display order. Positions in the arrays are indexes: a file
    /// whose positions were damaged by hand is refused (`sectionOrderDamaged`, `positionsDamaged`), as
    /// edits refuse it; ``ListStore/scan(_:)`` still reads it.
    public func snapshot() throws -> ListSnapshot {
        try whileOpen {
            try SectionOrder.verify(db, list: list)
            return try Self.snapshot(db, list: list, checked: true)
        }
    }

    /// The version of the state this reader sees (``ListVersion``): read it in the same ``ListStore/read(_:)-9gs6v``
    /// as a section or page you draw, to edit what you drew with ``ListTransaction/asOf(_:)``.
    public func version() throws -> ListVersion {
        try whileOpen { try StateVersion.read(db) }
    }

    /// One section with all of its rows (without reading the other sections). Refuses a damaged
    /// section or section order, as ``snapshot()`` does.
    public func snapshot(ofSection index: Int) throws -> SectionSnapshot {
        try whileOpen { try snapshot(of: try checkedSection(index)) }
    }

    /// The section with id `id` with all of its rows, wherever it is now.
    public func snapshot(ofSection id: SectionID) throws -> SectionSnapshot {
        try whileOpen {
            try SectionOrder.verify(db, list: list)
            let index = try db.existingSectionIndex(id, list: list)
            return try snapshot(of: try SectionRows.load(sectionID: id.rawValue, index: index, db))
        }
    }

    // MARK: Shared steps

    /// Section `index`, with the checks an edit runs before using it: the section order and the
    /// section's row positions (three index look-ups).
    private func checkedSection(_ index: Int) throws -> SectionRows {
        try SectionOrder.verify(db, list: list)
        return try SectionRows.load(section: index, list: list, db)
    }

    private func rows(of section: SectionRows, range: Range<Int>?) throws -> [ListRow] {
        let lower = max(range?.lowerBound ?? 0, 0)
        let upper = min(range?.upperBound ?? section.count, section.count)
        guard lower < upper else { return [] }
        // The row at `lower` is the (lower - base)-th of its block's range: one statement steps to it
        // and reads the page from there.
        let (block, _) = try section.extents(at: lower)
        // Or, when the memo holds the block's positions, from the row itself.
        let known = try ExtentMemo.matching(db)?.positions(ofBlock: block.start, count: block.count, section: section.sectionID, db)
        let (from, skip) = MemoReads.firstRow(lower, of: block, positions: known)
        var result: [ListRow] = []
        var positions: [Int] = []
        result.reserveCapacity(upper - lower)
        positions.reserveCapacity(upper - lower)
        try db.cached("SELECT id, title, payload, position FROM rows WHERE section_id = ?1 AND position >= ?2 ORDER BY position LIMIT ?3 OFFSET ?4")
            .bind([.integer(section.sectionID), .int(from), .int(upper - lower), .int(skip)]).forEachRow { statement in
                result.append(Self.row(statement))
                positions.append(statement.int(3))
            }
        guard result.count == upper - lower, let first = positions.first, let last = positions.last, block.holds(first) else {
            throw ListStoreError.positionsDamaged(section: section.sectionIndex)
        }
        // The rows read in order are the rows at lower..<upper only if every block they cross holds the
        // rows it counts: check the blocks that start among them (one range of the blocks' index, or
        // the memo's blocks of the pages they fall in).
        let boundaries = try blocks(ofSection: section.sectionID, after: first, through: last)
        guard MemoReads.rowsAreAtTheirIndexes(positions, from: lower, in: block, boundaries: boundaries[...]) else {
            throw ListStoreError.positionsDamaged(section: section.sectionIndex)
        }
        // The memo learns the positions of these rows, so that reading them again is the one statement of KnownPositions.
        if let memo = ExtentMemo.matching(db), let pages = memo.pages[section.sectionID],
            let pageOffset = ExtentMemo.lastOffset(in: pages, atOrBelow: block.start)
        {
            KnownPositions.learn(db, memo, section: section.sectionID, pages: pages, pageOffset: pageOffset, block: block, lower: lower, count: upper - lower)
        }
        return result
    }

    /// The blocks of section `id` starting in `first + 1 ... last`, in order.
    private func blocks(ofSection id: Int64, after first: Int, through last: Int) throws -> [(start: Int, count: Int)] {
        if let memo = ExtentMemo.matching(db) {
            let pages = try memo.pages(ofSection: id, db)
            var found: [(start: Int, count: Int)] = []
            let firstPage = ExtentMemo.lastOffset(in: pages, atOrBelow: first) ?? 0
            for offset in pages.indices.dropFirst(firstPage) where pages[offset].start <= last {
                let page = RowExtent(start: pages[offset].start, end: offset + 1 < pages.count ? pages[offset + 1].start : nil, count: pages[offset].count, base: 0)
                found += try memo.blocks(ofSection: id, page: page, db).lazy.filter { $0.start > first && $0.start <= last }
            }
            return found
        }
        return try db.cached("SELECT start, row_count FROM row_blocks WHERE section_id = ?1 AND start > ?2 AND start <= ?3 ORDER BY start")
            .bind([.integer(id), .int(first), .int(last)]).map { (start: $0.int(0), count: $0.int(1)) }
    }

    private func snapshot(of section: SectionRows) throws -> SectionSnapshot {
        let title = try db.scalarText("SELECT title FROM sections WHERE id = ?1", [.integer(section.sectionID)]) ?? ""
        return SectionSnapshot(id: SectionID(rawValue: section.sectionID), title: title, rows: try rows(of: section, range: nil))
    }

    /// Reads every section and row of list `list`; the caller provides the transaction. With `checked`, throws
    /// `positionsDamaged` unless every section's blocks and pages hold exactly the rows they count (so
    /// the array positions are the indexes edits resolve); without, lists rows in position order
    /// whatever the damage.
    static func snapshot(_ db: Connection, list: Int64, checked: Bool) throws -> ListSnapshot {
        let stored = try db.cached("SELECT id, position, title, row_count FROM sections WHERE list_id = ?1 ORDER BY position").bind([.integer(list)])
            .map(StoredSection.init)
        if checked { try SectionOrder.expectArrayPositions(stored.map(\.position)) }
        var sections = stored.map { SectionSnapshot(id: SectionID(rawValue: $0.id), title: $0.title, rows: []) }
        var indexers: [Int: RowIndexer] = [:]
        // Section by section through the rows' (section_id, position) index: only this list's rows are read.
        let rows = try db.cached("SELECT id, title, payload, position FROM rows WHERE section_id = ?1 ORDER BY position")
        for index in stored.indices {
            try rows.bind([.integer(stored[index].id)]).forEachRow { row in
                if checked {
                    var indexer = try indexers[index] ?? RowIndexer(sectionID: stored[index].id, db)
                    if indexer.index(ofRowAt: row.int(3)) != sections[index].rows.count { throw ListStoreError.positionsDamaged(section: index) }
                    indexers[index] = indexer
                }
                sections[index].rows.append(ListRow(id: RowID(rawValue: row.int64(0)), title: row.text(1), payload: row.optionalText(2)))
            }
        }
        if checked {
            for index in stored.indices {
                var indexer = try indexers[index] ?? RowIndexer(sectionID: stored[index].id, db)
                indexer.finish()
                guard indexer.countsAgree, indexer.total == sections[index].rows.count, stored[index].rowCount == sections[index].rows.count else {
                    throw ListStoreError.positionsDamaged(section: index)
                }
            }
        }
        return ListSnapshot(sections: sections, version: try StateVersion.read(db))
    }

    static func row(id: Int64, _ db: Connection) throws -> ListRow {
        guard let row = try db.cached("SELECT id, title, payload FROM rows WHERE id = ?1").bind([.integer(id)]).first(row) else {
            throw ListStoreError.unknownRow(RowID(rawValue: id))
        }
        return row
    }

    private static func row(_ statement: Statement) -> ListRow {
        ListRow(id: RowID(rawValue: statement.int64(0)), title: statement.text(1), payload: statement.optionalText(2))
    }

    private static func section(_ statement: Statement) -> ListSection {
        ListSection(id: SectionID(rawValue: statement.int64(0)), title: statement.text(1), rowCount: statement.int(2))
    }
}

@available(*, unavailable, message: "a reader is used only inside its read or write closure, on that thread")
extension ListReader: Sendable {}
