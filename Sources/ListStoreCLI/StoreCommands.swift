import ListStore

/// `init` and `show`.
enum StoreCommands {
    @Sendable static func initialize(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let (counts, created) = try context.withStoreForWriting { store, isNew in (try StoreCounts(store), isNew) }
        return CommandOutput(
            human: "\(context.databasePath) \(created ? "created" : "is ready"): \(counts.text)",
            json: .object([("database", .string(context.databasePath)), ("created", .bool(created)), ("counts", counts.json)]))
    }

    /// `show`'s SECTION.
    static let section = OptionalArgument("SECTION|id:N")

    @Sendable static func show(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        // The argument is checked before the store is opened.
        let section = try command[Self.section].map { try command.section($0, "SECTION") }
        let store = try context.openForReading()
        guard let section else {
            // The whole store is written as it is read, so its size does not matter.
            if context.json {
                try TransferCommands.writeDocument(of: store, indexPaths: true, to: context.write)
            } else {
                try HumanText.streamList(of: store, to: context.write, warn: { context.environment.writeProgress($0 + "\n") })
            }
            return .streamed
        }
        if context.json {
            let (index, shown, version): (Int, SectionSnapshot, ListVersion) = try store.read { reader in
                switch section {
                case .index(let index): return (index, try reader.snapshot(ofSection: index), try reader.version())
                case .id(let id):
                    let shown = try reader.snapshot(ofSection: id)
                    guard let index = try reader.index(of: id) else { throw ListStoreError.unknownSection(id) }
                    return (index, shown, try reader.version())
                }
            }
            return CommandOutput(human: "", json: JSONShapes.versioned(JSONShapes.list([shown], firstIndex: index), version))
        }
        let index: Int
        switch section {
        case .index(let value): index = value
        case .id(let id):
            guard let value = try store.read({ try $0.index(of: id) }) else { throw ListStoreError.unknownSection(id) }
            index = value
        }
        try HumanText.streamList(of: store, section: index, to: context.write, warn: { context.environment.writeProgress($0 + "\n") })
        return .streamed
    }
}
