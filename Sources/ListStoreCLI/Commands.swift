import ListStore

/// The command table: every command's declaration (words, arguments, options, help, handler), in the
/// order `--help` and Docs/CLI.md list them.
enum Commands {
    static let all: [CommandSpec] = base + ListCommands.all + IndexCommands.all
    private static let base: [CommandSpec] = [
        CommandSpec(
            words: ["init"], summary: "Create the database, or migrate it to this version's schema. Safe to run again.",
            example: "liststore --db lists.sqlite init", readme: "create or migrate the database; safe to repeat",
            run: StoreCommands.initialize),
        CommandSpec(
            words: ["demo"],
            summary: "Create the database with example lists (LEGO Heroica roles and monsters, a list of countries) if it has none, then show it.",
            details: "An existing database that already has sections is shown, not changed.",
            example: "liststore demo", readme: "create the database with the example lists if it has none, then show it",
            run: DemoCommand.run),
        CommandSpec(
            words: ["show"], positionals: [StoreCommands.section], summary: "Print the sections and rows with their index paths (S:R).",
            details: """
                SECTION limits the output to one section: its zero-based index, or id:N with its id.
                --json prints the ids of sections and rows, for id:N. Reads only; never creates a file.
                """,
            example: "liststore show 2",
            readme:
                #"sections and rows with their index paths (the whole store is printed as it is read, in constant memory); `--json` gives `{"sections":[{"index","id","title","rows":[{"path","id","title","payload"}]}],"version":N}`: each section's index and each row's path, as edits take them, with the ids, and the version of the state shown (what `--as-of` takes)"#,
            run: StoreCommands.show),
        FindCommand.spec,
        SectionCommands.Add.spec,
        SectionCommands.Rename.spec,
        SectionCommands.Move.spec,
        SectionCommands.Delete.spec,
        RowCommands.Add.spec,
        RowCommands.Edit.spec,
        RowCommands.Move.spec,
        RowCommands.Delete.spec,
        HistoryCommands.undo, HistoryCommands.redo, HistoryCommands.history,
        CommandSpec(
            words: ["batch"], positionals: [BatchCommand.source], options: [EditOptions.asOf],
            summary: "Apply many edits, one command per line, in one transaction: all or nothing, one change set.",
            details: BatchCommand.details,
            example: "liststore batch edits.txt   # edits.txt holds lines such as: add 2 \"New Zealand\" --at 0",
            readme: "many edits, one command per line, in one transaction (see below)", run: BatchCommand.run),
        CommandSpec(
            words: ["export"], positionals: [TransferCommands.exportDestination], options: [TransferCommands.all],
            summary: "Write the whole store as JSON (the shape of `show --json`) to FILE or standard output.",
            details:
                "Without FILE, or with -, to standard output. FILE is written to a hidden temporary file beside it, then renamed into place (on any failure FILE is as it was). A FILE that is a symbolic link is written through, to the file it points to; a FIFO or device is refused (use `liststore export - > FILE`). Reads only; never creates the database.",
            example: "liststore export backup.json",
            readme:
                #"the whole store as `{"sections":[{"id","title","rows":[{"id","title","payload"}]}]}` (the import document: `show --json` without `index` and `path`), streamed (a million rows in about 25 MB of memory) to standard output (no FILE, or `-`) or to FILE, which is written beside its destination and renamed into place"#,
            run: TransferCommands.export),
        CommandSpec(
            words: ["import"], positionals: [TransferCommands.importSource], options: [TransferCommands.replace, TransferCommands.all],
            summary: "Load a JSON document (as `export` writes it) into an empty store, in one transaction.",
            details: """
                The document is {"sections":[{"title":…,"rows":[{"title":…,"payload":…}]}]}; ids and payloads are optional.
                A store that already has sections is refused unless --replace is given, which replaces everything.
                """,
            example: "liststore --db copy.sqlite import backup.json",
            readme:
                "load such a document into an empty store (`--replace` replaces a non-empty one) in one transaction; ids and payloads are optional, members may come in any order; a `show --json` document imports too (its `index`, `path` and `version` are ignored: the order in the document is the order imported); the document is checked completely before the store is touched, so its bytes are held in memory once (from a file; reading standard input makes a second, passing copy), and without `--json` nothing of what was written is kept — measured peak resident memory for a 113 MiB document of a million rows: 138 MiB from a file, 246 MiB from standard input (it was 657 MiB); `--json` builds the change set, which holds every row imported, and prints it (691 MiB for that document; it was 808 MiB); with `--all`, the lists document is walked the same way (each list's sections found where they stand in it, checked, then loaded from there: 88 MB peak for a 40 MiB document, where parsing it whole took 427 MB); progress on a terminal for large imports",
            run: TransferCommands.importDocument),
        CommandSpec(
            words: ["check"], summary: "Verify integrity, foreign keys, the schema, positions and payloads; report every problem (exit 1 if any).",
            details: "Reads only. Opens even a damaged file, to say what is wrong with it.", example: "liststore check",
            readme: "verify everything (see below)", run: MaintenanceCommands.check),
        CommandSpec(
            words: ["repair"], summary: "Renumber positions damaged by hand edits (gaps, wrong counts), keeping the order, in one transaction.",
            details: "Ties are broken by id. A file that fails SQLite's integrity_check is refused: recover it with `sqlite3 FILE .recover` instead.",
            example: "liststore repair", readme: "renumber hand-damaged positions (see below)", run: MaintenanceCommands.repair),
        CommandSpec(
            words: ["backup"], positionals: [MaintenanceCommands.backupDestination],
            summary: "Write a consistent copy of the database to FILE (SQLite's VACUUM INTO), even while others write.",
            details:
                "FILE is a plain path, never an SQLite URI (file:x and :memory: are files of those names). It must not exist yet and must not be one of the database's own files (-wal, -shm, -journal). The copy is written to a hidden temporary file beside FILE and gets its name only when it is complete: on a full disk or at the file size limit nothing is left behind.",
            example: "liststore backup lists-2026-11-30.sqlite",
            readme: "write a consistent copy to a new file at exactly FILE (see below)", run: MaintenanceCommands.backup),
        CommandSpec(
            words: ["watch"], options: [WatchCommand.count],
            summary: "Print one line per committed change — from any process or the sqlite3 shell — until interrupted.",
            details: """
                Changes made elsewhere are noticed within about 0.1 s. With --json the first line is the state it
                starts from (the show --json document, written as it is read, so a store of any size is watched
                in constant memory), then each line is one change set,
                {"changes":{"sections":{…},"rows":{…}},"version":N}, or {"reset":{"sections":[…]},"version":N}
                after edits made outside ListStore that no change set describes; every document carries the
                version of the state after it (for --as-of). Reads only; never creates the database.
                """,
            example: "liststore watch --json",
            readme:
                #"print one line per committed change — from any process or the `sqlite3` shell, noticed within about 0.1 s — until interrupted; with `--json`, first the state it starts from (exactly the `show --json` document, written as it is read, so a store of any size is watched in constant memory), then one change set per line (`{"changes":…,"version":N}`, the format of every mutation's `--json`), or `{"reset":{"sections":[…]},"version":N}` after hand edits no change set describes; every document carries the version of the state after it"#,
            run: WatchCommand.run),
        CommandSpec(
            words: ["ui"],
            summary: "A full-screen, live view of the store in edit mode: tick rows and delete them at once, add, insert, edit, move.",
            details: """
                Keys: j/k or ↓/↑ move, PgDn/PgUp, g/G first/last row; Space ticks a row; d deletes the ticked rows (or the
                row under the cursor); a adds a row to every section; i inserts at the cursor; e edits a title; m picks up a
                row and m drops it at the cursor; n adds a section; / finds the next row whose title holds the words typed
                (contains the text, without the index of titles), Enter again the next; Esc cancels; q quits. Changes by other processes show
                within about 0.1 s (they are polled every 100 ms). Needs a terminal.
                """,
            example: "liststore --db lists.sqlite ui",
            readme: "a full-screen, live view to tick, delete, add, insert, edit and move rows (see below)", run: UICommand.run),
    ]

    /// The command table of Docs/CLI.md, written from the declarations (a test keeps that copy in step).
    static var readmeTable: String {
        (["| Command | What it does |", "| --- | --- |"] + all.map(\.readmeRow)).joined(separator: "\n")
    }

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
    CommandOutput(
        human: HumanText.changes(changes) + "\nnow " + counts.text,
        json: .object([("changes", JSONShapes.changes(changes)), ("counts", counts.json)] + JSONShapes.version(changes.version)))
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
