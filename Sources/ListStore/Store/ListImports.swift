import SQLiteLayer

extension ListStore {
    /// Loads several lists in one transaction (`liststore import --all`): for each name in `names`, in
    /// order, the list of that name — made at the end of the lists when the file has none — is fed by
    /// `feed` (called with the name's index and that list's importer), as
    /// ``importStream(replacing:tracksChanges:_:)`` feeds one. Without `replacing` each of those lists
    /// must be empty; with it, their sections and rows are deleted first. Any error leaves every list as
    /// it was. No change set is built (observers of those lists read them afresh), and, as any import,
    /// it cannot be undone: no transaction before it can be undone either.
    public func importLists(named names: [String], replacing: Bool = false, _ feed: (_ index: Int, _ importer: ListImporter) throws -> Void) throws {
        if let repeated = Self.firstRepeatedListName(names) { throw ListStoreError.duplicateListName(repeated) }
        for name in names { try Self.validateListName(name) }
        _ = try mutatingLists { db, _ in
            // Every list is made, checked and emptied first, so that ids the document keeps are free in all of them.
            var ids: [Int64] = []
            var replaced: [Int] = []
            for name in names {
                let id: Int64
                do { id = try Self.listID(named: name, db) } catch let error as ListStoreError {
                    guard case .unknownList = error.reason else { throw error }
                    let position = (try db.scalarInt("SELECT max(position) FROM lists") ?? -1) + 1
                    try Self.insertList(named: name, position: Int64(position), db)
                    id = db.lastInsertedRowID
                    try MergeRegisters.place([id], in: .lists, db)
                }
                ids.append(id)
                let existing = try SectionOrder.count(db, list: id)
                if existing > 0 {
                    guard replacing else { throw ListStoreError.storeNotEmpty(sectionCount: existing) }
                    try PayloadIndex.noteDeleting(.list(id), db)
                    try MergeRegisters.buryContents(ofList: id, keepingList: true, db)
                    try db.run("DELETE FROM sections WHERE list_id = ?1", [.integer(id)])
                    try SectionOrder.recount(db, list: id)
                }
                replaced.append(existing)
            }
            for (index, id) in ids.enumerated() {
                let importer = try ListImporter(db, list: id, tracksChanges: false, sectionsReplaced: replaced[index])
                defer { importer.close() }
                try feed(index, importer)
                try importer.finishSection()
            }
            try recordUntrackedWrite("import", db)
            return ([:], .structure(lists: Set(ids)))
        }
    }
}
