import SQLiteLayer

/// Row mutations. Each is one transaction, validated against the file as it is, all-or-nothing.
extension ListStore {
    /// Inserts `rows` into section `section`, in order, starting at row index `index`
    /// (at the end when nil), in one transaction.
    @discardableResult
    public func insertRows(_ rows: [NewRow], intoSection section: Int, at index: Int? = nil) throws -> ChangeSet {
        for row in rows { try validateTitle(row.title) }
        return try mutate { db in
            try SectionOrder.verify(db)
            var target = try SectionRows.load(section: section, db)
            let start = index ?? target.count
            guard (0...target.count).contains(start) else {
                throw ListStoreError.rowDestinationOutOfRange(ListIndexPath(section: section, row: start), maxRow: target.count)
            }
            for row in rows { try db.validatePayload(row.payload) }
            let firstPosition = try target.openGap(at: start, width: rows.count, db)
            var changes = ChangeSet()
            let insert = try db.cached("INSERT INTO rows (section_id, position, title, payload) VALUES (?1, ?2, ?3, ?4)")
            for (offset, row) in rows.enumerated() {
                do {
                    try insert.bind([.integer(target.sectionID), .int(firstPosition + offset), .text(row.title), .optionalText(row.payload)]).run()
                } catch { throw db.explainingFull(error, inserting: "rows") }
                changes.insertedRows.append(.init(indexPath: ListIndexPath(section: section, row: start + offset), id: RowID(rawValue: db.lastInsertedRowID)))
            }
            try target.save(db)
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
        return try mutate { db in
            try db.validatePayload(row.payload)
            let sectionCount = try SectionOrder.verify(db)
            let insert = try db.cached("INSERT INTO rows (section_id, position, title, payload) VALUES (?1, ?2, ?3, ?4)")
            var changes = ChangeSet()
            for section in 0..<sectionCount {
                var target = try SectionRows.load(section: section, db)
                let index = target.count
                let position = try target.openGap(at: index, width: 1, db)
                do {
                    try insert.bind([.integer(target.sectionID), .int(position), .text(row.title), .optionalText(row.payload)]).run()
                } catch { throw db.explainingFull(error, inserting: "rows") }
                changes.insertedRows.append(.init(indexPath: ListIndexPath(section: section, row: index), id: RowID(rawValue: db.lastInsertedRowID)))
            }
            return changes
        }
    }

    /// Changes the title and/or payload of the row at `indexPath`; nil `title` keeps the title.
    @discardableResult
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        if let title { try validateTitle(title) }
        return try mutate { db in
            try SectionOrder.verify(db)
            let rowID = try SectionRows.load(section: indexPath.section, db).rowID(at: indexPath.row, db)
            return try update(rowID: rowID, at: indexPath, title: title, payload: payload, db)
        }
    }

    /// Changes the title and/or payload of the row with `id`, wherever it is now.
    @discardableResult
    public func updateRow(id: RowID, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        if let title { try validateTitle(title) }
        return try mutate { db in
            try SectionOrder.verify(db)
            return try update(rowID: id.rawValue, at: try db.location(of: id).path, title: title, payload: payload, db)
        }
    }

    /// Moves the row at `from` so that its index path after the move is `to`
    /// (in the same section or another one).
    @discardableResult
    public func moveRow(from: ListIndexPath, to: ListIndexPath) throws -> ChangeSet {
        try mutate { db in
            try SectionOrder.verify(db)
            var source = try SectionRows.load(section: from.section, db)
            let rowID = try source.rowID(at: from.row, db)
            var changes = ChangeSet()
            if from.section == to.section {
                guard (0..<source.count).contains(to.row) else { throw ListStoreError.rowDestinationOutOfRange(to, maxRow: source.count - 1) }
                guard from.row != to.row else { return changes }
                try source.move(rowID: rowID, from: from.row, to: to.row, db)
                try source.save(db)
            } else {
                var target = try SectionRows.load(section: to.section, db)
                guard (0...target.count).contains(to.row) else { throw ListStoreError.rowDestinationOutOfRange(to, maxRow: target.count) }
                try source.detach(rowID: rowID, at: from.row, db)
                try target.attach(rowID: rowID, at: to.row, db)
                try source.save(db)
                try target.save(db)
            }
            changes.movedRows = [.init(from: from, to: to, id: RowID(rawValue: rowID))]
            return changes
        }
    }

    /// Deletes the rows at `indexPaths` (any sections, any order) in one transaction. Exactly the
    /// addressed rows go, by identity: other rows with equal titles stay.
    @discardableResult
    public func deleteRows(at indexPaths: [ListIndexPath]) throws -> ChangeSet {
        if let repeated = firstRepeated(indexPaths) { throw ListStoreError.duplicateIndexPath(repeated) }
        return try mutate { db in
            try SectionOrder.verify(db)
            var sections: [Int: SectionRows] = [:]
            let doomed = try indexPaths.map { path in
                let section = try sections[path.section] ?? SectionRows.load(section: path.section, db)
                sections[path.section] = section
                return DoomedRow(path: path, id: RowID(rawValue: try section.rowID(at: path.row, db)))
            }
            return try delete(doomed, in: sections, db)
        }
    }

    /// Deletes the rows with `ids`, wherever they are now, in one transaction.
    @discardableResult
    public func deleteRows(ids: [RowID]) throws -> ChangeSet {
        if let repeated = firstRepeated(ids) { throw ListStoreError.duplicateRowID(repeated) }
        return try mutate { db in try deleteRows(ids: ids, db) }
    }

    /// Deletes the rows with `ids` inside the caller's transaction.
    func deleteRows(ids: [RowID], _ db: Connection) throws -> ChangeSet {
        try SectionOrder.verify(db)
        var sections: [Int: SectionRows] = [:]
        let doomed = try ids.map { id in
            let (path, sectionID) = try db.location(of: id)
            if sections[path.section] == nil { sections[path.section] = try SectionRows.load(sectionID: sectionID, index: path.section, db) }
            return DoomedRow(path: path, id: id)
        }
        return try delete(doomed, in: sections, db)
    }

    private struct DoomedRow {
        let path: ListIndexPath
        let id: RowID
    }

    private func delete(_ doomed: [DoomedRow], in sections: [Int: SectionRows], _ db: Connection) throws -> ChangeSet {
        let remove = try db.cached("DELETE FROM rows WHERE id = ?1")
        for row in doomed { try remove.bind([.integer(row.id.rawValue)]).run() }
        let gapsBySection = Dictionary(grouping: doomed.map(\.path), by: \.section)
        for (section, paths) in gapsBySection {
            guard var rows = sections[section] else { continue }
            try rows.closeGaps(at: paths.map(\.row).sorted(), db)
            try rows.save(db)
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
