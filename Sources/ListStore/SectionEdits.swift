import SQLiteLayer

/// Section mutations. Each is one transaction, validated against the file as it is, all-or-nothing.
extension ListStore {
    /// Inserts an empty section titled `title` at `index` (at the end when nil).
    @discardableResult
    public func insertSection(title: String, at index: Int? = nil) throws -> ChangeSet {
        try validateTitle(title)
        return try mutate { db in
            let count = try SectionOrder.verify(db)
            let position = index ?? count
            guard (0...count).contains(position) else {
                throw ListStoreError.sectionInsertionIndexOutOfRange(index: position, sectionCount: count)
            }
            try SectionOrder.shift(from: position, by: 1, db)
            do {
                try db.run("INSERT INTO sections (position, title) VALUES (?1, ?2)", [.int(position), .text(title)])
            } catch { throw db.explainingFull(error, inserting: "sections") }
            var changes = ChangeSet()
            changes.insertedSections = [.init(index: position, id: SectionID(rawValue: db.lastInsertedRowID))]
            return changes
        }
    }

    /// Changes the title of section `index`.
    @discardableResult
    public func renameSection(at index: Int, to title: String) throws -> ChangeSet {
        try validateTitle(title)
        return try mutate { db in
            try SectionOrder.verify(db)
            let id = try db.sectionID(at: index)
            let old = try db.scalarText("SELECT title FROM sections WHERE id = ?1", [.integer(id)])
            var changes = ChangeSet()
            guard old != title else { return changes }
            try db.run("UPDATE sections SET title = ?2 WHERE id = ?1", [.integer(id), .text(title)])
            changes.updatedSections = [.init(index: index, id: SectionID(rawValue: id))]
            return changes
        }
    }

    /// Moves section `from` (with its rows) so that it ends up at index `to`.
    @discardableResult
    public func moveSection(from: Int, to: Int) throws -> ChangeSet {
        try mutate { db in
            let count = try SectionOrder.verify(db)
            let id = try db.sectionID(at: from)
            guard (0..<count).contains(to) else { throw ListStoreError.sectionIndexOutOfRange(index: to, sectionCount: count) }
            var changes = ChangeSet()
            guard from != to else { return changes }
            try SectionOrder.move(id, from: from, to: to, count: count, db)
            changes.movedSections = [.init(from: from, to: to, id: SectionID(rawValue: id))]
            return changes
        }
    }

    /// Deletes the sections at `indexes`, with all their rows, in one transaction.
    @discardableResult
    public func deleteSections(at indexes: [Int]) throws -> ChangeSet {
        if let repeated = firstRepeated(indexes) { throw ListStoreError.duplicateSectionIndex(repeated) }
        return try mutate { db in
            try SectionOrder.verify(db)
            let doomed = try indexes.map { ChangeSet.SectionChange(index: $0, id: SectionID(rawValue: try db.sectionID(at: $0))) }
            return try deleteSections(doomed, db)
        }
    }

    /// Deletes the sections with `ids`, with all their rows, in one transaction.
    @discardableResult
    public func deleteSections(ids: [SectionID]) throws -> ChangeSet {
        if let repeated = firstRepeated(ids) { throw ListStoreError.duplicateSectionID(repeated) }
        return try mutate { db in
            try SectionOrder.verify(db)
            let doomed = try ids.map { id in
                guard let index = try db.scalarInt("SELECT position FROM sections WHERE id = ?1", [.integer(id.rawValue)]) else {
                    throw ListStoreError.unknownSection(id)
                }
                return ChangeSet.SectionChange(index: index, id: id)
            }
            return try deleteSections(doomed, db)
        }
    }

    private func deleteSections(_ doomed: [ChangeSet.SectionChange], _ db: Connection) throws -> ChangeSet {
        var changes = ChangeSet()
        guard let first = doomed.map(\.index).min() else { return changes }
        for section in doomed {
            try db.run("DELETE FROM sections WHERE id = ?1", [.integer(section.id.rawValue)])
        }
        try SectionOrder.closeGaps(from: first, db)
        changes.deletedSections = doomed
        return changes.sorted()
    }
}
