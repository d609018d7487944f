import ListStore

// One edit or one read, each its own transaction, for the tests and the benchmark: the library has one
// way to edit (`write`, a `ListTransaction`) and to read (`read`, a `ListReader`); these spell the
// common one-edit case in a line. Each is exactly the `write` or `read` it wraps.

extension ListStore {
    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], intoSection section: Int, at index: Int? = nil) throws -> (ids: [RowID], changes: ChangeSet) {
        let (ids, changes) = try write { try $0.insertRows(rows, intoSection: section, at: index) }
        return (ids, changes)
    }

    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], intoSection section: SectionID, at index: Int? = nil) throws -> (ids: [RowID], changes: ChangeSet) {
        let (ids, changes) = try write { try $0.insertRows(rows, intoSection: section, at: index) }
        return (ids, changes)
    }

    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], before anchor: RowID) throws -> (ids: [RowID], changes: ChangeSet) {
        let (ids, changes) = try write { try $0.insertRows(rows, before: anchor) }
        return (ids, changes)
    }

    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], after anchor: RowID) throws -> (ids: [RowID], changes: ChangeSet) {
        let (ids, changes) = try write { try $0.insertRows(rows, after: anchor) }
        return (ids, changes)
    }

    @discardableResult
    public func insertRow(_ row: some NewRowConvertible, intoSection section: Int, at index: Int? = nil) throws -> (id: RowID, changes: ChangeSet) {
        let (id, changes) = try write { try $0.insertRow(row, intoSection: section, at: index) }
        return (id, changes)
    }

    @discardableResult
    public func insertRow(_ row: some NewRowConvertible, intoSection section: SectionID, at index: Int? = nil) throws -> (id: RowID, changes: ChangeSet) {
        let (id, changes) = try write { try $0.insertRow(row, intoSection: section, at: index) }
        return (id, changes)
    }

    @discardableResult
    public func insertRow(_ title: String, payload: some Encodable, intoSection section: Int, at index: Int? = nil) throws -> (id: RowID, changes: ChangeSet) {
        try insertRow(try NewRow(title: title, encoding: payload), intoSection: section, at: index)
    }

    @discardableResult
    public func insertRow(_ title: String, payload: some Encodable, intoSection section: SectionID, at index: Int? = nil) throws -> (id: RowID, changes: ChangeSet) {
        try insertRow(try NewRow(title: title, encoding: payload), intoSection: section, at: index)
    }

    @discardableResult
    public func appendRowToEverySection(_ row: some NewRowConvertible) throws -> (ids: [RowID], changes: ChangeSet) {
        let (ids, changes) = try write { try $0.appendRowToEverySection(row) }
        return (ids, changes)
    }

    @discardableResult
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        try write { try $0.updateRow(at: indexPath, title: title, payload: payload) }.changes
    }

    @discardableResult
    public func updateRow(id: RowID, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        try write { try $0.updateRow(id: id, title: title, payload: payload) }.changes
    }

    @discardableResult
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: some Encodable) throws -> ChangeSet {
        try updateRow(at: indexPath, title: title, payload: try .encoding(payload))
    }

    @discardableResult
    public func updateRow(id: RowID, title: String? = nil, payload: some Encodable) throws -> ChangeSet {
        try updateRow(id: id, title: title, payload: try .encoding(payload))
    }

    @discardableResult
    public func moveRow(from: ListIndexPath, to: ListIndexPath) throws -> ChangeSet {
        try write { try $0.moveRow(from: from, to: to) }.changes
    }

    @discardableResult
    public func moveRow(id: RowID, to: ListIndexPath) throws -> ChangeSet {
        try write { try $0.moveRow(id: id, to: to) }.changes
    }

    @discardableResult
    public func moveRow(id: RowID, toSection section: SectionID, at index: Int? = nil) throws -> ChangeSet {
        try write { try $0.moveRow(id: id, toSection: section, at: index) }.changes
    }

    @discardableResult
    public func moveRow(id: RowID, before anchor: RowID) throws -> ChangeSet {
        try write { try $0.moveRow(id: id, before: anchor) }.changes
    }

    @discardableResult
    public func moveRow(id: RowID, after anchor: RowID) throws -> ChangeSet {
        try write { try $0.moveRow(id: id, after: anchor) }.changes
    }

    @discardableResult
    public func deleteRows(at indexPaths: [ListIndexPath]) throws -> ChangeSet {
        try write { try $0.deleteRows(at: indexPaths) }.changes
    }

    @discardableResult
    public func deleteRows(ids: [RowID]) throws -> ChangeSet {
        try write { try $0.deleteRows(ids: ids) }.changes
    }

    @discardableResult
    public func insertSection(title: String, at index: Int? = nil) throws -> (id: SectionID, changes: ChangeSet) {
        let (id, changes) = try write { try $0.insertSection(title: title, at: index) }
        return (id, changes)
    }

    @discardableResult
    public func renameSection(at index: Int, to title: String) throws -> ChangeSet {
        try write { try $0.renameSection(at: index, to: title) }.changes
    }

    @discardableResult
    public func renameSection(id: SectionID, to title: String) throws -> ChangeSet {
        try write { try $0.renameSection(id: id, to: title) }.changes
    }

    @discardableResult
    public func moveSection(from: Int, to: Int) throws -> ChangeSet {
        try write { try $0.moveSection(from: from, to: to) }.changes
    }

    @discardableResult
    public func moveSection(id: SectionID, to: Int) throws -> ChangeSet {
        try write { try $0.moveSection(id: id, to: to) }.changes
    }

    @discardableResult
    public func deleteSections(at indexes: [Int]) throws -> ChangeSet {
        try write { try $0.deleteSections(at: indexes) }.changes
    }

    @discardableResult
    public func deleteSections(ids: [SectionID]) throws -> ChangeSet {
        try write { try $0.deleteSections(ids: ids) }.changes
    }
}

// Edits of index paths as drawn at a version: `write` with `ListTransaction.asOf(_:)`.
extension ListStore {
    @discardableResult
    public func write(asOf version: ListVersion, _ body: (AsOfTransaction) throws -> Void) throws -> ChangeSet {
        try write { try body(try $0.asOf(version)) }.changes
    }

    public func writeReturning<T>(asOf version: ListVersion, _ body: (AsOfTransaction) throws -> T) throws -> (value: T, changes: ChangeSet) {
        try write { try body(try $0.asOf(version)) }
    }

    @discardableResult
    public func writeInBackground(
        asOf version: ListVersion, isolation: isolated (any Actor)? = #isolation, _ body: @escaping @Sendable (AsOfTransaction) throws -> Void
    ) async throws -> ChangeSet {
        try await writeInBackground { try body(try $0.asOf(version)) }.changes
    }

    public func writeReturningInBackground<T: Sendable>(
        asOf version: ListVersion, isolation: isolated (any Actor)? = #isolation, _ body: @escaping @Sendable (AsOfTransaction) throws -> T
    ) async throws -> (value: T, changes: ChangeSet) {
        try await writeInBackground { try body(try $0.asOf(version)) }
    }

    @discardableResult
    public func deleteRows(at indexPaths: [ListIndexPath], asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.deleteRows(at: indexPaths) }
    }

    @discardableResult
    public func updateRow(at indexPath: ListIndexPath, asOf version: ListVersion, title: String? = nil, payload: PayloadUpdate = .unchanged) throws -> ChangeSet {
        try write(asOf: version) { try $0.updateRow(at: indexPath, title: title, payload: payload) }
    }

    @discardableResult
    public func moveRow(from: ListIndexPath, to: ListIndexPath, asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.moveRow(from: from, to: to) }
    }

    @discardableResult
    public func insertRows(_ rows: [any NewRowConvertible], intoSection section: Int, at index: Int? = nil, asOf version: ListVersion) throws -> (
        ids: [RowID], changes: ChangeSet
    ) {
        let (ids, changes) = try writeReturning(asOf: version) { try $0.insertRows(rows, intoSection: section, at: index) }
        return (ids, changes)
    }

    @discardableResult
    public func insertRow(_ row: some NewRowConvertible, intoSection section: Int, at index: Int? = nil, asOf version: ListVersion) throws -> (
        id: RowID, changes: ChangeSet
    ) {
        let (ids, changes) = try writeReturning(asOf: version) { try $0.insertRows([row], intoSection: section, at: index) }
        return (ids[0], changes)
    }

    @discardableResult
    public func insertSection(title: String, at index: Int? = nil, asOf version: ListVersion) throws -> (id: SectionID, changes: ChangeSet) {
        let (id, changes) = try writeReturning(asOf: version) { try $0.insertSection(title: title, at: index) }
        return (id, changes)
    }

    @discardableResult
    public func renameSection(at index: Int, to title: String, asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.renameSection(at: index, to: title) }
    }

    @discardableResult
    public func moveSection(from: Int, to: Int, asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.moveSection(from: from, to: to) }
    }

    @discardableResult
    public func deleteSections(at indexes: [Int], asOf version: ListVersion) throws -> ChangeSet {
        try write(asOf: version) { try $0.deleteSections(at: indexes) }
    }

    /// The row drawn at `indexPath` at `version`, with its values now.
    public func row(at indexPath: ListIndexPath, asOf version: ListVersion) throws -> ListRow {
        try write { try $0.asOf(version).row(at: indexPath) }.value
    }
}

// Reads, each in its own read transaction.
extension ListStore {
    public func sectionCount() throws -> Int { try read { try $0.sectionCount() } }
    public func sections() throws -> [ListSection] { try read { try $0.sections() } }
    public func section(at index: Int) throws -> ListSection { try read { try $0.section(at: index) } }
    public func section(id: SectionID) throws -> ListSection { try read { try $0.section(id: id) } }
    public func index(of id: SectionID) throws -> Int? { try read { try $0.index(of: id) } }
    public func totalRowCount() throws -> Int { try read { try $0.totalRowCount() } }
    public func rowCount(inSection section: Int) throws -> Int { try read { try $0.rowCount(inSection: section) } }
    public func row(at indexPath: ListIndexPath) throws -> ListRow { try read { try $0.row(at: indexPath) } }
    public func row(id: RowID) throws -> ListRow { try read { try $0.row(id: id) } }
    public func snapshot(ofSection index: Int) throws -> SectionSnapshot { try read { try $0.snapshot(ofSection: index) } }
    public func snapshot(ofSection id: SectionID) throws -> SectionSnapshot { try read { try $0.snapshot(ofSection: id) } }
    public func version() throws -> ListVersion { try read { try $0.version() } }
    public func findRows(_ search: RowSearch, limit: Int = 50, after cursor: SearchCursor? = nil) throws -> SearchPage {
        try read { try $0.findRows(search, limit: limit, after: cursor) }
    }
}

extension ListTransaction {
    @discardableResult
    public func insertRow(_ title: String, payload: some Encodable, intoSection section: Int, at index: Int? = nil) throws -> RowID {
        try insertRow(try NewRow(title: title, encoding: payload), intoSection: section, at: index)
    }

    @discardableResult
    public func insertRow(_ title: String, payload: some Encodable, intoSection section: SectionID, at index: Int? = nil) throws -> RowID {
        try insertRow(try NewRow(title: title, encoding: payload), intoSection: section, at: index)
    }

    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: some Encodable) throws {
        try updateRow(at: indexPath, title: title, payload: try .encoding(payload))
    }

    public func updateRow(id: RowID, title: String? = nil, payload: some Encodable) throws {
        try updateRow(id: id, title: title, payload: try .encoding(payload))
    }
}
