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
        let shown: [(index: Int, section: SectionSnapshot)]
        if command.positionals.isEmpty {
            shown = Array(try store.snapshot().sections.enumerated()).map { (index: $0.offset, section: $0.element) }
        } else {
            let index = try command.index(0, "SECTION")
            shown = [(index: index, section: try store.snapshot(ofSection: index))]
        }
        return CommandOutput(human: HumanText.list(shown), json: JSONShapes.list(shown.map(\.section)))
    }
}
