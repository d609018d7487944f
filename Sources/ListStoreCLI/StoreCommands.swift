import ListStore

/// `init` and `show`.
enum StoreCommands {
    @Sendable static func initialize(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let existed = context.databaseExists
        let store = try context.openForWriting()
        let sections = try store.sectionCount()
        let rows = try store.totalRowCount()
        let verb = existed ? "is ready" : "created"
        return CommandOutput(
            human: "\(context.databasePath) \(verb): \(sections) section\(sections == 1 ? "" : "s"), \(rows) row\(rows == 1 ? "" : "s")",
            json: .object([("database", .string(context.databasePath)), ("created", .bool(!existed)),
                           ("counts", .object([("sections", .int(sections)), ("rows", .int(rows))]))]))
    }

    @Sendable static func show(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let store = try context.openForReading()
        guard !command.positionals.isEmpty else {
            // The whole store is written as it is read, so its size does not matter.
            if context.json {
                try TransferCommands.writeDocument(of: store, to: context.write)
            } else {
                try HumanText.streamList(of: store, to: context.write)
            }
            return .streamed
        }
        let index = try command.index(0, "SECTION")
        let shown = [(index: index, section: try store.snapshot(ofSection: index))]
        return CommandOutput(human: HumanText.list(shown), json: JSONShapes.list(shown.map(\.section)))
    }
}
