import ListStore

/// `find`: rows by title words (with the file's index of titles) or title text, and by a payload field, with
/// their index paths (``ListStore/findRows(_:limit:after:)``).
enum FindCommand {
    static let text = OptionalArgument("TEXT")
    static let prefix = Flag("--prefix", help: "with the index of titles: the last word of TEXT may be the start of a word (caf finds Café); the default")
    static let wholeWords = Flag("--whole-words", help: "with the index of titles: the last word of TEXT is a whole word too (caf does not find Café)")
    static let exactAccents = Flag("--exact-accents", help: "with the index of titles: accents in TEXT count (cafe does not find Café); case is still ignored")
    static let ranked = Flag(
        "--ranked", help: "with the index of titles: best matches first (FTS5's bm25: the words more often, in shorter titles), ties in id order")
    static let displayOrder = Flag("--display-order", help: "rows section by section, row by row, as the list shows them, not in id order (reads every row found)")
    static let contains = Option<String>(
        "--contains", value: "TEXT", help: "only rows whose title contains TEXT anywhere, even inside a word (ASCII case folded; reads every row)")
    static let field = Option<PayloadMatch>(
        "--where", value: "FIELD=VALUE", help: "only rows whose payload field FIELD equals VALUE (a JSON number, true, false or \"string\"; other text is a string)"
    ) { text, _ in try match(text) }
    static let limit = Option<Int>("--limit", value: "N", help: "at most N rows (default 50, at most \(ListReader.maximumSearchLimit))") { text, command in
        try command.parseIndex(text, "--limit value")
    }
    static let after = Option<SearchCursor>("--after", value: "ID", help: "continue after the row with this id (the \"next\" of the output before)") { text, _ in
        let digits = text.hasPrefix("id:") ? String(text.dropFirst(3)) : text
        guard let id = Int64(digits), String(id) == digits else {
            throw CommandFailure("--after takes a row id (the \"next\" that find printed), not \(quoted(text))")
        }
        return SearchCursor(after: RowID(rawValue: id))
    }

    static let spec = CommandSpec(
        words: ["find"], positionals: [text], options: [prefix, wholeWords, exactAccents, ranked, displayOrder, contains, field, limit, after],
        summary: "Print the rows whose title holds the words of TEXT (contains TEXT, without the index of titles), with their index paths.",
        details: """
            With the file's index of titles (liststore index add --titles), every word of TEXT must be a word of the
            title, in any order, any case, accents ignored (unless --exact-accents), the last word the start of one
            (meet finds Meeting, as ui's / and a search bar do; --whole-words: not); in Chinese, Japanese and Thai every
            character is a word (法 finds 法師); the output counts the rows found. Without it, TEXT matches anywhere
            in the title, ignoring the case of ASCII letters only (é does not find É), reading every row; so does
            --contains. FIELD is a payload member's name (address.city for a nested one). Rows come in id order
            (--display-order: as the list shows them; --ranked, with the index: best match first), at most --limit; when
            there are more, the output says how to continue (--after ID). Reads only; never creates the database.
            --json prints {"rows":[{"path","id","title","payload"}],"next":ID,"total":N,"version":N} (next is null on the
            last page; total, with title words, counts every page).
            """,
        example: "liststore find \"meeting no\" --ranked",
        run: run)

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let store = try context.openForReading()
        let words = command[text]
        var contained = try command[contains]
        var search = RowSearch(where: try command[field].map { [$0] } ?? [])
        if let words, try store.hasTitleIndex() {
            search.titleWords = words
            guard !(command[prefix] && command[wholeWords]) else { throw command.usageError("find takes --prefix or --whole-words, not both") }
            search.lastWordIsPrefix = !command[wholeWords]
            search.matchingAccents = command[exactAccents]
            search.ranked = command[ranked]
        } else if let words {
            guard contained == nil else { throw command.usageError("find takes TEXT or --contains TEXT when the file has no index of titles, not both") }
            contained = words
        }
        search.titleContains = contained
        guard !command[ranked] || search.titleWords != nil else {
            throw command.usageError(
                "find --ranked orders rows by how well their titles hold the words of TEXT, which needs TEXT and the file's index of titles (liststore index add --titles)")
        }
        guard !(command[ranked] && command[displayOrder]) else { throw command.usageError("find takes --ranked or --display-order, not both") }
        search.inDisplayOrder = command[displayOrder]
        guard search.titleWords != nil || search.titleContains?.isEmpty == false || !search.payloadMatches.isEmpty else {
            throw command.usageError("find needs TEXT, --contains TEXT and/or --where FIELD=VALUE")
        }
        let limit = try command[limit] ?? 50
        let cursor = try command[after]
        let page = try store.read { try $0.findRows(search, limit: limit, after: cursor) }
        let json = JSONValue.object(
            [
                ("rows", .array(page.results.map { JSONShapes.row($0.row, at: $0.indexPath) })),
                ("next", page.next.map { .int($0.lastRowID.rawValue) } ?? .null),
            ] + (page.total.map { [("total", JSONValue.int($0))] } ?? []) + JSONShapes.version(page.version))
        return CommandOutput(human: human(page, command), json: json)
    }

    /// `FIELD=VALUE` as a condition; a failure (exit 1) names what is wrong.
    static func match(_ text: String) throws -> PayloadMatch {
        guard let equals = text.firstIndex(of: "=") else {
            throw CommandFailure("--where takes FIELD=VALUE (e.g. --where country=FR), not \(quoted(text))")
        }
        let name = String(text[..<equals])
        let valueText = String(text[text.index(after: equals)...])
        let value: PayloadValue
        switch try? JSONParser.parse(valueText) {
        case .number(let number)?:
            if let integer = Int64(number) {
                value = .integer(integer)
            } else if let double = Double(number), double.isFinite {
                value = .double(double)
            } else {
                throw CommandFailure("--where value \(quoted(valueText)) is a number beyond what a payload holds")
            }
        case .string(let string)?: value = .string(string)
        case .bool(let flag)?: value = .bool(flag)
        case .null?:
            throw CommandFailure("--where \(quoted(text)): null matches no row (a null field and a missing one have no value to compare); give a value")
        case .array?, .object?, .raw?:
            throw CommandFailure("--where \(quoted(text)): VALUE must be a number, true, false or a string, not an array or object")
        case nil: value = .string(valueText)
        }
        return PayloadMatch(try PayloadField(name), equals: value)
    }

    /// One line per row (`0:3  Paris  {"country":"FR"}`), then how many, and how to go on.
    private static func human(_ page: SearchPage, _ command: ParsedCommand) -> String {
        let pathWidth = page.results.map(\.indexPath.description.count).max() ?? 0
        let titleWidth = page.results.map { DisplayWidth.of(HumanText.display($0.row.title)) }.max() ?? 0
        var lines = page.results.map { result -> String in
            let path = DisplayWidth.pad(result.indexPath.description, to: pathWidth)
            let title = HumanText.display(result.row.title)
            guard let payload = result.row.payload else { return "\(path)  \(title)" }
            return "\(path)  \(DisplayWidth.pad(title, to: titleWidth))  \(HumanText.display(payload))"
        }
        let count = page.results.count == 1 ? "1 row" : "\(page.results.count) rows"
        if let next = page.next {
            lines.append("\(count) shown\(page.total.map { " of \($0)" } ?? ""); more: add --after \(next.lastRowID.rawValue)")
        } else {
            lines.append(page.results.isEmpty ? "no rows found" : "\(count) found")
        }
        return lines.joined(separator: "\n")
    }
}
