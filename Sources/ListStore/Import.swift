import SQLiteLayer

/// A whole list to load into a store, as an export or a hand-written document describes it.
/// Ids are optional: given ones are kept (so an export re-imports with its identities), missing ones are assigned.
public struct ListDocument: Hashable, Sendable {
    /// One section of the document.
    public struct Section: Hashable, Sendable {
        /// The id to keep, or nil to assign one.
        public var id: SectionID?
        /// The section header text.
        public var title: String
        /// The rows, in order.
        public var rows: [Row]
        /// A section of a document.
        public init(id: SectionID? = nil, title: String, rows: [Row] = []) { self.id = id; self.title = title; self.rows = rows }
    }

    /// One row of the document.
    public struct Row: Hashable, Sendable {
        /// The id to keep, or nil to assign one.
        public var id: RowID?
        /// The row's title.
        public var title: String
        /// Optional JSON text.
        public var payload: String?
        /// A row of a document.
        public init(id: RowID? = nil, title: String, payload: String? = nil) { self.id = id; self.title = title; self.payload = payload }
    }

    /// The sections, in order.
    public var sections: [Section]

    /// A document of `sections`.
    public init(sections: [Section]) { self.sections = sections }

    /// The number of rows in all sections.
    public var rowCount: Int { sections.reduce(0) { $0 + $1.rows.count } }
}

extension ListStore {
    /// Loads `document` in one transaction. Without `replacing`, the store must be empty (nothing is ever
    /// merged by accident); with it, every existing section and row is deleted first. `progress` is called
    /// with (rows written, rows in the document) as the import goes.
    @discardableResult
    public func importDocument(_ document: ListDocument, replacing: Bool = false,
                               progress: (_ written: Int, _ total: Int) -> Void = { _, _ in }) throws -> ChangeSet {
        try Self.validate(document)
        return try mutate { db in
            var changes = ChangeSet()
            let existing = try db.cached("SELECT position, id FROM sections ORDER BY position").bind([])
                .map { ChangeSet.SectionChange(index: $0.int(0), id: SectionID(rawValue: $0.int64(1))) }
            if !existing.isEmpty {
                guard replacing else { throw ListStoreError.storeNotEmpty(sectionCount: existing.count) }
                try db.run("DELETE FROM sections")
                changes.deletedSections = existing
            }
            let insertSection = try db.cached("INSERT INTO sections (id, position, title) VALUES (?1, ?2, ?3)")
            let insertRow = try db.cached("INSERT INTO rows (id, section_id, position, title, payload) VALUES (?1, ?2, ?3, ?4, ?5)")
            let total = document.rowCount
            var written = 0
            for (index, section) in document.sections.enumerated() {
                try insertSection.bind([section.id.map { .integer($0.rawValue) } ?? .null, .int(index), .text(section.title)]).run()
                let sectionID = db.lastInsertedRowID
                changes.insertedSections.append(.init(index: index, id: SectionID(rawValue: sectionID)))
                for (position, row) in section.rows.enumerated() {
                    try db.validatePayload(row.payload)
                    try insertRow.bind([row.id.map { .integer($0.rawValue) } ?? .null, .integer(sectionID), .int(position),
                                        .text(row.title), .optionalText(row.payload)]).run()
                    written += 1
                    if written % 1_000 == 0 { progress(written, total) }
                }
            }
            progress(written, total)
            return changes.sorted()
        }
    }

    /// Checks titles, ids and their uniqueness before anything is written.
    private static func validate(_ document: ListDocument) throws {
        var sectionIDs = Set<SectionID>()
        var rowIDs = Set<RowID>()
        for section in document.sections {
            try validateTitle(section.title)
            if let id = section.id {
                guard id.rawValue > 0 else { throw ListStoreError.invalidDocument("section id \(id.rawValue) is not a positive integer") }
                guard sectionIDs.insert(id).inserted else { throw ListStoreError.duplicateSectionID(id) }
            }
            for row in section.rows {
                try validateTitle(row.title)
                if let id = row.id {
                    guard id.rawValue > 0 else { throw ListStoreError.invalidDocument("row id \(id.rawValue) is not a positive integer") }
                    guard rowIDs.insert(id).inserted else { throw ListStoreError.duplicateRowID(id) }
                }
            }
        }
    }
}
