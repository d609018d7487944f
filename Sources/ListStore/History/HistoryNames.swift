/// The rules for the names the history stores: authors and action names.
enum HistoryNames {
    /// The longest author or action name, in UTF-8 bytes.
    static let maximumBytes = 200

    /// `author` when it can name an author: 1–200 bytes, no control characters.
    static func checkedAuthor(_ author: String) throws -> String {
        try checked(author, what: "author")
    }

    /// `name` when it can be an action name (as an author), or nil.
    static func checkedAction(_ name: String?) throws -> String? {
        guard let name else { return nil }
        return try checked(name, what: "action name")
    }

    /// `limit` when it is a history limit: 0 (no history) to 100,000.
    static func checkedLimit(_ limit: Int) throws -> Int {
        guard (0...100_000).contains(limit) else {
            throw ListStoreError.invalidHistoryName(String(limit), what: "history limit", reason: "it must be 0 (keep no history) to 100000 transactions per author")
        }
        return limit
    }

    private static func checked(_ name: String, what: String) throws -> String {
        if name.isEmpty { throw ListStoreError.invalidHistoryName(name, what: what, reason: "it cannot be empty") }
        if name.utf8.count > maximumBytes { throw ListStoreError.invalidHistoryName(name, what: what, reason: "it is longer than \(maximumBytes) bytes") }
        // The control characters (general category Cc) are exactly U+0000–U+001F and U+007F–U+009F:
        // compared by value, which spares every process looking up Unicode properties.
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            throw ListStoreError.invalidHistoryName(name, what: what, reason: "it cannot contain control characters (newlines, tabs)")
        }
        return name
    }
}
