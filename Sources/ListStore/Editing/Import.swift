import SQLiteLayer

/// A whole list to load into a store, as an export or a hand-written document describes it.
/// Ids are optional: given ones are kept (so an export re-imports with its identities), missing ones are assigned.
package struct ListDocument: Hashable, Sendable {
    /// One section of the document.
    package struct Section: Hashable, Sendable {
        /// The id to keep, or nil to assign one.
        package var id: SectionID?
        /// The section header text.
        package var title: String
        /// The rows, in order.
        package var rows: [Row]
        /// A section of a document.
        package init(id: SectionID? = nil, title: String, rows: [Row] = []) {
            self.id = id
            self.title = title
            self.rows = rows
        }
    }

    /// One row of the document.
    package struct Row: Hashable, Sendable {
        /// The id to keep, or nil to assign one.
        package var id: RowID?
        /// The row's title.
        package var title: String
        /// Optional JSON text.
        package var payload: String?
        /// A row of a document.
        package init(id: RowID? = nil, title: String, payload: String? = nil) {
            self.id = id
            self.title = title
            self.payload = payload
        }
    }

    /// The sections, in order.
    package var sections: [Section]

    /// A document of `sections`.
    package init(sections: [Section]) { self.sections = sections }

    /// The number of rows in all sections.
    package var rowCount: Int { sections.reduce(0) { $0 + $1.rows.count } }
}

/// Receives the sections and rows of an import, in order, inside the import's transaction.
/// Obtained from ``ListStore/importStream(replacing:tracksChanges:_:)``; each call validates what it is given.
/// Usable only inside that closure: kept and called afterwards it throws a ``ListStoreError/Family/misuse`` error (transaction finished)
/// and writes nothing. Not `Sendable`: use it on the thread that runs the closure.
///
/// An id given twice is found by the file's own primary keys, so the importer keeps no set of ids;
/// without change tracking it keeps nothing of what it wrote, and its memory does not grow with the import.
public final class ListImporter {
    private let db: Connection
    private let insertRow: RowWriter.One
    private let tracksChanges: Bool
    /// Usable until ``ListStore/importStream(replacing:tracksChanges:_:)``'s closure returns.
    private let scope = HandleScope()
    private var currentSection: (id: Int64, index: Int, rows: Int)?
    /// Whether a row or section was given the largest id: SQLite then has no id for one without, and
    /// its SQLITE_FULL may already have rolled the transaction back before the used-up ids can be read.
    private var largestIDGiven: (rows: Bool, sections: Bool) = (false, false)
    /// What was written, for the change set: each section with its rows (only when tracking changes).
    private var written: [SectionSnapshot] = []
    /// Rows written so far.
    public private(set) var rowsWritten = 0
    /// Sections written so far.
    public private(set) var sectionsWritten = 0
    /// The sections the import deleted first (``ListStore/importStream(replacing:tracksChanges:_:)`` with `replacing`).
    public let sectionsReplaced: Int

    /// The sections written, as a change set inserts them.
    var insertedSections: [ChangeSet.SectionInsertion] {
        written.enumerated().map { ChangeSet.SectionInsertion(index: $0.offset, section: $0.element) }
    }

    /// The list the sections go into.
    private let list: Int64
    /// Whether the file indexes payload fields: then each section's rows are noted for their index entries.
    private let indexesPayloads: Bool

    init(_ db: Connection, list: Int64, tracksChanges: Bool, sectionsReplaced: Int) throws {
        self.db = db
        self.list = list
        self.tracksChanges = tracksChanges
        self.sectionsReplaced = sectionsReplaced
        insertRow = try RowWriter.One(db)
        indexesPayloads = try PayloadIndex.notesWrites(db)
    }

    /// Adds a section after the ones added so far; the rows added next go into it.
    public func addSection(id: SectionID? = nil, title: String) throws {
        try scope.check()
        if db.isAutocommit { throw ListStoreError.transactionRolledBack }
        try validateTitle(title)
        if let id, id.rawValue <= 0 { throw ListStoreError.invalidDocument("section id \(id.rawValue) is not a positive integer") }
        let index = sectionsWritten
        let newID: Int64
        do {
            newID = try SectionWriter.insert(id: id?.rawValue, title: title, at: index, list: list, orderKey: try MergeRegisters.importKey(db), db)
        } catch {
            if let id, Self.isDuplicateID(error) { throw ListStoreError.duplicateSectionID(id) }
            if id == nil, largestIDGiven.sections, (error as? SQLiteError)?.isFull == true { throw ListStoreError.identifiersExhausted(table: "sections") }
            throw db.explainingFull(error, inserting: "sections")
        }
        if newID == Int64.max { largestIDGiven.sections = true }
        try SectionOrder.recordCountChange(by: 1, db, list: list)
        try finishSection()
        try RowBlocks.createFirstExtents(ofSection: newID, db)
        currentSection = (newID, index, 0)
        sectionsWritten += 1
        if tracksChanges { written.append(SectionSnapshot(id: SectionID(rawValue: newID), title: title, rows: [])) }
    }

    /// Adds a row at the end of the section added last.
    public func addRow(id: RowID? = nil, title: String, payload: String? = nil) throws {
        try scope.check()
        if db.isAutocommit { throw ListStoreError.transactionRolledBack }
        guard let section = currentSection else { throw ListStoreError.invalidDocument("a row comes before any section") }
        guard section.rows < RowSpacing.limit / RowSpacing.gap else { throw ListStoreError.invalidDocument("section \(section.index) has more rows than a section can hold") }
        try validateTitle(title)
        if let id, id.rawValue <= 0 { throw ListStoreError.invalidDocument("row id \(id.rawValue) is not a positive integer") }
        try db.validatePayload(payload)
        do {
            try insertRow.insert(
                id: id?.rawValue, section: section.id, position: section.rows * RowSpacing.gap, title: title, payload: payload, orderKey: try MergeRegisters.importKey(db))
        } catch {
            if let id, Self.isDuplicateID(error) { throw ListStoreError.duplicateRowID(id) }
            if id == nil, largestIDGiven.rows, (error as? SQLiteError)?.isFull == true { throw ListStoreError.identifiersExhausted(table: "rows") }
            throw db.explainingFull(error, inserting: "rows")
        }
        if db.lastInsertedRowID == Int64.max { largestIDGiven.rows = true }
        if tracksChanges {
            written[written.count - 1].rows.append(ListRow(id: RowID(rawValue: db.lastInsertedRowID), title: title, payload: payload))
        }
        currentSection = (section.id, section.index, section.rows + 1)
        rowsWritten += 1
    }

    /// Cuts the section added last into blocks and pages: its rows sit at `k * RowSpacing.gap`.
    func finishSection() throws {
        guard let section = currentSection else { return }
        guard section.rows < RowSpacing.limit / RowSpacing.gap else { throw ListStoreError.corrupt("section \(section.index) cannot hold \(section.rows) rows") }
        try RowBlocks(sectionID: section.id, db: db).cutEvenlySpaced(count: section.rows, sizes: .standard)
        if indexesPayloads { try PayloadIndex.markStale(section: section.id, db) }
        currentSection = nil
    }

    /// Ends the importer's validity: the import's closure has returned.
    func close() { scope.close() }

    /// An insert refused because the id is taken: given earlier in the document, or assigned to an
    /// earlier section or row that had none.
    private static func isDuplicateID(_ error: Error) -> Bool {
        (error as? SQLiteError)?.extendedCode == 1555  // SQLITE_CONSTRAINT_PRIMARYKEY
    }
}

@available(*, unavailable, message: "an importer is used only inside its importStream closure, on that thread")
extension ListImporter: Sendable {}
