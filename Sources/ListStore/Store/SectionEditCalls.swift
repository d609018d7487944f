/// Section edits, each its own write transaction: shorthands for ``ListStore/write(_:)-3oqvi`` with one edit.
extension ListStore {
    /// Inserts an empty section titled `title` at `index` (at the end when nil); returns its id, as
    /// ``ListTransaction/insertSection(title:at:)`` does, with the change set.
    @discardableResult
    public func insertSection(title: String, at index: Int? = nil) throws -> (id: SectionID, changes: ChangeSet) {
        let (id, changes) = try writeReturning { try $0.insertSection(title: title, at: index) }
        return (id, changes)
    }

    /// Changes the title of section `index`.
    @discardableResult
    public func renameSection(at index: Int, to title: String) throws -> ChangeSet {
        try write { try $0.renameSection(at: index, to: title) }
    }

    /// Changes the title of the section with id `id`.
    @discardableResult
    public func renameSection(id: SectionID, to title: String) throws -> ChangeSet {
        try write { try $0.renameSection(id: id, to: title) }
    }

    /// Moves section `from` (with its rows) so that it ends up at index `to`.
    @discardableResult
    public func moveSection(from: Int, to: Int) throws -> ChangeSet {
        try write { try $0.moveSection(from: from, to: to) }
    }

    /// Moves the section with id `id` (with its rows) so that it ends up at index `to`.
    @discardableResult
    public func moveSection(id: SectionID, to: Int) throws -> ChangeSet {
        try write { try $0.moveSection(id: id, to: to) }
    }

    /// Deletes the sections at `indexes`, with all their rows, in one transaction.
    @discardableResult
    public func deleteSections(at indexes: [Int]) throws -> ChangeSet {
        try write { try $0.deleteSections(at: indexes) }
    }

    /// Deletes the sections with `ids`, with all their rows, in one transaction.
    @discardableResult
    public func deleteSections(ids: [SectionID]) throws -> ChangeSet {
        try write { try $0.deleteSections(ids: ids) }
    }
}
