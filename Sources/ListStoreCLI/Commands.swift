import ListStore

/// The command table: every command's words, arguments, help, example and handler.
enum Commands {
    static let all: [CommandSpec] = [
        CommandSpec(words: ["init"], arguments: "", summary: "Create the database, or migrate it to this version's schema. Safe to run again.",
                    details: "", example: "liststore --db lists.sqlite init", options: [], positionalCount: 0...0, run: StoreCommands.initialize),
        CommandSpec(words: ["demo"], arguments: "",
                    summary: "Create the database with example lists (LEGO Heroica roles and monsters, a list of countries) if it has none, then show it.",
                    details: "An existing database that already has sections is shown, not changed.",
                    example: "liststore demo", options: [], positionalCount: 0...0, run: DemoCommand.run),
        CommandSpec(words: ["show"], arguments: "[SECTION|id:N]", summary: "Print the sections and rows with their index paths (S:R).",
                    details: """
                        SECTION limits the output to one section: its zero-based index, or id:N with its id.
                        --json prints the ids of sections and rows, for id:N. Reads only; never creates a file.
                        """,
                    example: "liststore show 2", options: [], positionalCount: 0...1, run: StoreCommands.show),
        .mutation(words: ["section", "add"], arguments: "TITLE [--at INDEX]", summary: "Insert an empty section (at the end by default).",
                  details: "", example: "liststore section add \"Weapons\" --at 1",
                  options: [.init(name: "--at", valueName: "INDEX", help: "the section's index after the insert (0 = first)")],
                  positionalCount: 1...1, prepare: SectionCommands.add),
        .mutation(words: ["section", "rename"], arguments: "INDEX|id:N TITLE", summary: "Change a section's title.",
                  details: "The section is named by its index or by id:N, its id.",
                  example: "liststore section rename 0 \"Heroes\"", positionalCount: 2...2, prepare: SectionCommands.rename),
        .mutation(words: ["section", "move"], arguments: "FROM|id:N TO", summary: "Move a section, with its rows, so that its index becomes TO.",
                  details: "The section is named by its index or by id:N, its id; TO is always an index (where the section is after the move).",
                  example: "liststore section move 2 0", positionalCount: 2...2, prepare: SectionCommands.move),
        .mutation(words: ["section", "delete"], arguments: "INDEX|id:N...", summary: "Delete one or more sections with all their rows, in one transaction.",
                  details: "Indexes are the current ones; id:N names a section by its id (indexes and ids may be mixed). All are deleted or none.",
                  example: "liststore section delete 1 2", positionalCount: 1...Int.max, prepare: SectionCommands.delete),
        .mutation(words: ["add"], arguments: "SECTION|id:N TITLE... [--at ROW] [--payload JSON] | --every-section TITLE",
                  summary: "Insert one or more rows into a section (at the end by default), in one transaction.",
                  details: """
                      SECTION is the section's index, or id:N with its id (as `show --json` prints it).
                      A single - as TITLE reads titles from standard input, one per line (blank lines skipped).
                      --every-section appends one row with TITLE to every section instead, in one transaction.
                      --payload attaches the same JSON value to every added row (null for none).
                      Put -- before titles that begin with a dash.
                      """,
                  example: "liststore add 0 \"Paladin\" \"Monk\" --at 2",
                  options: [.init(name: "--at", valueName: "ROW", help: "the row index of the first added row (default: the end)"),
                            .init(name: "--payload", valueName: "JSON", help: "a JSON value stored with each added row"),
                            .init(name: "--every-section", valueName: nil, help: "append TITLE to every section")],
                  positionalCount: 1...Int.max, prepare: RowCommands.add),
        .mutation(words: ["edit"], arguments: "S:R|id:N [--title TITLE] [--payload JSON]", summary: "Change a row's title and/or payload.",
                  details: "The row is named by its index path or by id:N, its id. --payload null removes the payload.",
                  example: "liststore edit 0:1 --title \"Archmage\" --payload '{\"level\":3}'",
                  options: [.init(name: "--title", valueName: "TITLE", help: "the new title"),
                            .init(name: "--payload", valueName: "JSON", help: "the new JSON payload (null removes it)")],
                  positionalCount: 1...1, prepare: RowCommands.edit),
        .mutation(words: ["move"], arguments: "S:R|id:N S:R", summary: "Move a row; the second index path is where the row is after the move.",
                  details: """
                      The row to move is named by its index path or by id:N, its id. The destination is always an
                      index path (never an id): where the row is after the move, in the same section or another.
                      """,
                  example: "liststore move 0:0 1:2", positionalCount: 2...2, prepare: RowCommands.move),
        .mutation(words: ["delete"], arguments: "S:R|id:N...", summary: "Delete several rows, across sections, in one transaction: all or nothing.",
                  details: """
                      Index paths are the current ones (as `show` prints them); id:N names a row by its id (as `show --json`
                      prints it), which stays right whatever others insert or delete meanwhile. Both may be mixed; each row is named once.
                      """,
                  example: "liststore delete 2:1 2:3 0:0", positionalCount: 1...Int.max, prepare: RowCommands.delete),
        CommandSpec(words: ["batch"], arguments: "[FILE|-]",
                    summary: "Apply many edits, one command per line, in one transaction: all or nothing, one change set.",
                    details: BatchCommand.details,
                    example: "liststore batch edits.txt   # edits.txt holds lines such as: add 2 \"New Zealand\" --at 0",
                    options: [], positionalCount: 0...1, run: BatchCommand.run),
        CommandSpec(words: ["export"], arguments: "[FILE|-]", summary: "Write the whole store as JSON (the shape of `show --json`) to FILE or standard output.",
                    details: "Without FILE, or with -, to standard output. FILE is written to a hidden temporary file beside it, then renamed into place (on any failure FILE is as it was). A FILE that is a symbolic link is written through, to the file it points to; a FIFO or device is refused (use `liststore export - > FILE`). Reads only; never creates the database.", example: "liststore export backup.json",
                    options: [], positionalCount: 0...1, run: TransferCommands.export),
        CommandSpec(words: ["import"], arguments: "FILE|- [--replace]",
                    summary: "Load a JSON document (as `export` writes it) into an empty store, in one transaction.",
                    details: """
                        The document is {"sections":[{"title":…,"rows":[{"title":…,"payload":…}]}]}; ids and payloads are optional.
                        A store that already has sections is refused unless --replace is given, which replaces everything.
                        """,
                    example: "liststore --db copy.sqlite import backup.json",
                    options: [.init(name: "--replace", valueName: nil, help: "replace the current contents")],
                    positionalCount: 1...1, run: TransferCommands.importDocument),
        CommandSpec(words: ["check"], arguments: "", summary: "Verify integrity, foreign keys, the schema, positions and payloads; report every problem (exit 1 if any).",
                    details: "Reads only. Opens even a damaged file, to say what is wrong with it.", example: "liststore check",
                    options: [], positionalCount: 0...0, run: MaintenanceCommands.check),
        CommandSpec(words: ["repair"], arguments: "", summary: "Renumber positions damaged by hand edits (gaps, wrong counts), keeping the order, in one transaction.",
                    details: "Ties are broken by id. A file that fails SQLite's integrity_check is refused: recover it with `sqlite3 FILE .recover` instead.",
                    example: "liststore repair", options: [], positionalCount: 0...0, run: MaintenanceCommands.repair),
        CommandSpec(words: ["backup"], arguments: "FILE", summary: "Write a consistent copy of the database to FILE (SQLite's VACUUM INTO), even while others write.",
                    details: "FILE is a plain path, never an SQLite URI (file:x and :memory: are files of those names). It must not exist yet and must not be one of the database's own files (-wal, -shm, -journal). The copy is written to a hidden temporary file beside FILE and gets its name only when it is complete: on a full disk or at the file size limit nothing is left behind.", example: "liststore backup lists-2026-11-30.sqlite",
                    options: [], positionalCount: 1...1, run: MaintenanceCommands.backup),
        CommandSpec(words: ["watch"], arguments: "[--count N]",
                    summary: "Print one line per committed change — from any process or the sqlite3 shell — until interrupted.",
                    details: """
                        Changes made elsewhere are noticed within about 0.1 s. With --json the first line is the state it
                        starts from (the show --json document), then each line is one change set,
                        {"changes":{"sections":{…},"rows":{…}}}, or {"reset":{"sections":[…]}} after edits made outside
                        ListStore that no change set describes. Reads only; never creates the database.
                        """,
                    example: "liststore watch --json",
                    options: [.init(name: "--count", valueName: "N", help: "stop after N changes")],
                    positionalCount: 0...0, run: WatchCommand.run),
        CommandSpec(words: ["ui"], arguments: "",
                    summary: "A full-screen, live view of the store in edit mode: tick rows and delete them at once, add, insert, edit, move.",
                    details: """
                        Keys: j/k or ↓/↑ move, PgDn/PgUp, g/G first/last row; Space ticks a row; d deletes the ticked rows (or the
                        row under the cursor); a adds a row to every section; i inserts at the cursor; e edits a title; m picks up a
                        row and m drops it at the cursor; n adds a section; Esc cancels; q quits. Changes by other processes show
                        within about 0.1 s (they are polled every 100 ms). Needs a terminal.
                        """,
                    example: "liststore --db lists.sqlite ui", options: [], positionalCount: 0...0, run: UICommand.run),
    ]

    static var programHelp: String {
        let width = all.map(\.name.count).max() ?? 0
        var lines = [
            "liststore — edit sectioned, ordered lists stored in SQLite",
            "",
            "usage: liststore [--db PATH] [--json] COMMAND [ARGS...]",
            "",
            "commands:",
        ]
        lines += all.map { "  \(DisplayWidth.pad($0.name, to: width))  \($0.summary)" }
        lines += [
            "",
            "global options (before or after the command):",
            "  --db PATH   the database file (default: $LISTSTORE_DB, else ./liststore.sqlite)",
            "  --json      print exactly one JSON document on standard output (watch: one per change, a line each)",
            "  --help      help for the program or for a command (liststore delete --help)",
            "  --version   the version",
            "",
            "Index paths are S:R, zero-based, as `show` prints them; id:N names a row or section by its id (`show --json`),",
            "wherever a command takes a row or a section to act on. Exit status: 0 ok, 1 failed, 2 usage error.",
            "",
            "example:",
            "  liststore demo && liststore delete 2:1 2:3 && liststore show",
        ]
        return lines.joined(separator: "\n")
    }
}

/// Output for a mutation: what changed and the counts read in the same transaction.
func mutationOutput(_ changes: ChangeSet, _ counts: StoreCounts) -> CommandOutput {
    CommandOutput(human: HumanText.changes(changes) + "\nnow " + counts.text,
                  json: .object([("changes", JSONShapes.changes(changes)), ("counts", counts.json)]))
}

/// Output for a mutation that could not read its counts inside its own transaction (`import`): the
/// counts are read afterwards, in one read transaction.
func mutationOutput(_ changes: ChangeSet, _ store: ListStore) throws -> CommandOutput {
    mutationOutput(changes, try StoreCounts(store))
}

/// How many sections and rows a store has, as commands report them.
struct StoreCounts {
    let sections: Int
    let rows: Int

    init(sections: Int, rows: Int) {
        self.sections = sections
        self.rows = rows
    }

    /// The counts of one state: the one a reader (or a write transaction, after its edits) sees.
    init(_ reader: ListReader) throws {
        self.init(sections: try reader.sectionCount(), rows: try reader.totalRowCount())
    }

    /// The counts of the store's current state, read in one read transaction.
    init(_ store: ListStore) throws {
        self = try store.read { try StoreCounts($0) }
    }

    /// "3 sections, 1 row".
    var text: String { "\(sections) section\(sections == 1 ? "" : "s"), \(rows) row\(rows == 1 ? "" : "s")" }

    /// `{"sections":3,"rows":1}`.
    var json: JSONValue { .object([("sections", .int(sections)), ("rows", .int(rows))]) }
}
