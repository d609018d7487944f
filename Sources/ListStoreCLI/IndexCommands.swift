import ListStore

/// `indexes` and `index add | remove`: the payload fields the file indexes for `find --where`
/// (``ListStore/addPayloadIndex(on:)``). An index covers every list of the file, whatever `--list` says.
enum IndexCommands {
    static let field = Argument("FIELD")

    static let all: [CommandSpec] = [indexes, add, remove]

    static let indexes = CommandSpec(
        words: ["indexes"], summary: "Print the payload fields the file indexes for find --where.",
        details: #"--json prints {"indexes":["FIELD"]}. Reads only; never creates the database."#,
        example: "liststore indexes",
        run: { _, context in
            let fields = try context.openForReading().payloadIndexes()
            return output(fields, human: fields.isEmpty ? "no payload field is indexed" : "indexed: " + list(fields))
        })

    static let add = CommandSpec(
        words: ["index", "add"], positionals: [field],
        summary: "Index the payload field FIELD, so that find --where FIELD=VALUE reads only the rows that match.",
        details: """
            FIELD is a payload member's name (letters, digits, _ and -; address.city for a nested one). Building the
            index reads every row once, in one transaction; from then on every edit keeps it current, and edits made
            by other programs are caught up by the next ListStore write. It covers every list of the file.
            Adding a field that is already indexed changes nothing.
            """,
        example: "liststore index add city",
        run: { command, context in
            let field = try PayloadField(command[Self.field])
            let (added, fields) = try context.withStoreForWriting { store in (try store.addPayloadIndex(on: field), try store.payloadIndexes()) }
            return output(fields, human: (added ? "indexed \(field)" : "\(field) was already indexed; nothing changed") + "; indexed: " + list(fields))
        })

    static let remove = CommandSpec(
        words: ["index", "remove"], positionals: [field], summary: "Drop the index on the payload field FIELD; find --where FIELD=VALUE reads every row again.",
        example: "liststore index remove city",
        run: { command, context in
            let field = try PayloadField(command[Self.field])
            guard context.databaseExists else { throw context.missingDatabase }
            let fields = try context.withStoreForWriting { store in
                try store.removePayloadIndex(on: field)
                return try store.payloadIndexes()
            }
            return output(fields, human: "dropped the index on \(field); indexed: " + (fields.isEmpty ? "none" : list(fields)))
        })

    private static func list(_ fields: [PayloadField]) -> String {
        fields.map(\.name).joined(separator: ", ")
    }

    private static func output(_ fields: [PayloadField], human: String) -> CommandOutput {
        CommandOutput(human: human, json: .object([("indexes", .array(fields.map { .string($0.name) }))]))
    }
}
