import ListStore

/// `section add | rename | move | delete`: each declares its arguments and turns them into an edit of a write transaction.
enum SectionCommands {
    enum Add {
        static let title = Argument("TITLE")
        static let at = Option.index("--at", value: "INDEX", help: "the section's index after the insert (0 = first)")

        static let spec = CommandSpec.mutation(
            words: ["section", "add"], positionals: [title], options: [at], summary: "Insert an empty section (at the end by default).",
            example: "liststore section add \"Weapons\" --at 1", prepare: prepare)

        @Sendable static func prepare(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
            let at = try command[Self.at]
            let title = command[Self.title]
            return PreparedEdit(apply: { try $0.insertSection(title: title, at: at) }, drawn: .success { try $0.insertSection(title: title, at: at) })
        }
    }

    enum Rename {
        static let section = Argument("INDEX|id:N")
        static let title = Argument("TITLE")

        static let spec = CommandSpec.mutation(
            words: ["section", "rename"], positionals: [section, title], summary: "Change a section's title.",
            details: "The section is named by its index or by id:N, its id.",
            example: "liststore section rename 0 \"Heroes\"", prepare: prepare)

        @Sendable static func prepare(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
            let section = try command.section(command[Self.section], "INDEX")
            let title = command[Self.title]
            return PreparedEdit(
                apply: { transaction in
                    switch section {
                    case .index(let index): try transaction.renameSection(at: index, to: title)
                    case .id(let id): try transaction.renameSection(id: id, to: title)
                    }
                },
                drawn: .success { transaction in
                    switch section {
                    case .index(let index): try transaction.renameSection(at: index, to: title)
                    case .id(let id): try transaction.current.renameSection(id: id, to: title)
                    }
                })
        }
    }

    enum Move {
        static let section = Argument("FROM|id:N")
        static let destination = Argument("TO")

        static let spec = CommandSpec.mutation(
            words: ["section", "move"], positionals: [section, destination],
            summary: "Move a section, with its rows, so that its index becomes TO.",
            details: "The section is named by its index or by id:N, its id; TO is always an index (where the section is after the move).",
            example: "liststore section move 2 0", prepare: prepare)

        @Sendable static func prepare(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
            let section = try command.section(command[Self.section], "FROM")
            let destination = command[Self.destination]
            if destination.hasPrefix(IDText.prefix) {
                throw command.usageError("TO \(quoted(destination)) must be the section's index after the move, not an id")
            }
            let to = try command.parseIndex(destination, "TO")
            return PreparedEdit(
                apply: { transaction in
                    switch section {
                    case .index(let from): try transaction.moveSection(from: from, to: to)
                    case .id(let id): try transaction.moveSection(id: id, to: to)
                    }
                },
                drawn: {
                    guard case .index(let from) = section else {
                        return .failure(command.usageError(RowCommands.idWithAsOf("TO as shown is relative to where the section was shown: name it by its index as shown")))
                    }
                    return .success { try $0.moveSection(from: from, to: to) }
                }())
        }
    }

    enum Delete {
        static let sections = Arguments("INDEX|id:N")

        static let spec = CommandSpec.mutation(
            words: ["section", "delete"], positionals: [sections],
            summary: "Delete one or more sections with all their rows, in one transaction.",
            details: "Indexes are the current ones; id:N names a section by its id (indexes and ids may be mixed). All are deleted or none.",
            example: "liststore section delete 1 2", prepare: prepare)

        @Sendable static func prepare(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
            let sections = try command[Self.sections].map { try command.section($0, "INDEX") }
            let indexes = sections.compactMap { if case .index(let index) = $0 { index } else { nil } }
            return PreparedEdit(
                apply: { transaction in
                    if indexes.count == sections.count { return try transaction.deleteSections(at: indexes) }
                    // Ids, or a mix: the indexes name sections as they are now, inside this transaction.
                    if let repeated = firstRepeated(indexes) { throw ListStoreError.duplicateSectionIndex(repeated) }
                    try transaction.deleteSections(ids: try sections.map { try transaction.sectionID($0) })
                },
                drawn: .success { transaction in
                    if indexes.count == sections.count { return try transaction.deleteSections(at: indexes) }
                    if let repeated = firstRepeated(indexes) { throw ListStoreError.duplicateSectionIndex(repeated) }
                    try transaction.current.deleteSections(ids: try sections.map { try transaction.sectionID($0) })
                })
        }
    }
}
