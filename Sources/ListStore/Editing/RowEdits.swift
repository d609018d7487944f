import SQLiteLayer

/// Row edits inside a write transaction, by index path or by id. Each validates its input against the
/// store as the transaction's earlier edits left it and throws a ``ListStoreError`` naming what is wrong.
extension ListTransaction {
    /// Inserts `rows` into section `section`, in order, the first at row index `index` (at the end when
    /// nil). Returns the new rows' ids.
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], intoSection section: Int, at index: Int? = nil) throws -> [RowID] {
        try whileOpen { try insert(rows.map(\.newRow), into: try checkedSection(at: section), at: index) }
    }

    /// Inserts `rows` into the section with id `section`, the first at row index `index` (at the end when nil).
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], intoSection section: SectionID, at index: Int? = nil) throws -> [RowID] {
        try whileOpen { try insert(rows.map(\.newRow), into: try checkedSection(id: section), at: index) }
    }

    /// Inserts `rows` just before the row with id `anchor`, in its section.
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], before anchor: RowID) throws -> [RowID] {
        try whileOpen {
            let (section, row) = try place(of: anchor)
            return try insert(rows.map(\.newRow), into: section, at: row.index)
        }
    }

    /// Inserts `rows` just after the row with id `anchor`, in its section.
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], after anchor: RowID) throws -> [RowID] {
        try whileOpen {
            let (section, row) = try place(of: anchor)
            return try insert(rows.map(\.newRow), into: section, at: row.index + 1)
        }
    }

    /// Inserts one row into section `section` at `index` (at the end when nil); returns its id.
    @discardableResult
    public func insertRow(_ row: some NewRowConvertible, intoSection section: Int, at index: Int? = nil) throws -> RowID {
        try single(insertRows([row], intoSection: section, at: index))
    }

    /// Inserts one row into the section with id `section` at `index` (at the end when nil); returns its id.
    @discardableResult
    public func insertRow(_ row: some NewRowConvertible, intoSection section: SectionID, at index: Int? = nil) throws -> RowID {
        try single(insertRows([row], intoSection: section, at: index))
    }

    /// Appends `row` to the end of every section (a table view's "add" button); returns the new ids in
    /// section order.
    @discardableResult
    public func appendRowToEverySection(_ row: some NewRowConvertible) throws -> [RowID] {
        try whileOpen {
            let row = row.newRow
            try validateTitle(row.title)
            try db.validatePayload(row.payload)
            let sectionCount = try verifiedSectionCount()
            var runs: [ListEdit.InsertedRows] = []
            for section in 0..<sectionCount {
                var target = try SectionRows.load(section: section, list: list, db, sizes: sizes)
                runs.append(try writeRows([row], into: &target, at: target.count))
            }
            try record(.rowsInserted(runs))
            return runs.compactMap(\.rows.first?.id)
        }
    }

    /// Changes the title and/or payload of the row at `indexPath`; nil `title` keeps the title.
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: PayloadUpdate = .unchanged) throws {
        try whileOpen {
            let section = try checkedSection(at: indexPath.section)
            try update(rowID: try section.place(at: indexPath.row).id, in: section, at: indexPath, title: title, payload: payload)
        }
    }

    /// Changes the title and/or payload of the row with `id`, wherever it is now.
    public func updateRow(id: RowID, title: String? = nil, payload: PayloadUpdate = .unchanged) throws {
        try whileOpen {
            let (section, row) = try place(of: id)
            try update(rowID: id.rawValue, in: section, at: ListIndexPath(section: section.sectionIndex, row: row.index), title: title, payload: payload)
        }
    }

    /// Moves the row at `from` so that its index path after the move is `to` (in the same section or another).
    public func moveRow(from: ListIndexPath, to: ListIndexPath) throws {
        try whileOpen {
            let source = try checkedSection(at: from.section)
            try move(try source.place(at: from.row), from: source, toSection: to.section == from.section ? nil : try checkedSection(at: to.section), row: to.row)
        }
    }

    /// Moves the row with `id` so that its index path after the move is `to`.
    public func moveRow(id: RowID, to: ListIndexPath) throws {
        try whileOpen {
            let (source, row) = try place(of: id)
            try move(row, from: source, toSection: to.section == source.sectionIndex ? nil : try checkedSection(at: to.section), row: to.row)
        }
    }

    /// Moves the row with `id` into the section with id `section`, at row index `index` after the move
    /// (at the end when nil).
    public func moveRow(id: RowID, toSection section: SectionID, at index: Int? = nil) throws {
        try whileOpen {
            let (source, row) = try place(of: id)
            let target = source.sectionID == section.rawValue ? nil : try checkedSection(id: section)
            let end = target.map(\.count) ?? source.count - 1
            try move(row, from: source, toSection: target, row: index ?? end)
        }
    }

    /// Moves the row with `id` to just before the row with id `anchor` (in the anchor's section).
    public func moveRow(id: RowID, before anchor: RowID) throws {
        try whileOpen { try move(id, nextTo: anchor, after: false) }
    }

    /// Moves the row with `id` to just after the row with id `anchor` (in the anchor's section).
    public func moveRow(id: RowID, after anchor: RowID) throws {
        try whileOpen { try move(id, nextTo: anchor, after: true) }
    }

    /// Deletes the rows at `indexPaths` (any sections, any order). Exactly the addressed rows go, by
    /// identity: other rows with equal titles stay.
    public func deleteRows(at indexPaths: [ListIndexPath]) throws {
        try whileOpen {
            if let repeated = firstRepeated(indexPaths) { throw ListStoreError.duplicateIndexPath(repeated) }
            try verifiedSectionCount()
            var sections: [Int: SectionRows] = [:]
            // Checked in the order given, so the error names the first bad path; then found section by section.
            for path in indexPaths {
                let rows = try sections[path.section] ?? SectionRows.load(section: path.section, list: list, db, sizes: sizes)
                sections[path.section] = rows
                guard path.row >= 0, path.row < rows.count else { throw ListStoreError.rowIndexOutOfRange(path, rowCount: rows.count) }
            }
            // Found with their values and neighbours in the same look-ups when the history keeps them.
            var found: [Int: [Int: (place: RowPlace, departing: DepartingRow?)]] = [:]
            for (section, paths) in Dictionary(grouping: indexPaths, by: \.section) {
                guard let rows = sections[section] else { continue }
                if history != nil {
                    found[section] = try rows.departingRows(at: paths.map(\.row)).mapValues { ($0.place, $0) }
                } else {
                    found[section] = try rows.places(at: paths.map(\.row)).mapValues { ($0, nil) }
                }
            }
            let doomed = try indexPaths.map { path in
                guard let row = found[path.section]?[path.row] else { throw ListStoreError.positionsDamaged(section: path.section) }
                return DoomedRow(path: path, place: row.place, departing: row.departing)
            }
            try delete(doomed, in: sections)
        }
    }

    /// Deletes the rows with `ids`, wherever they are now.
    public func deleteRows(ids: [RowID]) throws {
        try whileOpen {
            if let repeated = firstRepeated(ids) { throw ListStoreError.duplicateRowID(repeated) }
            try verifiedSectionCount()
            var sections: [Int: SectionRows] = [:]
            let doomed = try ids.map { id in
                let (path, sectionID, place) = try db.rowPlace(of: id, list: list)
                if sections[path.section] == nil { sections[path.section] = try SectionRows.load(sectionID: sectionID, index: path.section, db, sizes: sizes) }
                return DoomedRow(path: path, place: place, departing: nil)
            }
            try delete(doomed, in: sections)
        }
    }

    // MARK: Shared steps

    private struct DoomedRow {
        let path: ListIndexPath
        let place: RowPlace
        /// Its values and neighbours, when the look-up that found it read them too.
        let departing: DepartingRow?
        var id: RowID { RowID(rawValue: place.id) }
    }

    private func single(_ ids: [RowID]) throws -> RowID {
        guard let id = ids.first else { throw ListStoreError.unknownRow(RowID(rawValue: 0)) }
        return id
    }

    /// The checked section holding the row with `id`, and the row's place in it.
    private func place(of id: RowID) throws -> (section: SectionRows, row: RowPlace) {
        try verifiedSectionCount()
        let (path, sectionID, place) = try db.rowPlace(of: id, list: list)
        return (try SectionRows.load(sectionID: sectionID, index: path.section, db, sizes: sizes), place)
    }

    private func insert(_ rows: [NewRow], into section: SectionRows, at index: Int?) throws -> [RowID] {
        for row in rows { try validateTitle(row.title) }
        var target = section
        let start = index ?? target.count
        guard (0...target.count).contains(start) else {
            throw ListStoreError.rowDestinationOutOfRange(ListIndexPath(section: target.sectionIndex, row: start), maxRow: target.count)
        }
        for row in rows { try db.validatePayload(row.payload) }
        let run = try writeRows(rows, into: &target, at: start)
        try record(.rowsInserted([run]))
        return run.rows.map(\.id)
    }

    private func move(_ id: RowID, nextTo anchor: RowID, after: Bool) throws {
        guard id != anchor else { return }
        let (source, row) = try place(of: id)
        let (anchorSection, anchorRow) = try place(of: anchor)
        let anchorIndex = anchorRow.index
        if anchorSection.sectionID == source.sectionID {
            // The index after the move: the anchor's index once the moving row has left, plus one for "after".
            let anchorAfterLeaving = anchorIndex - (row.index < anchorIndex ? 1 : 0)
            try move(row, from: source, toSection: nil, row: anchorAfterLeaving + (after ? 1 : 0))
        } else {
            try move(row, from: source, toSection: anchorSection, row: anchorIndex + (after ? 1 : 0))
        }
    }

    /// Moves a row from `source` (at `from`) to row index `row` after the move, in `target` (nil: the same section).
    private func move(_ place: RowPlace, from source: SectionRows, toSection target: SectionRows?, row: Int) throws {
        var source = source
        let fromPath = ListIndexPath(section: source.sectionIndex, row: place.index)
        let toPath = ListIndexPath(section: target?.sectionIndex ?? source.sectionIndex, row: row)
        let last: Int
        if let target {
            guard (0...target.count).contains(row) else { throw ListStoreError.rowDestinationOutOfRange(toPath, maxRow: target.count) }
            last = target.count
        } else {
            guard (0..<source.count).contains(row) else { throw ListStoreError.rowDestinationOutOfRange(toPath, maxRow: source.count - 1) }
            guard place.index != row else { return }
            last = source.count - 1
        }
        let oldNeighbours = try history == nil ? nil : neighbours(of: place, inSection: source.sectionID)
        let targetID = target?.sectionID ?? source.sectionID
        if var target {
            try source.move(place, into: &target, at: row)
        } else {
            try source.move(place, from: place.index, to: row)
        }
        let anchor = try self.anchor(index: row, last: last, section: targetID) { try self.position(ofRow: place.id) }
        try record(
            .rowMoved(
                .init(id: place.id, from: fromPath, source: source.sectionID, to: toPath, target: targetID, anchor: anchor, oldNeighbours: oldNeighbours)))
    }

    private func delete(_ doomed: [DoomedRow], in sections: [Int: SectionRows]) throws {
        // What undo needs of each row, by id: as the look-up that found it read it, else read here before it goes.
        var departed: [Int64: DepartingRow] = [:]
        for (section, rows) in Dictionary(grouping: doomed, by: \.path.section) {
            guard var target = sections[section] else { continue }
            if history != nil {
                let departing = rows.compactMap(\.departing)
                for row in departing.count == rows.count ? departing : try target.departingRows(rows.map(\.place)) { departed[row.place.id] = row }
            }
            try noteDeletingRows(rows.map(\.place.id))
            try target.delete(rows.map(\.place))
        }
        let rows = doomed.compactMap { row -> ListEdit.DeletedRow? in
            guard let section = sections[row.path.section] else { return nil }
            let values = departed[row.place.id]
            return ListEdit.DeletedRow(
                id: row.place.id, path: row.path, section: section.sectionID, values: values.map { .init(title: $0.title, payload: $0.payload) },
                neighbours: values.map { .init(previous: $0.previous, next: $0.next) })
        }
        try record(.rowsDeleted(rows))
    }

    private func update(rowID: Int64, in section: SectionRows, at path: ListIndexPath, title: String?, payload: PayloadUpdate) throws {
        if let title { try validateTitle(title) }
        guard
            let current = try db.cached("SELECT title, payload FROM rows WHERE id = ?1").bind([.integer(rowID)])
                .first({ (title: $0.text(0), payload: $0.optionalText(1)) })
        else {
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
        guard newTitle != current.title || newPayload != current.payload else { return }
        try db.run("UPDATE rows SET title = ?2, payload = ?3 WHERE id = ?1", [.integer(rowID), .text(newTitle), .optionalText(newPayload)])
        try record(
            .rowUpdated(
                .init(
                    id: rowID, section: section.sectionID, path: path, old: .init(title: current.title, payload: current.payload),
                    new: .init(title: newTitle, payload: newPayload))))
    }
}
