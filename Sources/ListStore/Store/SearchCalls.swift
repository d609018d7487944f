extension ListStore {
    /// One page of the rows that `search` finds, read in one read transaction (see
    /// ``ListReader/findRows(_:limit:after:)``).
    ///
    /// ```swift
    /// let search = RowSearch(titleContains: "par", where: [try PayloadMatch(field: "country", equals: "FR")])
    /// var page = try store.findRows(search)
    /// while let next = page.next { page = try store.findRows(search, after: next) }
    /// ```
    public func findRows(_ search: RowSearch, limit: Int = 50, after cursor: SearchCursor? = nil) throws -> SearchPage {
        try read { try $0.findRows(search, limit: limit, after: cursor) }
    }
}
