import ListStore

/// Parsing of `S:R` arguments with a usage error that shows the expected form.
enum ListIndexPathText {
    static func parse(_ text: String, usage: @autoclosure () -> String) throws -> ListIndexPath {
        guard let path = ListIndexPath(text) else {
            throw UsageError("\(quoted(text)) is not an index path: write SECTION:ROW with zero-based numbers, e.g. 0:1", usage: usage())
        }
        return path
    }
}

/// `text` in double quotes, control characters escaped and long text cut, for one-line messages.
func quoted(_ text: String) -> String {
    "\"\(DisplayWidth.truncate(visible(text), to: 60))\""
}
