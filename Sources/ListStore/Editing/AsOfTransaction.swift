import SQLiteLayer

/// The edits of one write transaction given index paths *as drawn*: as the store was at ``version``,
/// the version of the snapshot (or change set) a table view drew. Handed to the closure of
/// ``ListTransaction/asOf(_:)``.
///
/// Every index path and index this transaction's calls take names what was drawn at ``version`` — in
/// every call of the closure, also after earlier edits of the same closure — and is translated through
/// every commit since, by anyone, and through the closure's earlier edits, to what it names now: a
/// row that moved is found where it is now; an insertion point (a gap) is kept right before the row
/// drawn below it (at the end of the section for the last one), so it stays between the same
/// neighbours, and rows inserted at that place since — by anyone, this closure included — come before
/// it (when the row drawn below it moved away or was deleted since, the gap stays after the row drawn
/// above it). A row or section deleted since is refused with a ``ListStoreError/Family/notFound`` error (drawn row deleted)
/// or a ``ListStoreError/Family/notFound`` error (drawn section deleted); a version the change log cannot
/// translate with a ``ListStoreError/Family/notFound`` error (version not translatable). The whole write is then rolled
/// back: nothing changed.
///
/// So an app acting on a multi-selection passes the drawn paths as they are, in any order and in any
/// number of calls. Rows the closure inserted were never drawn: name them by the ids the inserts
/// return, on the write's own ``ListTransaction`` (the `tx` that ``ListTransaction/asOf(_:)`` was
/// called on), which takes ids and index paths of the store as it is now, inside the transaction.
///
/// Each path is followed through every edit since ``version``, the closure's own included: the cost of
/// a call grows with the edits made since the draw (meant for what a user acted on, not for bulk edits).
///
/// Valid only inside its closure; using it afterwards throws a ``ListStoreError/Family/misuse`` error (transaction finished).
public final class AsOfTransaction {
    /// The same transaction in the store's current coordinates (inside the transaction) and by id.
    package let current: ListTransaction
    /// The version the index paths given to this transaction's calls are drawn at.
    public var version: ListVersion { drawn.version }
    private let drawn: DrawnPaths

    init(_ current: ListTransaction, _ drawn: DrawnPaths) {
        self.current = current
        self.drawn = drawn
    }

    private var db: Connection { current.db }

    /// The transaction's own edits so far, which the drawn paths are translated through last.
    private var own: [EditEvent] { current.events }

    // MARK: Reading what was drawn

    /// Where the row drawn at `indexPath` is now (inside the transaction).
    public func indexPath(ofRowDrawnAt indexPath: ListIndexPath) throws -> ListIndexPath {
        try current.whileOpen { try drawn.row(indexPath, own: own, db).path }
    }

    /// The row drawn at `indexPath`, with its values now.
    public func row(at indexPath: ListIndexPath) throws -> ListRow {
        try current.whileOpen { try ListReader.row(id: try drawn.row(indexPath, own: own, db).id.rawValue, db) }
    }

    /// Where the gap drawn at `indexPath` is now: `indexPath.row` rows above it in the section drawn at
    /// `indexPath.section` (its row count for the end), translated as an insertion point is (see above).
    /// The index path an insert there would take (inside the transaction).
    public func indexPath(ofGapDrawnAt indexPath: ListIndexPath) throws -> ListIndexPath {
        try current.whileOpen { try drawn.rowGap(indexPath, own: own, db) }
    }

    /// The index now of the section drawn at `index`.
    public func index(ofSectionDrawnAt index: Int) throws -> Int {
        try current.whileOpen { try drawn.section(index, own: own, db) }
    }

    // MARK: Rows

    /// Deletes the rows drawn at `indexPaths` (any sections, any order), wherever they are now.
    public func deleteRows(at indexPaths: [ListIndexPath]) throws {
        try current.whileOpen {
            if let repeated = firstRepeated(indexPaths) { throw ListStoreError.duplicateIndexPath(repeated) }
            let ids = try indexPaths.map { try drawn.row($0, own: own, db).id }
            try current.deleteRows(ids: ids)
        }
    }

    /// Changes the title and/or payload of the row drawn at `indexPath`; nil `title` keeps the title.
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: PayloadUpdate = .unchanged) throws {
        try current.whileOpen { try current.updateRow(id: try drawn.row(indexPath, own: own, db).id, title: title, payload: payload) }
    }

    /// Moves the row drawn at `from` to where a drag drawn at the same version dropped it: `to` as UIKit's
    /// `moveRowAt:to:` gives it (its index path after the move, in the drawn list). The row goes between
    /// the neighbours it was dropped between, wherever they are now.
    public func moveRow(from: ListIndexPath, to: ListIndexPath) throws {
        try current.whileOpen {
            let source = try drawn.row(from, own: own, db)
            guard from != to else { return }
            guard DrawnPaths.isFollowable(to.row) else {
                throw ListStoreError.rowDestinationOutOfRange(to, maxRow: try SectionRows.load(section: try drawn.section(to.section, own: own, db), list: drawn.list, db).count)
            }
            // The drop as a gap of the drawn list, before the row is taken out of it.
            let gap = to.section == from.section && to.row > from.row ? ListIndexPath(section: to.section, row: to.row + 1) : to
            let target: ListIndexPath
            do {
                target = try drawn.rowGap(gap, own: own, db)
            } catch let error as ListStoreError where gap != to {
                // Said of the destination the caller gave, not of the gap it became.
                guard case .drawnRowDestinationOutOfRange(_, let maxRow, _) = error.reason else { throw error }
                throw ListStoreError.drawnRowDestinationOutOfRange(to, maxRow: maxRow - 1, asOf: version)
            }
            let row = target.section == source.path.section && target.row > source.path.row ? target.row - 1 : target.row
            try current.moveRow(id: source.id, to: ListIndexPath(section: target.section, row: row))
        }
    }

    /// Inserts `rows` into the section drawn at `section`, the first at the drawn gap `index` (before the
    /// row drawn at `index`; at the end of the section as it is now when nil). Returns the new ids.
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], intoSection section: Int, at index: Int? = nil) throws -> [RowID] {
        try current.whileOpen {
            guard let index else { return try current.insertRows(rows, intoSection: try drawn.section(section, own: own, db), at: nil) }
            let gap = try drawn.rowGap(ListIndexPath(section: section, row: index), own: own, db)
            return try current.insertRows(rows, intoSection: gap.section, at: gap.row)
        }
    }

    /// Inserts one row into the section drawn at `section`, at the drawn gap `index` (at the end when nil).
    @discardableResult
    package func insertRow(_ row: some NewRowConvertible, intoSection section: Int, at index: Int? = nil) throws -> RowID {
        let ids = try insertRows([row], intoSection: section, at: index)
        guard let id = ids.first else { throw ListStoreError.transactionFinished }
        return id
    }

    // MARK: Sections

    /// Inserts an empty section titled `title` at the drawn gap `index` (before the section drawn at
    /// `index`; at the end of the list as it is now when nil). Returns its id.
    @discardableResult
    public func insertSection(title: String, at index: Int? = nil) throws -> SectionID {
        try current.whileOpen { try current.insertSection(title: title, at: try index.map { try drawn.sectionGap($0, own: own, db) }) }
    }

    /// Changes the title of the section drawn at `index`.
    public func renameSection(at index: Int, to title: String) throws {
        try current.whileOpen { try current.renameSection(at: try drawn.section(index, own: own, db), to: title) }
    }

    /// Moves the section drawn at `from` to where a drag drawn at the same version dropped it: `to` is its
    /// index after the move in the drawn list. It goes between the sections it was dropped between.
    public func moveSection(from: Int, to: Int) throws {
        try current.whileOpen {
            let source = try drawn.section(from, own: own, db)
            guard from != to else { return }
            let drawnCount = try drawn.drawnSectionCount(own: own, db)
            guard DrawnPaths.isFollowable(to) else { throw ListStoreError.sectionIndexOutOfRange(index: to, sectionCount: drawnCount) }
            guard (0..<drawnCount).contains(to) else { throw ListStoreError.drawnSectionIndexOutOfRange(index: to, sectionCount: drawnCount, asOf: version) }
            let target = try drawn.sectionGap(to > from ? to + 1 : to, own: own, db)
            try current.moveSection(from: source, to: target > source ? target - 1 : target)
        }
    }

    /// Deletes the sections drawn at `indexes`, with all their rows.
    public func deleteSections(at indexes: [Int]) throws {
        try current.whileOpen {
            if let repeated = firstRepeated(indexes) { throw ListStoreError.duplicateSectionIndex(repeated) }
            let ids = try indexes.map { SectionID(rawValue: try db.sectionID(at: try drawn.section($0, own: own, db), list: drawn.list)) }
            try current.deleteSections(ids: ids)
        }
    }
}

@available(*, unavailable, message: "a transaction is used only inside its write closure, on that thread")
extension AsOfTransaction: Sendable {}
