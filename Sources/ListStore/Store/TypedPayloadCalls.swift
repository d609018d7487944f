extension ListStore {
    /// The payload text a typed write stores for `value`: its `JSONEncoder` encoding (dates as
    /// `deferredToDate`, seconds since 2001-01-01 00:00:00 UTC as a `Double`, which reads back exactly;
    /// `Data` as Base64; NaN and infinity refused) put in canonical form, so that equal values give equal
    /// text: no whitespace, object keys sorted by their Unicode scalars, strings in Unicode Normalization
    /// Form C with only `"`, `\` and U+0000…U+001F escaped, integers as their digits and other numbers as
    /// the shortest text that reads back as the same `Double` (`38.0` as `38`). Throws
    /// ``ListStoreError/payloadNotEncodable(type:reason:)`` or ``ListStoreError/payloadTooDeep(_:)``.
    ///
    /// Compare two values' payloads with it, or a row's ``ListRow/payload`` with the value it should hold.
    public static func canonicalPayload(_ value: some Encodable) throws -> String {
        try TypedPayload.encode(value)
    }
}

/// Typed payloads inside a write transaction: the inserts and updates with a `Codable` value, stored
/// canonically (``ListStore/canonicalPayload(_:)``) and validated as every payload is.
extension ListTransaction {
    /// Inserts a row with `title` and `payload` into section `section` at `index` (at the end when nil); returns its id.
    @discardableResult
    public func insertRow(_ title: String, payload: some Encodable, intoSection section: Int, at index: Int? = nil) throws -> RowID {
        try insertRow(try NewRow(title: title, encoding: payload), intoSection: section, at: index)
    }

    /// Inserts a row with `title` and `payload` into the section with id `section` at `index` (at the end when nil); returns its id.
    @discardableResult
    public func insertRow(_ title: String, payload: some Encodable, intoSection section: SectionID, at index: Int? = nil) throws -> RowID {
        try insertRow(try NewRow(title: title, encoding: payload), intoSection: section, at: index)
    }

    /// Sets the payload of the row at `indexPath` to `payload` (and its title, unless nil).
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: some Encodable) throws {
        try updateRow(at: indexPath, title: title, payload: try .encoding(payload))
    }

    /// Sets the payload of the row with `id` to `payload` (and its title, unless nil), wherever it is now.
    public func updateRow(id: RowID, title: String? = nil, payload: some Encodable) throws {
        try updateRow(id: id, title: title, payload: try .encoding(payload))
    }
}

/// Typed payloads, each edit its own write transaction (the store forms of ``ListTransaction``'s).
extension ListStore {
    /// Inserts a row with `title` and `payload` into section `section` at `index` (at the end when nil).
    @discardableResult
    public func insertRow(_ title: String, payload: some Encodable, intoSection section: Int, at index: Int? = nil) throws -> (id: RowID, changes: ChangeSet) {
        try insertRow(try NewRow(title: title, encoding: payload), intoSection: section, at: index)
    }

    /// Inserts a row with `title` and `payload` into the section with id `section` at `index` (at the end when nil).
    @discardableResult
    public func insertRow(_ title: String, payload: some Encodable, intoSection section: SectionID, at index: Int? = nil) throws -> (
        id: RowID, changes: ChangeSet
    ) {
        try insertRow(try NewRow(title: title, encoding: payload), intoSection: section, at: index)
    }

    /// Sets the payload of the row at `indexPath` to `payload` (and its title, unless nil).
    @discardableResult
    public func updateRow(at indexPath: ListIndexPath, title: String? = nil, payload: some Encodable) throws -> ChangeSet {
        try updateRow(at: indexPath, title: title, payload: try .encoding(payload))
    }

    /// Sets the payload of the row with `id` to `payload` (and its title, unless nil), wherever it is now.
    @discardableResult
    public func updateRow(id: RowID, title: String? = nil, payload: some Encodable) throws -> ChangeSet {
        try updateRow(id: id, title: title, payload: try .encoding(payload))
    }
}
