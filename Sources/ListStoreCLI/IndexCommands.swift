import ListStore

/// `indexes` and `index add | remove`: the payload fields the file indexes for `find --where`
/// (``ListStore/addPayloadIndex(on:)``), and its index of titles for `find TEXT` (``ListStore/addTitleIndex()``,
/// `--titles`). An index covers every list of the file, whatever `--list` says.
enum IndexCommands {
    static let field = Argument("FIELD")
    static let titles = Flag("--titles", help: "the full-text index of titles, for find TEXT, instead of a payload field")

    static let all: [CommandSpec] = [indexes, add, remove]

    static let indexes = CommandSpec(
        words: ["indexes"], summary: "Print the payload fields the file indexes for find --where, and whether it indexes titles for find TEXT.",
        details: #"--json prints {"indexes":["FIELD"],"titles":BOOL}. Reads only; never creates the database."#,
        example: "liststore indexes",
        run: { _, context in
            let store = try context.openForReading()
            let (fields, titled) = (try store.payloadIndexes(), try store.hasTitleIndex())
            return output(fields, titles: titled, human: (fields.isEmpty ? "no payload field is indexed" : "indexed: " + list(fields)) + titlesNote(titled))
        })

    static let add = CommandSpec(
        words: ["index", "add"], positionals: [field], options: [titles], alternative: AlternativeForm(flag: titles, positionals: []),
        summary: "Index the payload field FIELD for find --where FIELD=VALUE, or (--titles) the titles' words for find TEXT.",
        details: """
            FIELD is a payload member's name (letters, digits, _ and -; address.city for a nested one). --titles adds
            the full-text index of titles: find TEXT then finds title words in any case, script and accents, in
            milliseconds, and every edit costs more (BENCHMARKS.md). Building an index reads every row once, in
            one transaction; from then on every edit keeps it current, and edits made by other programs are caught
            up by the next ListStore write. It covers every list of the file. Adding an index the file already has changes nothing.
            """,
        example: "liststore index add city",
        run: { command, context in
            if command[titles] {
                let (added, fields) = try context.withStoreForWriting { store in (try store.addTitleIndex(), try store.payloadIndexes()) }
                return output(
                    fields, titles: true,
                    human: (added ? "indexed the titles" : "the titles were already indexed; nothing changed") + "; payload fields indexed: " + listOrNone(fields))
            }
            let field = try PayloadField(command[Self.field])
            let (added, fields, titled) = try context.withStoreForWriting { store in
                (try store.addPayloadIndex(on: field), try store.payloadIndexes(), try store.hasTitleIndex())
            }
            let done = added ? "indexed \(field)" : "\(field) was already indexed; nothing changed"
            return output(fields, titles: titled, human: done + "; indexed: " + list(fields) + titlesNote(titled))
        })

    static let remove = CommandSpec(
        words: ["index", "remove"], positionals: [field], options: [titles], alternative: AlternativeForm(flag: titles, positionals: []),
        summary: "Drop the index on the payload field FIELD (or, --titles, of titles); find reads every row again.",
        example: "liststore index remove city",
        run: { command, context in
            guard context.databaseExists else { throw context.missingDatabase }
            if command[titles] {
                let (removed, fields) = try context.withStoreForWriting { store in (try store.removeTitleIndex(), try store.payloadIndexes()) }
                return output(
                    fields, titles: false,
                    human: (removed ? "dropped the index of titles" : "the titles were not indexed; nothing changed") + "; payload fields indexed: " + listOrNone(fields))
            }
            let field = try PayloadField(command[Self.field])
            let (fields, titled) = try context.withStoreForWriting { store in
                try store.removePayloadIndex(on: field)
                return (try store.payloadIndexes(), try store.hasTitleIndex())
            }
            return output(fields, titles: titled, human: "dropped the index on \(field); indexed: " + listOrNone(fields) + titlesNote(titled))
        })

    private static func list(_ fields: [PayloadField]) -> String {
        fields.map(\.name).joined(separator: ", ")
    }

    private static func listOrNone(_ fields: [PayloadField]) -> String {
        fields.isEmpty ? "none" : list(fields)
    }

    private static func titlesNote(_ titles: Bool) -> String {
        titles ? "; titles indexed" : ""
    }

    private static func output(_ fields: [PayloadField], titles: Bool, human: String) -> CommandOutput {
        CommandOutput(human: human, json: .object([("indexes", .array(fields.map { .string($0.name) })), ("titles", .bool(titles))]))
    }
}
