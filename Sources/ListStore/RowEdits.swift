import SQLiteLayer

/// Row mutations. Each is one transaction, validated against the file as it is, all-or-nothing.
extension ListStore {
    /// Inserts `rows` into section `section`, in order, starting at row index `index`
    /// (at the end when nil), in one transaction.
    @discardableResult
    public func insertRows(_ rows: [NewRow], intoSection section: Int, at index: Int? = nil) throws -> ChangeSet {
        for row in rows { try validateTitle(row.title) }
        return try write { db in
            let sectionID = try db.sectionID(at: section)
            let count = try OrderedTable.rows.count(in: sectionID, db)
            let start = index ?? count
            guard (0...count).contains(start) else {
                throw ListStoreError.rowDestinationOutOfRange(ListIndexPath(section: section, row: start), maxRow: count)
            }
            for row in rows { try db.validatePayload(row.payload) }
            try OrderedTable.rows.shift(in: sectionID, from: start, by: rows.count, db)
            var changes = ChangeSet()
            let insert = try db.cached("INSERT INTO rows (section_id, position, title, payload) VALUES (?1, ?2, ?3, ?4)")
            for (offset, row) in rows.enumerated() {
                try insert.bind([.integer(sectionID), .int(start + offset), .text(row.title), .optionalText(row.payload)]).run()
                changes.insertedRows.append(.init(indexPath: ListIndexPath(section: section, row: start + offset), id: RowID(rawValue: db.lastInsertedRowID)))
            }
            return changes
        }
    }

    /// Inserts one row into section `section` at `index` (at the end when nil).
    @discardableResult
    public func insertRow(_ row: NewRow, intoSection section: Int, at index: Int? = nil) throws -> ChangeSet {
        try insertRows([row], intoSection: section, at: index)
    }

    /// Appends `row` to the end of every section, in one transaction (a table view's "add" button).
    @discardableResult
    public func appendRowToEverySection(_ row: NewRow) throws -> ChangeSet {
        try validateTitle(row.title)
        return try write { db in
            try db.validatePayload(row.payload)
            let sectionIDs = try db.cached("SELECT id FROM sections ORDER BY position").bind([]).map { $0.int64(0) }
            let insert = try db.cached("INSERT INTO rows (section_id, position, title, payload) VALUES (?1, ?2, ?3, ?4)")
            var changes = ChangeSet()
            for (section, sectionID) in sectionIDs.enumerated() {
                let position = try OrderedTable.rows.count(in: sectionID, db)
                try insert.bind([.integer(sectionID), .int(position), .text(row.title), .optionalText(row.payload)]).run()
                changes.insertedRows.append(.init(indexPath: ListIndexPath(section: section, row: position), id: RowID(rawValue: db.lastInsertedRowID)))
            }
            return changes
        }
    }

    /// Changes the title and/or payload of the row at `indexPath`; nil `title` keeps the title.
    @discardableResult
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        if let title { try validateTitle(title) }
        return try write { db in
            try update(rowID: try db.rowID(at: indexPath).row, at: indexPath, title: title, payload: payload, db)
        }
    }

    /// Changes the title and/or payload of the row with `id`, wherever it is now.
    @discardableResult
    public func updateRow(id: RowID, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        if let title { try validateTitle(title) }
        return try write { db in
            try update(rowID: id.rawValue, at: try db.location(of: id).path, title: title, payload: payload, db)
        }
    }

    /// Moves the row at `from` so that its index path after the move is `to`
    /// (in the same section or another one).
    @discardableResult
    public func moveRow(from: ListIndexPath, to: ListIndexPath) throws -> ChangeSet {
        try write { db in
            let (rowID, sourceSection) = try db.rowID(at: from)
            let targetSection = try db.sectionID(at: to.section)
            var changes = ChangeSet()
            if sourceSection == targetSection {
                let count = try OrderedTable.rows.count(in: sourceSection, db)
                guard (0..<count).contains(to.row) else { throw ListStoreError.rowDestinationOutOfRange(to, maxRow: count - 1) }
                guard from.row != to.row else { return changes }
                try OrderedTable.rows.move(in: sourceSection, from: from.row, to: to.row, count: count, db)
            } else {
                let targetCount = try OrderedTable.rows.count(in: targetSection, db)
                guard (0...targetCount).contains(to.row) else { throw ListStoreError.rowDestinationOutOfRange(to, maxRow: targetCount) }
                try OrderedTable.rows.shift(in: targetSection, from: to.row, by: 1, db)
                try db.run("UPDATE rows SET section_id = ?2, position = ?3 WHERE id = ?1", [.integer(rowID), .integer(targetSection), .int(to.row)])
                try OrderedTable.rows.shift(in: sourceSection, from: from.row + 1, by: -1, db)
            }
            changes.movedRows = [.init(from: from, to: to, id: RowID(rawValue: rowID))]
            return changes
        }
    }

    /// Deletes the rows at `indexPaths` (any sections, any order) in one transaction. Exactly the
    /// addressed rows go, by identity: other rows with equal titles stay.
    @discardableResult
    public func deleteRows(at indexPaths: [ListIndexPath]) throws -> ChangeSet {
        var seen = Set<ListIndexPath>()
        for path in indexPaths where !seen.insert(path).inserted { throw ListStoreError.duplicateIndexPath(path) }
        return try write { db in
            let doomed = try indexPaths.map { path in
                let (row, section) = try db.rowID(at: path)
                return DoomedRow(path: path, id: RowID(rawValue: row), sectionID: section)
            }
            return try delete(doomed, db)
        }
    }

    /// Deletes the rows with `ids`, wherever they are now, in one transaction.
    @discardableResult
    public func deleteRows(ids: [RowID]) throws -> ChangeSet {
        var seen = Set<RowID>()
        for id in ids where !seen.insert(id).inserted { throw ListStoreError.duplicateRowID(id) }
        return try write { db in
            let doomed = try ids.map { id in
                let (path, section) = try db.location(of: id)
                return DoomedRow(path: path, id: id, sectionID: section)
            }
            return try delete(doomed, db)
        }
    }

    private struct DoomedRow {
        let path: ListIndexPath
        let id: RowID
        let sectionID: Int64
    }

    private func delete(_ doomed: [DoomedRow], _ db: Connection) throws -> ChangeSet {
        let remove = try db.cached("DELETE FROM rows WHERE id = ?1")
        for row in doomed { try remove.bind([.integer(row.id.rawValue)]).run() }
        let firstGapPerSection = Dictionary(doomed.map { ($0.sectionID, $0.path.row) }, uniquingKeysWith: min)
        for (sectionID, firstGap) in firstGapPerSection {
            try OrderedTable.rows.closeGaps(in: sectionID, from: firstGap, db)
        }
        var changes = ChangeSet()
        changes.deletedRows = doomed.map { .init(indexPath: $0.path, id: $0.id) }
        return changes.sorted()
    }

    private func update(rowID: Int64, at path: ListIndexPath, title: String?, payload: PayloadUpdate, _ db: Connection) throws -> ChangeSet {
        guard let current = try db.cached("SELECT title, payload FROM rows WHERE id = ?1").bind([.integer(rowID)])
            .first({ (title: $0.text(0), payload: $0.optionalText(1)) }) else {
            throw ListStoreError.unknownRow(RowID(rawValue: rowID))
        }
        let newPayload: String?
        switch payload {
        case .unchanged: newPayload = current.payload
        case .remove: newPayload = nil
        case .set(let json):
            try db.validatePayload(json)
            newPayload = json
        }
        let newTitle = title ?? current.title
        var changes = ChangeSet()
        guard newTitle != current.title || newPayload != current.payload else { return changes }
        try db.run("UPDATE rows SET title = ?2, payload = ?3 WHERE id = ?1", [.integer(rowID), .text(newTitle), .optionalText(newPayload)])
        changes.updatedRows = [.init(indexPath: path, id: RowID(rawValue: rowID))]
        return changes
    }
}
