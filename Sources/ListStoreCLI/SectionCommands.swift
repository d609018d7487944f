import ListStore

/// `section add | rename | move | delete`.
enum SectionCommands {
    @Sendable static func add(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let at = try command.indexOption("--at")
        let store = try context.openForWriting()
        return try mutationOutput(try store.insertSection(title: command.positionals[0], at: at), store)
    }

    @Sendable static func rename(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let index = try command.index(0, "INDEX")
        let store = try context.openForWriting()
        return try mutationOutput(try store.renameSection(at: index, to: command.positionals[1]), store)
    }

    @Sendable static func move(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let from = try command.index(0, "FROM")
        let to = try command.index(1, "TO")
        let store = try context.openForWriting()
        return try mutationOutput(try store.moveSection(from: from, to: to), store)
    }

    @Sendable static func delete(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let indexes = try command.positionals.indices.map { try command.index($0, "INDEX") }
        let store = try context.openForWriting()
        return try mutationOutput(try store.deleteSections(at: indexes), store)
    }
}
