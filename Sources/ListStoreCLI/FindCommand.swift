import ListStore

/// `find`: rows by title text and by a payload field, with their index paths (``ListStore/findRows(_:limit:after:)``).
enum FindCommand {
    static let text = OptionalArgument("TEXT")
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
        words: ["find"], positionals: [text], options: [field, limit, after],
        summary: "Print the rows whose title contains TEXT and/or whose payload field FIELD equals VALUE, with their index paths.",
        details: """
            TEXT matches anywhere in the title, ignoring the case of ASCII letters only (é does not find É); % and _
            are plain characters. FIELD is a payload member's name (letters, digits, _ and -; address.city for a
            nested one). Rows come in id order (the order they were added), at most --limit of them; when there
            are more, the output says how to continue (--after ID). A search that matches few rows reads every row,
            unless FIELD is indexed (liststore index add FIELD). Reads only; never creates the database.
            --json prints {"rows":[{"path","id","title","payload"}],"next":ID,"version":N} (next is null on the last page).
            """,
        example: "liststore find par --where country=FR",
        run: run)

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let search = RowSearch(titleContains: command[text], where: try command[field].map { [$0] } ?? [])
        guard search.titleContains?.isEmpty == false || !search.payloadMatches.isEmpty else {
            throw command.usageError("find needs TEXT and/or --where FIELD=VALUE")
        }
        let limit = try command[limit] ?? 50
        let cursor = try command[after]
        let page = try context.openForReading().read { try $0.findRows(search, limit: limit, after: cursor) }
        let json = JSONValue.object(
            [
                ("rows", .array(page.results.map { JSONShapes.row($0.row, at: $0.indexPath) })),
                ("next", page.next.map { .int($0.lastRowID.rawValue) } ?? .null),
            ] + JSONShapes.version(page.version))
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
            lines.append("\(count) shown; more: add --after \(next.lastRowID.rawValue)")
        } else {
            lines.append(page.results.isEmpty ? "no rows found" : "\(count) found")
        }
        return lines.joined(separator: "\n")
    }
}
