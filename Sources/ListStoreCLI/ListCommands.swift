import ListStore

/// `lists` and `list add | rename | delete | move | move-row | move-section`: the named lists of a file.
/// They act on the file's lists whatever `--list` says (`move-row` and `move-section` take their row or
/// section from the `--list` list).
enum ListCommands {
    static let name = Argument("NAME")

    static let all: [CommandSpec] = [lists, add, rename, delete, move, moveRow, moveSection]

    static let lists = CommandSpec(
        words: ["lists"], summary: "Print the file's lists in order, with their numbers of sections and rows.",
        details: #"""
            The default list (what every command acts on without --list or $LISTSTORE_LIST) is marked. Reads only.
            --json prints {"lists":[{"name","index","default","sections","rows"}]}.
            """#,
        example: "liststore lists",
        run: { _, context in
            let found = try context.openForReading().lists()
            let human = found.map {
                "\($0.index) \("\"" + visible($0.name) + "\"")\($0.isDefault ? " (default)" : ""): \(StoreCounts(sections: $0.sectionCount, rows: $0.rowCount).text)"
            }
            return CommandOutput(
                human: human.joined(separator: "\n"),
                json: .object([("lists", .array(found.map(json)))]))
        })

    static let at = Option.index("--at", value: "INDEX", help: "the list's index among the lists after the insert (0 = first)")
    static let add = CommandSpec(
        words: ["list", "add"], positionals: [name], options: [at], summary: "Add an empty list named NAME (at the end by default).",
        example: "liststore list add Groceries",
        run: { command, context in
            let name = command[Self.name]
            let index = try command[Self.at]
            return try listsOutput(context) { try $0.addList(named: name, at: index) }
        })

    static let newName = Argument("NEW-NAME")
    static let rename = CommandSpec(
        words: ["list", "rename"], positionals: [name, newName], summary: "Rename the list named NAME (the default list too).",
        example: "liststore list rename default Inbox",
        run: { command, context in
            let (name, newName) = (command[Self.name], command[Self.newName])
            return try listsOutput(context) { try $0.renameList(named: name, to: newName) }
        })

    static let delete = CommandSpec(
        words: ["list", "delete"], positionals: [name], summary: "Delete the list named NAME with all its sections and rows, in one transaction.",
        details: "The default list is never deleted (rename it, or delete its sections).",
        example: "liststore list delete Groceries",
        run: { command, context in
            let name = command[Self.name]
            return try listsOutput(context) { try $0.deleteList(named: name) }
        })

    static let index = Argument("INDEX")
    static let move = CommandSpec(
        words: ["list", "move"], positionals: [name, index], summary: "Move the list named NAME so that its index among the lists becomes INDEX.",
        example: "liststore list move Groceries 0",
        run: { command, context in
            let name = command[Self.name]
            let to = try command.parseIndex(command[Self.index], "INDEX")
            return try listsOutput(context) { try $0.moveList(named: name, to: to) }
        })

    static let row = Argument("S:R|id:N")
    static let targetList = Argument("LIST")
    static let section = Argument("SECTION")
    static let rowAt = Option.index("--at", value: "ROW", help: "the row's index in SECTION of LIST after the move (the end by default)")
    static let moveRow = CommandSpec(
        words: ["list", "move-row"], positionals: [row, targetList, section], options: [rowAt],
        summary: "Move a row of the --list list into section SECTION (an index) of the list named LIST, in one transaction.",
        details: "The row keeps its id, title and payload; each list gets its own change set (printed as source and target).",
        example: "liststore --list Inbox list move-row id:18 Groceries 0",
        run: { command, context in
            let reference = try command.row(command[Self.row])
            let target = command[Self.targetList]
            let section = try command.parseIndex(command[Self.section], "SECTION")
            let at = try command[Self.rowAt]
            let moved = try context.withStoreForWriting(rerunnable: false) { store -> ListMoveChanges in
                let id: RowID
                switch reference {
                case .id(let given): id = given
                case .path(let path): id = try store.read { try $0.row(at: path).id }
                }
                return try store.transferRow(id: id, toList: target, section: section, at: at)
            }
            return moveOutput(moved)
        })

    static let sectionReference = Argument("INDEX|id:N")
    static let sectionAt = Option.index("--at", value: "INDEX", help: "the section's index in LIST after the move (the end by default)")
    static let moveSection = CommandSpec(
        words: ["list", "move-section"], positionals: [sectionReference, targetList], options: [sectionAt],
        summary: "Move a section of the --list list, with its rows, to the list named LIST, in one transaction.",
        details: "The section keeps its id, title and rows; each list gets its own change set (printed as source and target).",
        example: "liststore list move-section 1 Groceries --at 0",
        run: { command, context in
            let reference = try command.section(command[Self.sectionReference], "INDEX")
            let target = command[Self.targetList]
            let at = try command[Self.sectionAt]
            let moved = try context.withStoreForWriting(rerunnable: false) { store -> ListMoveChanges in
                let id: SectionID
                switch reference {
                case .id(let given): id = given
                case .index(let index): id = try store.read { try $0.section(at: index).id }
                }
                return try store.transferSection(id: id, toList: target, at: at)
            }
            return moveOutput(moved)
        })

    // MARK: Output

    static func json(_ list: ListSummary) -> JSONValue {
        .object([
            ("name", .string(list.name)), ("index", .int(list.index)), ("default", .bool(list.isDefault)), ("sections", .int(list.sectionCount)),
            ("rows", .int(list.rowCount)),
        ])
    }

    /// Runs `change` on the file's lists, then prints them as `lists` does.
    private static func listsOutput(_ context: CommandContext, _ change: (ListStore) throws -> Void) throws -> CommandOutput {
        let found = try context.withStoreForWriting { store -> [ListSummary] in
            try change(store)
            return try store.lists()
        }
        return CommandOutput(human: "now " + text(found), json: .object([("lists", .array(found.map(json)))]))
    }

    /// `0 "Home" (default): 3 sections, 24 rows; 1 "Trip": …`.
    static func text(_ lists: [ListSummary]) -> String {
        lists.map {
            "\($0.index) \("\"" + visible($0.name) + "\"")\($0.isDefault ? " (default)" : ""): \(StoreCounts(sections: $0.sectionCount, rows: $0.rowCount).text)"
        }.joined(separator: "; ")
    }

    private static func moveOutput(_ moved: ListMoveChanges) -> CommandOutput {
        CommandOutput(
            human: "from this list: " + HumanText.changes(moved.source) + "\nto the other list: " + HumanText.changes(moved.target),
            json: .object([("source", JSONShapes.changes(moved.source)), ("target", JSONShapes.changes(moved.target))] + JSONShapes.version(moved.target.version)))
    }
}
