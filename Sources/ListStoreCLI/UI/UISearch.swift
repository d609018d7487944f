import ListStore

/// `ui`'s `/`: the next row, in display order after the cursor and then from the top again, whose title
/// holds the words typed (with the file's index of titles, ``ListStore/addTitleIndex()``) or contains the
/// text (without it, as `find TEXT` reads it).
enum UISearch {
    /// The most matches one jump reads (a search's largest page).
    static let maximumMatches = 10_000

    /// The row to put the cursor on (nil: none matches) and the status line's text; `cursor` is where the
    /// cursor is: a row's index path, or a section header's index with no row.
    static func next(_ text: String, after cursor: (section: Int, row: Int?)?, in store: ListStore) throws -> (row: RowID?, message: String) {
        let indexed = try store.hasTitleIndex()
        var search = indexed ? RowSearch(titleWords: text) : RowSearch(titleContains: text)
        search.inDisplayOrder = true
        let page = try store.read { try $0.findRows(search, limit: maximumMatches) }
        guard !page.results.isEmpty else { return (nil, "no title \(indexed ? "holds" : "contains") \(quoted(text))") }
        let after = cursor.flatMap { cursor in
            page.results.firstIndex { found in
                found.indexPath.section > cursor.section || (found.indexPath.section == cursor.section && found.indexPath.row > cursor.row ?? -1)
            }
        }
        let index = after ?? 0
        let found = page.results[index]
        let total = page.total.map { "\($0)" } ?? (page.next == nil ? "\(page.results.count)" : "over \(maximumMatches)")
        return (found.id, "\(quoted(text)): \(index + 1) of \(total) at \(found.indexPath)\(after == nil && cursor != nil ? " (from the top)" : "")")
    }
}
