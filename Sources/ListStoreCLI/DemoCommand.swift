import ListStore

/// `demo`: the two lists ListStore grew from, ready to edit.
enum DemoCommand {
    static let sections: [(title: String, rows: [String])] = [
        ("Heroica roles", ["野蠻人", "法師", "弓箭手", "盜賊", "德魯伊", "騎士"]),
        ("Heroica monsters", ["哥布林戰士", "哥布林護衛", "哥布林軍官", "哥布林王", "黑暗德魯伊", "狼人", "傀儡護衛", "傀儡領主", "蜘蛛", "蝙蝠"]),
        // Duplicates on purpose: deleting one "Canada" must leave the other.
        ("Countries", ["Argentina", "Belgium", "Canada", "Denmark", "Canada", "Egypt", "France", "Germany"]),
    ]

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        try context.withStoreForWriting { store in try run(on: store, context) }
    }

    private static func run(on store: ListStore, _ context: CommandContext) throws -> CommandOutput {
        let document = ListDocument(
            sections: sections.map { section in
                ListDocument.Section(title: section.title, rows: section.rows.map { ListDocument.Row(title: $0) })
            })
        var created = true
        do {
            try store.importDocument(document)
        } catch let error as ListStoreError where { if case .storeNotEmpty = error.reason { true } else { false } }() {
            created = false
        }
        let snapshot = try store.snapshot()
        let db = context.usesDefaultDatabase ? "" : "--db \(shellQuoted(context.databasePath)) "
        let header = created ? "Created \(context.databasePath) with example lists:" : "\(context.databasePath) already has lists; showing them unchanged:"
        let tryNext = [
            "Try next:",
            "  liststore \(db)delete 2:1 2:4          # Belgium and the second Canada, in one transaction",
            "  liststore \(db)add 2 \"New Zealand\" --at 0",
            "  liststore \(db)add --every-section \"被增加的項目\"",
            "  liststore \(db)move 0:0 1:0",
            "  liststore \(db)show --json",
            "  sqlite3 \(shellQuoted(context.databasePath)) 'SELECT * FROM list_rows'",
        ]
        let listing = HumanText.list(Array(snapshot.sections.enumerated()).map { (index: $0.offset, section: $0.element) })
        return CommandOutput(
            human: ([header, "", listing, ""] + tryNext).joined(separator: "\n"),
            json: .object([
                ("database", .string(context.databasePath)), ("created", .bool(created)),
                ("sections", .array(snapshot.sections.enumerated().map { JSONShapes.section($0.element, index: $0.offset) })),
            ]))
    }

    static func shellQuoted(_ text: String) -> String {
        text.allSatisfy { $0.isLetter || $0.isNumber || "/._-".contains($0) } ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
