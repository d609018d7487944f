import ListStore

/// `undo`, `redo` and `history`: the undo history kept in the file (the DocC article Undo and redo).
enum HistoryCommands {
    /// The author the command line's transactions are recorded under.
    static let author = "cli"

    static let by = Option<String>("--by", value: "NAME", help: "another author's transactions (an app's name), not the command line's (cli)")
    static let limit = Option<Int>("--limit", value: "N", help: "the last N commits (default 20, at most 10000)") { text, command in
        try command.parseIndex(text, "--limit value")
    }

    static let undo = CommandSpec(
        words: ["undo"], options: [by],
        summary: "Take back the command line's last transaction not yet undone (--by NAME: another author's), as a new transaction.",
        details: """
            Deleted rows and sections come back with their ids, next to the rows (sections) they were next to;
            inserted ones go; moves and edits are reversed. Edits by other authors and by hand since are kept.
            Refused, with nothing changed, when a row it would change was changed again by someone else, a
            section it needs was deleted, or an import came after it. --json prints the change set, with the action.
            """,
        example: "liststore undo",
        run: { command, context in try takeBack(redo: false, command, context) })

    static let redo = CommandSpec(
        words: ["redo"], options: [by],
        summary: "Re-apply the transaction the command line undid last (--by NAME: another author's).",
        details: "The author's next ordinary edit clears what can be redone.",
        example: "liststore redo",
        run: { command, context in try takeBack(redo: true, command, context) })

    static let history = CommandSpec(
        words: ["history"], options: [limit],
        summary: "Print the last commits, newest first: each transaction's version, author, action name and undo state, and hand edits.",
        details: """
            Kinds: edit, undo, redo, untracked, hand-edit (the sqlite3 shell), other (a change no history entry
            describes: a hand edit that moved rows, a repair); states: done, undone, cleared, blocked.
            --json prints {"entries":[{"version","kind","author","action","state","entry","list","changes"}]}, with
            changes the commit's edits as the change log records them (or null). Reads only; never creates the database.
            """,
        example: "liststore history --limit 5",
        run: list)

    private static func takeBack(redo: Bool, _ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let author = try command[by] ?? Self.author
        let store = try context.openExistingForWriting()
        let action = try store.nextUndo(by: author, redo: redo)?.actionName
        let changes = redo ? try store.redo(by: author) : try store.undo(by: author)
        let output = try mutationOutput(changes, store)
        guard case .object(let members) = output.json else { return output }
        let verb = redo ? "redid" : "undid"
        return CommandOutput(
            human: "\(verb) \(action.map { HumanText.display($0) } ?? "the last transaction") by \(HumanText.display(author))\n" + output.human,
            json: .object(members + [("action", action.map { .string($0) } ?? .null), ("author", .string(author))]))
    }

    private static func list(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let count = try command[limit] ?? 20
        let store = try context.openForReading()
        let entries = try store.history(limit: count)
        let defaultList = try store.defaultList.listName()
        let json = JSONValue.object([
            (
                "entries",
                .array(
                    entries.map { entry in
                        .object([
                            ("version", .int(entry.version.rawValue)), ("kind", .string(entry.kind.rawValue)),
                            ("author", entry.author.map { .string($0) } ?? .null), ("action", entry.actionName.map { .string($0) } ?? .null),
                            ("state", entry.state.map { .string($0.rawValue) } ?? .null), ("entry", entry.entry.map { .int($0) } ?? .null),
                            ("list", entry.list.map { .string($0) } ?? .null),
                            ("changes", entry.changes.flatMap { try? JSONParser.parse($0) } ?? .null),
                        ])
                    })
            )
        ])
        let lines = entries.map { entry -> String in
            var parts = ["\(entry.version.rawValue)", entry.kind.rawValue]
            if let author = entry.author { parts.append("by \(HumanText.display(author))") }
            if let list = entry.list, list != defaultList { parts.append("in \(HumanText.display(list))") }
            if let action = entry.actionName { parts.append(HumanText.display(action)) }
            if let state = entry.state, entry.kind != .untracked { parts.append("(\(state.rawValue))") }
            return parts.joined(separator: "  ")
        }
        return CommandOutput(human: lines.isEmpty ? "(no commits yet)" : lines.joined(separator: "\n"), json: json)
    }
}
