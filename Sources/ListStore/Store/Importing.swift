import SQLiteLayer

extension ListStore {
    /// Loads sections and rows, as `feed` hands them to the importer, in one transaction: a document of
    /// any size, read as it is parsed. Without `replacing`, the store must be empty (nothing is ever
    /// merged by accident); with it, every existing section and row is deleted first. Any error — from
    /// the importer or thrown by `feed` — leaves the store as it was and is rethrown: to cancel an
    /// import, throw from `feed` (`try Task.checkCancellation()` between rows).
    ///
    /// The change set holds every row imported; with `tracksChanges` false none is built (an empty one
    /// is returned, observers get a ``ListUpdate/reset(_:)``), so memory does not grow with the import.
    @discardableResult
    public func importStream(replacing: Bool = false, tracksChanges: Bool = true, _ feed: (ListImporter) throws -> Void) throws -> ChangeSet {
        try mutate { db in
            let existing = try db.cached("SELECT position, id FROM sections WHERE list_id = ?1 ORDER BY position").bind([.integer(listID)])
                .map { ChangeSet.SectionChange(index: $0.int(0), id: SectionID(rawValue: $0.int64(1))) }
            if !existing.isEmpty {
                guard replacing else { throw ListStoreError.storeNotEmpty(sectionCount: existing.count) }
                try PayloadIndex.noteDeleting(.list(listID), db)
                try MergeRegisters.buryContents(ofList: listID, keepingList: true, db)
                try db.run("DELETE FROM sections WHERE list_id = ?1", [.integer(listID)])
                try SectionOrder.recount(db, list: listID)
            }
            let importer = try ListImporter(db, list: listID, tracksChanges: tracksChanges, sectionsReplaced: existing.count)
            defer { importer.close() }
            try feed(importer)
            try importer.finishSection()
            try recordUntrackedWrite("import", db)
            guard tracksChanges else { return (ChangeSet(), .structure(lists: [listID])) }
            var changes = ChangeSet()
            changes.insertedSections = importer.insertedSections
            changes.deletedSections = existing
            return (changes.sorted(), .structure(lists: [listID]))
        }
    }

    /// Loads `document` in one transaction (see ``importStream(replacing:tracksChanges:_:)``). `progress` is called
    /// with (rows written, rows in the document) every 1,000 rows and at the end, inside the
    /// transaction. To cancel, throw from it — `try Task.checkCancellation()` in a task, or
    /// `throw CancellationError()`: the import rolls back, the store is exactly as it was, and
    /// `importDocument` throws a ``ListStoreError/Family/refused`` error (import cancelled). Any other error
    /// thrown from `progress` rolls the import back too and is rethrown as it is.
    @discardableResult
    package func importDocument(
        _ document: ListDocument, replacing: Bool = false,
        progress: (_ written: Int, _ total: Int) throws -> Void = { _, _ in }
    ) throws -> ChangeSet {
        let total = document.rowCount
        func report(_ written: Int) throws {
            do { try progress(written, total) } catch is CancellationError {
                throw ListStoreError.importCancelled(rowsWritten: written, rowCount: total)
            }
        }
        return try importStream(replacing: replacing) { importer in
            for section in document.sections {
                try importer.addSection(id: section.id, title: section.title)
                for row in section.rows {
                    try importer.addRow(id: row.id, title: row.title, payload: row.payload)
                    if importer.rowsWritten % 1_000 == 0 { try report(importer.rowsWritten) }
                }
            }
            try report(importer.rowsWritten)
        }
    }
}
