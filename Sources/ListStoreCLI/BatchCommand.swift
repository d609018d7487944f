import ListStore

/// `batch [FILE|-]`: many edits, one command per line, applied in one write transaction.
///
/// Each line is split like a shell command line (``ShellWords``), parsed against the same command
/// table as the command line, and its edit (``PreparedEdit``, the same code the command runs on its
/// own) applied at once to the batch's transaction, so it sees what the lines before it did. Lines are
/// read one at a time (``LineReader``) and nothing of a line is kept once it is applied, so a batch of
/// any length runs in the same memory, apart from the change set the transaction collects.
enum BatchCommand {
    /// The commands a line may hold, for messages.
    static var editNames: String { Commands.all.filter { $0.prepare != nil }.map(\.name).joined(separator: ", ") }

    static let details = """
        Reads FILE, or standard input without FILE or with -, one line at a time. Each line is one edit in the
        command line's own syntax, without `liststore` and without global options (--db, --json): add, edit,
        move, delete, section add, section rename, section move, section delete (id:N works as on the command
        line; add's - does not). Blank lines and lines starting with # are skipped; a # starting a word begins a comment.
        Words are split as a shell splits them, without expansion: '…' is literal, "…" is literal except \\", \\\\,
        \\$ and \\`, a backslash outside quotes makes the next character literal; a quote must close on its line.
        All lines run in one transaction, each seeing what the lines before it did. The first line that fails
        undoes everything and is named (error: line 3: …; exit 1, or 2 for a usage error in the line).
        Prints one summary of all the changes and the new counts (--json: one change set, which grows with the
        batch; without --json memory does not). The write lock is held until the input ends: feed a file or a pipe.
        """

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let reader = try LineReader.open(command.positionals.first ?? "-")
        let store = try context.openForWriting()
        let parser = CommandLineParser(commands: Commands.all)
        let (counts, changes) = try store.write { transaction -> StoreCounts in
            while let line = try reader.next() {
                try perform(line, number: reader.lineNumber, parser: parser, on: transaction)
            }
            return try StoreCounts(transaction)
        }
        return CommandOutput(human: summary(changes) + "\nnow " + counts.text,
                             json: .object([("changes", JSONShapes.changes(changes)), ("counts", counts.json)]))
    }

    /// Applies one line; every error it throws names the line.
    static func perform(_ line: String, number: Int, parser: CommandLineParser, on transaction: ListTransaction) throws {
        do {
            let words: [String]
            do { words = try ShellWords.split(line) } catch let failure as ShellWords.Failure { throw UsageError(failure.message) }
            guard !words.isEmpty else { return }
            let edit = try prepare(words, parser: parser)
            try edit.apply(transaction)
        } catch let error as UsageError {
            throw UsageError("line \(number): \(error.message)", usage: error.usage)
        } catch {
            throw CommandFailure("line \(number): \(error)")
        }
    }

    /// The edit a line's words ask for: a command of the table that edits, without global options.
    static func prepare(_ words: [String], parser: CommandLineParser) throws -> PreparedEdit {
        let (invocation, globals) = try parser.parse(words)
        if let global = refusedGlobal(globals) {
            throw UsageError("\(global) is a global option and cannot be given on a line of a batch; give it to batch itself (liststore --db PATH --json batch FILE)")
        }
        guard case .command(let command, _) = invocation else { throw UsageError("a line of a batch must be an edit: \(editNames)") }
        guard let prepare = command.spec.prepare else {
            throw UsageError("\(command.spec.name) cannot be used in a batch; a line must be an edit: \(editNames)")
        }
        return try prepare(command, .batchLine)
    }

    private static func refusedGlobal(_ globals: GlobalOptions) -> String? {
        if globals.databasePath != nil { return "--db" }
        if globals.json { return "--json" }
        if globals.help { return "--help" }
        if globals.version { return "--version" }
        return nil
    }

    /// The changes, a line per kind as other commands print them, each list cut after its first ten
    /// entries (a batch may change millions of rows; `--json` lists every one).
    static func summary(_ changes: ChangeSet) -> String {
        var lines: [String] = []
        func add(_ verb: String, _ noun: String, _ count: Int, _ items: some Sequence<String>) {
            guard count > 0 else { return }
            let shown = Array(items.prefix(10)).joined(separator: ", ")
            let more = count > 10 ? ", … (\(count - 10) more; --json lists them all)" : ""
            lines.append("\(verb) \(count) \(noun)\(count == 1 ? "" : "s"): \(shown)\(more)")
        }
        add("deleted", "section", changes.deletedSections.count, changes.deletedSections.lazy.map { "\($0.index)" })
        add("inserted", "section", changes.insertedSections.count, changes.insertedSections.lazy.map { "\($0.index)" })
        add("moved", "section", changes.movedSections.count, changes.movedSections.lazy.map { "\($0.from) → \($0.to)" })
        add("renamed", "section", changes.updatedSections.count, changes.updatedSections.lazy.map { "\($0.index)" })
        add("deleted", "row", changes.deletedRows.count, changes.deletedRows.lazy.map { "\($0.indexPath)" })
        add("inserted", "row", changes.insertedRows.count, changes.insertedRows.lazy.map { "\($0.indexPath)" })
        add("moved", "row", changes.movedRows.count, changes.movedRows.lazy.map { "\($0.from) → \($0.to)" })
        add("updated", "row", changes.updatedRows.count, changes.updatedRows.lazy.map { "\($0.indexPath)" })
        return lines.isEmpty ? "nothing changed" : lines.joined(separator: "\n")
    }
}
