import SQLiteLayer

/// Section edits inside a write transaction, by index or by id.
extension ListTransaction {
    /// Inserts an empty section titled `title` at `index` (at the end when nil); returns its id.
    @discardableResult
    public func insertSection(title: String, at index: Int? = nil) throws -> SectionID {
        try whileOpen {
            try validateTitle(title)
            let count = try verifiedSectionCount()
            let position = index ?? count
            guard (0...count).contains(position) else {
                throw ListStoreError.sectionInsertionIndexOutOfRange(index: position, sectionCount: count)
            }
            try SectionOrder.shift(from: position, by: 1, db, list: list)
            let id: Int64
            do { id = try SectionWriter.insert(id: nil, title: title, at: position, list: list, db) } catch {
                throw db.explainingFull(error, inserting: "sections")
            }
            try SectionOrder.recordCountChange(by: 1, db, list: list)
            try RowBlocks.createFirstExtents(ofSection: id, db)
            try record(.sectionInserted(.init(id: id, title: title, index: position)))
            return SectionID(rawValue: id)
        }
    }

    /// Changes the title of section `index`.
    public func renameSection(at index: Int, to title: String) throws {
        try whileOpen { try rename(try checkedSection(at: index), to: title) }
    }

    /// Changes the title of the section with id `id`.
    public func renameSection(id: SectionID, to title: String) throws {
        try whileOpen { try rename(try checkedSection(id: id), to: title) }
    }

    /// Moves section `from` (with its rows) so that it ends up at index `to`.
    public func moveSection(from: Int, to: Int) throws {
        try whileOpen { try move(try checkedSection(at: from), to: to) }
    }

    /// Moves the section with id `id` (with its rows) so that it ends up at index `to`.
    public func moveSection(id: SectionID, to: Int) throws {
        try whileOpen { try move(try checkedSection(id: id), to: to) }
    }

    /// Deletes the sections at `indexes`, with all their rows.
    public func deleteSections(at indexes: [Int]) throws {
        try whileOpen {
            if let repeated = firstRepeated(indexes) { throw ListStoreError.duplicateSectionIndex(repeated) }
            try verifiedSectionCount()
            try delete(try indexes.map { ChangeSet.SectionChange(index: $0, id: SectionID(rawValue: try db.sectionID(at: $0, list: list))) })
        }
    }

    /// Deletes the sections with `ids`, with all their rows.
    public func deleteSections(ids: [SectionID]) throws {
        try whileOpen {
            if let repeated = firstRepeated(ids) { throw ListStoreError.duplicateSectionID(repeated) }
            try verifiedSectionCount()
            try delete(
                try ids.map { id in
                    ChangeSet.SectionChange(index: try db.existingSectionIndex(id, list: list), id: id)
                })
        }
    }

    private func rename(_ section: SectionRows, to title: String) throws {
        try validateTitle(title)
        guard let old = try db.scalarText("SELECT title FROM sections WHERE id = ?1", [.integer(section.sectionID)]), old != title else { return }
        try db.run("UPDATE sections SET title = ?2 WHERE id = ?1", [.integer(section.sectionID), .text(title)])
        try record(.sectionRenamed(id: section.sectionID, index: section.sectionIndex, oldTitle: old, title: title))
    }

    private func move(_ section: SectionRows, to: Int) throws {
        let count = try verifiedSectionCount()
        guard (0..<count).contains(to) else { throw ListStoreError.sectionIndexOutOfRange(index: to, sectionCount: count) }
        let from = section.sectionIndex
        guard from != to else { return }
        let old = try history == nil ? nil : db.sectionSurroundings(id: section.sectionID)
        try SectionOrder.move(section.sectionID, from: from, to: to, count: count, db, list: list)
        try record(
            .sectionMoved(.init(id: section.sectionID, from: from, to: to, oldNeighbours: old.map { ListEdit.Neighbours(previous: $0.previous, next: $0.next) })))
    }

    /// Recorded before the sections go: their rows are copied into the history, and noted for the
    /// payload indexes, while they are there.
    private func delete(_ doomed: [ChangeSet.SectionChange]) throws {
        guard let first = doomed.map(\.index).min() else { return }
        let sections = try doomed.map { section in
            let details = try history == nil ? nil : db.sectionSurroundings(id: section.id.rawValue)
            return ListEdit.DeletedSection(
                id: section.id.rawValue, index: section.index,
                details: details.map { .init(title: $0.title, neighbours: .init(previous: $0.previous, next: $0.next), rowCount: $0.rowCount) })
        }
        try record(.sectionsDeleted(sections))
        for section in doomed {
            try db.run("DELETE FROM sections WHERE id = ?1", [.integer(section.id.rawValue)])
        }
        try SectionOrder.recordCountChange(by: -doomed.count, db, list: list)
        try SectionOrder.closeGaps(from: first, db, list: list)
    }
}
