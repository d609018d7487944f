import ListStore

/// Reads the outline of a lists document, `{"format":2,"lists":[{"name":…,"sections":[…]},…]}` as
/// `export --all` writes it: each list's name and the byte at which its `"sections"` array starts, which
/// ``DocumentReader`` then checks and feeds where it stands. The sections are skipped here, not built:
/// the document is walked once more per list, never held twice.
enum ListsDocumentReader {
    /// One list of the document.
    struct List {
        let name: String
        /// The byte offset in the document at which the list's `"sections"` array starts.
        let sectionsAt: Int
    }

    /// The document's lists in order, or a one-line error naming the document and what is wrong where.
    /// Unknown or repeated members and a list named twice are refused, so nothing is dropped silently.
    static func lists(in document: [UInt8], name: String) throws -> [List] {
        func fail(_ problem: String) -> CommandFailure {
            CommandFailure(
                "\(name): \(problem); nothing was imported (expected {\"format\":\(TransferCommands.listsFormat),\"lists\":[{\"name\":…,\"sections\":[…]}]}, as `export --all` writes it)"
            )
        }
        var parser = JSONParser(bytes: document)
        var format: JSONValue?
        var lists: [List]?
        do {
            parser.skipWhitespace()
            guard parser.atObject else {
                try parser.skipValue(depth: 0)
                throw fail("the document is not a JSON object")
            }
            try parser.forEachMember(depth: 0) { key, parser in
                switch key {
                case "format":
                    guard format == nil else { throw fail("the document has \"format\" twice") }
                    format = try parser.value(depth: 1)
                case "lists":
                    guard lists == nil else { throw fail("the document has \"lists\" twice") }
                    guard parser.atArray else {
                        try parser.skipValueAsPayloads()
                        throw fail("the document has no \"lists\" array")
                    }
                    lists = try readLists(&parser, fail)
                case "sections", "version":
                    throw CommandFailure("\(name) is a document of one list (as `export` writes it): import it without --all, into the --list list; nothing was imported")
                default:
                    throw fail("the document has an unknown member \(quoted(key)) (allowed: format, lists)")
                }
            }
            try parser.expectEnd()
        } catch let error as JSONSyntaxError {
            throw CommandFailure("\(name) is not valid JSON: \(error.reason) at byte \(error.offset); nothing was imported")
        }
        guard case .number(let number)? = format, number == String(TransferCommands.listsFormat) else {
            throw fail("the document has no \"format\":\(TransferCommands.listsFormat) (a document of one list imports without --all)")
        }
        guard let lists else { throw fail("the document has no \"lists\" array") }
        return lists
    }

    /// The `"lists"` array where `parser` is: each list's name, and its sections skipped (checked as
    /// JSON only: payloads nest to any depth) with where they start.
    private static func readLists(_ parser: inout JSONParser, _ fail: (String) -> CommandFailure) throws -> [List] {
        var lists: [List] = []
        try parser.forEachElement(depth: 1) { parser in
            let index = lists.count
            let shape = "lists[\(index)] is not an object with a \"name\" string and \"sections\""
            guard parser.atObject else {
                try parser.skipValueAsPayloads()
                throw fail(shape)
            }
            var listName: String?
            var sectionsAt: Int?
            var seen = Set<String>()
            try parser.forEachMember(depth: 2) { key, parser in
                guard seen.insert(key).inserted else { throw fail("lists[\(index)] has \(quoted(key)) twice") }
                switch key {
                case "name":
                    guard case .string(let text) = try parser.value(depth: 3) else { throw fail(shape) }
                    listName = text
                case "sections":
                    sectionsAt = parser.position
                    try parser.skipValueAsPayloads()
                default:
                    throw fail("lists[\(index)] has an unknown member \(quoted(key)) (allowed: name, sections)")
                }
            }
            guard let listName, let sectionsAt else { throw fail(shape) }
            if let first = lists.firstIndex(where: { ListStore.sameListName($0.name, listName) }) {
                throw fail("lists[\(index)] names list \(quoted(listName)) twice (lists[\(first)] too)")
            }
            lists.append(List(name: listName, sectionsAt: sectionsAt))
        }
        return lists
    }
}
