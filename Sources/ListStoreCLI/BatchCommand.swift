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
        Prints how many commands it applied and the new counts; --json prints the one change set of the whole
        batch (which grows with the batch; without --json none is built, and memory stays flat). The write lock is held until the input ends: feed a file or a pipe.
        --as-of VERSION (given to batch, for every line; a line cannot have its own) makes every index path and
        index of every line name what was shown at VERSION, translated through every commit since and through
        the lines before it: the lines act on what was shown, whatever they or others did meanwhile (rows the
        batch added are named by id:N). The change set is then always built.
        """

    static let source = OptionalArgument("FILE|-")

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let reader = try LineReader.open(command[source] ?? "-", context)
        let version = try command[EditOptions.asOf]
        // The lines are read as they are applied, so the batch cannot run again on a file that another
        // process created meanwhile.
        return try context.withStoreForWriting(rerunnable: false) { store in try run(reading: reader, into: store, asOf: version, context) }
    }

    private static func run(reading reader: LineReader, into store: ListStore, asOf version: ListVersion?, _ context: CommandContext) throws -> CommandOutput {
        let parser = CommandLineParser(commands: Commands.all)
        if let version {
            let (counts, changes) = try store.write { current -> StoreCounts in
                let transaction = try current.asOf(version)
                while let line = try reader.next() {
                    _ = try perform(line, number: reader.lineNumber, parser: parser, { edit in try edit.drawn.get()(transaction) })
                }
                return try StoreCounts(current)
            }
            return mutationOutput(changes, counts)
        }
        guard context.json else {
            // Without --json no change set is reported, so none is built: memory stays flat however long the batch.
            var counts = StoreCounts(sections: 0, rows: 0)
            var lines = 0
            try store.write(tracksChanges: false) { transaction in
                while let line = try reader.next() {
                    if try perform(line, number: reader.lineNumber, parser: parser, { try $0.apply(transaction) }) { lines += 1 }
                }
                counts = try StoreCounts(transaction)
            }
            return CommandOutput(human: "applied \(lines) command\(lines == 1 ? "" : "s") in one transaction (--json lists the changes)\nnow " + counts.text, json: .null)
        }
        let (counts, changes) = try store.write { transaction -> StoreCounts in
            while let line = try reader.next() {
                _ = try perform(line, number: reader.lineNumber, parser: parser, { try $0.apply(transaction) })
            }
            return try StoreCounts(transaction)
        }
        return CommandOutput(
            human: HumanText.changes(changes) + "\nnow " + counts.text,
            json: .object([("changes", JSONShapes.changes(changes)), ("counts", counts.json)] + JSONShapes.version(changes.version)))
    }

    /// Applies one line; every error it throws names the line. False for a blank or comment line.
    static func perform(_ line: String, number: Int, parser: CommandLineParser, _ apply: (PreparedEdit) throws -> Void) throws -> Bool {
        do {
            let words: [String]
            do { words = try ShellWords.split(line) } catch let failure as ShellWords.Failure { throw UsageError(failure.message) }
            guard !words.isEmpty else { return false }
            try apply(try prepare(words, parser: parser))
            return true
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
        guard case .command(let command) = invocation else { throw UsageError("a line of a batch must be an edit: \(editNames)") }
        guard let prepare = command.spec.prepare else {
            throw UsageError("\(command.spec.name) cannot be used in a batch; a line must be an edit: \(editNames)")
        }
        if try command[EditOptions.asOf] != nil {
            throw UsageError("--as-of cannot be given on a line of a batch; give it to batch itself (liststore batch --as-of VERSION FILE), for every line")
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
}
