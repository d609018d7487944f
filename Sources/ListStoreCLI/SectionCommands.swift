import ListStore

/// `section add | rename | move | delete`: each turns its arguments into an edit of a write transaction.
enum SectionCommands {
    @Sendable static func add(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
        let at = try command.indexOption("--at")
        let title = command.positionals[0]
        return PreparedEdit { try $0.insertSection(title: title, at: at) }
    }

    @Sendable static func rename(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
        let section = try command.section(0, "INDEX")
        let title = command.positionals[1]
        return PreparedEdit { transaction in
            switch section {
            case .index(let index): try transaction.renameSection(at: index, to: title)
            case .id(let id): try transaction.renameSection(id: id, to: title)
            }
        }
    }

    @Sendable static func move(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
        let section = try command.section(0, "FROM")
        if command.positionals[1].hasPrefix(IDText.prefix) {
            throw command.usageError("TO \(quoted(command.positionals[1])) must be the section's index after the move, not an id")
        }
        let to = try command.index(1, "TO")
        return PreparedEdit { transaction in
            switch section {
            case .index(let from): try transaction.moveSection(from: from, to: to)
            case .id(let id): try transaction.moveSection(id: id, to: to)
            }
        }
    }

    @Sendable static func delete(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
        let sections = try command.positionals.indices.map { try command.section($0, "INDEX") }
        let indexes = sections.compactMap { if case .index(let index) = $0 { index } else { nil } }
        return PreparedEdit { transaction in
            if indexes.count == sections.count { return try transaction.deleteSections(at: indexes) }
            // Ids, or a mix: the indexes name sections as they are now, inside this transaction.
            if let repeated = firstRepeated(indexes) { throw ListStoreError.duplicateSectionIndex(repeated) }
            try transaction.deleteSections(ids: try sections.map { try transaction.sectionID($0) })
        }
    }
}
