import ListStore

/// The command table: every command's declaration (words, arguments, options, help, handler), in the
/// order `--help` and Docs/CLI.md list them.
enum Commands {
    static let all: [CommandSpec] = base + ListCommands.all + IndexCommands.all
    private static let base: [CommandSpec] = [
        CommandSpec(
            words: ["init"], summary: "Create the database, or migrate it to this version's schema. Safe to run again.",
            example: "liststore --db lists.sqlite init",
            run: StoreCommands.initialize),
        CommandSpec(
            words: ["demo"],
            summary: "Create the database with example lists if it has none, then show it.",
            details: "The lists: LEGO Heroica roles and monsters, and a list of countries. An existing database that already has sections is shown, not changed.",
            example: "liststore demo",
            run: DemoCommand.run),
        CommandSpec(
            words: ["show"], positionals: [StoreCommands.section], summary: "Print the sections and rows with their index paths (S:R).",
            details: """
                SECTION limits the output to one section: its zero-based index, or id:N with its id.
                The store is printed as it is read, in constant memory. Reads only; never creates a file.
                --json prints {"sections":[{"index","id","title","rows":[{"path","id","title","payload"}]}],"version":N}:
                each section's index and each row's path as edits take them, the ids (for id:N), and the version
                of the state shown (what --as-of takes).
                """,
            example: "liststore show 2",
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
            example: "liststore batch edits.txt   # edits.txt holds lines such as: add 2 \"New Zealand\" --at 0", run: BatchCommand.run),
        CommandSpec(
            words: ["export"], positionals: [TransferCommands.exportDestination], options: [TransferCommands.all],
            summary: "Write the whole store as JSON (the shape of `show --json`) to FILE or standard output.",
            details:
                "The document is {\"sections\":[{\"id\",\"title\",\"rows\":[{\"id\",\"title\",\"payload\"}]}]}, streamed in constant memory. Without FILE, or with -, to standard output. FILE is written to a hidden temporary file beside it, then renamed into place (on any failure FILE is as it was). A FILE that is a symbolic link is written through, to the file it points to; a FIFO or device is refused (use `liststore export - > FILE`). Reads only; never creates the database.",
            example: "liststore export backup.json",
            run: TransferCommands.export),
        CommandSpec(
            words: ["import"], positionals: [TransferCommands.importSource], options: [TransferCommands.replace, TransferCommands.all],
            summary: "Load a JSON document (as `export` writes it) into an empty store, in one transaction.",
            details: """
                The document is {"sections":[{"title":…,"rows":[{"title":…,"payload":…}]}]}; ids and payloads are optional,
                members may come in any order, and a show --json document imports too (its index, path and version
                are ignored). The whole document is checked before the store is touched. A store that already has
                sections is refused unless --replace is given, which replaces everything. --json prints the change set.
                """,
            example: "liststore --db copy.sqlite import backup.json",
            run: TransferCommands.importDocument),
        CommandSpec(
            words: ["check"], summary: "Verify integrity, foreign keys, the schema, positions and payloads; report every problem (exit 1 if any).",
            details: "Reads only. Opens even a damaged file, to say what is wrong with it.", example: "liststore check", run: MaintenanceCommands.check),
        CommandSpec(
            words: ["repair"], summary: "Renumber positions damaged by hand edits (gaps, wrong counts), keeping the order, in one transaction.",
            details: "Ties are broken by id. A file that fails SQLite's integrity_check is refused: recover it with `sqlite3 FILE .recover` instead.",
            example: "liststore repair", run: MaintenanceCommands.repair),
        CommandSpec(
            words: ["backup"], positionals: [MaintenanceCommands.backupDestination],
            summary: "Write a consistent copy of the database to FILE (SQLite's VACUUM INTO), even while others write.",
            details:
                "FILE is a plain path, never an SQLite URI (file:x and :memory: are files of those names). It must not exist yet and must not be one of the database's own files (-wal, -shm, -journal). The copy is written to a hidden temporary file beside FILE and gets its name only when it is complete: on a full disk or at the file size limit nothing is left behind.",
            example: "liststore backup lists-2026-11-30.sqlite", run: MaintenanceCommands.backup),
        CommandSpec(
            words: ["merge"], positionals: [MergeCommand.peer],
            summary: "Merge the sections and rows another copy of the list holds (another device's file, a backup, a replica).",
            details: """
                Each row and section takes the newest place, title and payload of the two files; what was inserted
                there arrives, what was deleted there goes; one transaction, one change set (what it prints, as any
                edit). Lists too: added, moved, renamed, deleted; two lists of one name become one. PEER_FILE is only
                read. Merging again changes nothing. A file of another list, or one with rows, sections or lists
                inserted or moved by hand, is refused (run `liststore --db PEER_FILE repair`).
                """,
            example: "liststore --db laptop.sqlite merge phone.sqlite", run: MergeCommand.run),
        CommandSpec(
            words: ["sync"], options: [SyncCommand.peers, SyncCommand.segments, SyncCommand.every, SyncCommand.rounds],
            summary:
                "Merge the copies of the list in a folder (--peers DIR) or its shared segments (--segments DIR), round after round.",
            details: """
                Each file of DIR is merged as `merge` would (one transaction each), in name order, every --every
                SECONDS (5); the database's own files and hidden ones are passed over. DIR is where the other
                devices' copies arrive: `litestream restore` of their replicas, or a folder a file-sync engine
                carries. One line per file and round (with --json, one document: {"peer":…,"changes":…} or
                {"peer":…,"error":…}); a file that cannot be merged is reported and tried again next round, and
                after --rounds N the exit status is 1 if any was not merged.
                With --segments DIR instead, DIR is a folder a file-sync engine (iCloud Drive, Dropbox, Syncthing)
                carries between devices: each round merges the other copies' segment files there that this file has
                not merged (a line per copy: what it changed, or why a segment was not read — one not arrived whole
                waits for the next round), then writes one segment of what this file changed since its last
                (`wrote NAME`; --json: {"wrote":NAME}). Every device runs it on its own file.
                """,
            example: "liststore --db laptop.sqlite sync --peers peers --rounds 1", run: SyncCommand.run),
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
            example: "liststore --db lists.sqlite ui", run: UICommand.run),
    ]

    /// The command table of Docs/CLI.md, written from the declarations (a test keeps that copy in step).
    static var readmeTable: String {
        (["| Command | What it does |", "| --- | --- |"] + all.map(\.readmeRow)).joined(separator: "\n")
    }

    /// The help of `liststore GROUP --help`: the commands whose first word is `group`, each with its summary.
    static func groupHelp(_ group: String) -> String {
        let members = all.filter { $0.words.first == group }
        let width = members.map(\.name.count).max() ?? 0
        var lines = ["usage: liststore \(group) COMMAND [ARGS...]", "", "commands:"]
        lines += members.map { "  \(DisplayWidth.pad($0.name, to: width))  \($0.summary)" }
        lines += ["", "liststore \(group) COMMAND --help says more of one; liststore --help lists every command."]
        return lines.joined(separator: "\n")
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
