import ListStore

/// A mutating command's edit, ready to apply: its arguments parsed and checked (usage errors come
/// before the store is opened), nothing read from the store yet. `apply` performs it on a write
/// transaction, so that a single command (`store.write { tx in try edit.apply(tx) }`) and a line of
/// `batch` (many edits in one transaction) share one implementation.
struct PreparedEdit {
    let apply: (ListTransaction) throws -> Void
    /// The same edit with its index paths and indexes as shown at a version (`--as-of`), or why it has
    /// no such form.
    var drawn: Result<(AsOfTransaction) throws -> Void, UsageError> = .failure(UsageError("this edit cannot take --as-of"))
}

/// What an edit may read besides its arguments.
struct EditInput {
    /// The titles on standard input (`add SECTION -`); nil where standard input is not available
    /// for titles (a `batch` line, whose input is the batch itself).
    let standardInputTitles: (() throws -> [String])?

    /// A command line's input: titles from the process's standard input.
    static func commandLine(_ context: CommandContext) -> EditInput {
        EditInput(standardInputTitles: { try StandardInputLines.titles(context.environment.readStandardInput()) })
    }

    /// A batch line's input: no standard input of its own.
    static var batchLine: EditInput { EditInput(standardInputTitles: nil) }
}

/// Turns a mutating command's parsed arguments into its edit.
typealias EditPreparer = @Sendable (ParsedCommand, EditInput) throws -> PreparedEdit

/// Running a mutating command on its own: one write transaction that performs the edit and reads the
/// counts, so the output describes exactly the state the edit committed, even while other processes write.
/// On a database that does not exist yet, the file appears only once the edit has succeeded
/// (`CommandContext.withStoreForWriting`): a failing edit (`add 0 x`) creates no file.
enum Mutation {
    static func run(_ command: ParsedCommand, _ context: CommandContext, _ prepare: EditPreparer) throws -> CommandOutput {
        let edit = try prepare(command, .commandLine(context))
        if let version = try command[EditOptions.asOf] { return try runAsOf(version, edit.drawn.get(), context) }
        let (counts, changes) = try context.withStoreForWriting { store in
            try store.write { transaction -> StoreCounts in
                try edit.apply(transaction)
                return try StoreCounts(transaction)
            }
        }
        return mutationOutput(changes, counts)
    }

    /// `--as-of VERSION`: the edit's index paths as shown at `version`, translated inside the write
    /// transaction (`ListTransaction.asOf(_:)`); a row or section deleted since, or a version the change
    /// log cannot translate, fails with nothing changed.
    static func runAsOf(_ version: ListVersion, _ edit: (AsOfTransaction) throws -> Void, _ context: CommandContext) throws -> CommandOutput {
        let (counts, changes) = try context.withStoreForWriting { store in
            try store.write { transaction -> StoreCounts in
                try edit(try transaction.asOf(version))
                return try StoreCounts(transaction)
            }
        }
        return mutationOutput(changes, counts)
    }
}
