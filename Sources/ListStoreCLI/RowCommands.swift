import Foundation
import ListStore

/// `add`, `edit`, `move`, `delete`: each declares its arguments and turns them into an edit of a write transaction.
enum RowCommands {
    enum Add {
        static let section = Argument("SECTION|id:N")
        static let titles = Arguments("TITLE")
        static let at = Option.index("--at", value: "ROW", help: "the row index of the first added row (default: the end)")
        static let payload = Option<String>("--payload", value: "JSON", help: "a JSON value stored with each added row")
        static let everySection = Flag("--every-section", help: "append TITLE to every section")

        static let spec = CommandSpec.mutation(
            words: ["add"], positionals: [section, titles], options: [at, payload, everySection],
            alternative: AlternativeForm(flag: everySection, positionals: [Argument("TITLE")]),
            summary: "Insert one or more rows into a section (at the end by default), in one transaction.",
            details: """
                SECTION is the section's index, or id:N with its id (as `show --json` prints it).
                A single - as TITLE reads titles from standard input, one per line (blank lines skipped).
                --every-section appends one row with TITLE to every section instead, in one transaction.
                --payload attaches the same JSON value to every added row (null for none).
                Put -- before titles that begin with a dash.
                """,
            example: "liststore add 0 \"Paladin\" \"Monk\" --at 2",
            prepare: prepare)

        @Sendable static func prepare(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
            let payload = try command[Self.payload].flatMap(Payload.parse)
            if command[everySection] {
                guard command.positionals.count == 1 else {
                    throw command.usageError("--every-section takes exactly one TITLE and no SECTION")
                }
                guard try command[at] == nil else { throw command.usageError("--every-section always appends; drop --at") }
                let titles = try RowCommands.titles(from: command[Self.titles], command, input)
                guard titles.count == 1 else { throw CommandFailure("--every-section adds one title; standard input had \(titles.count)") }
                let row = NewRow(title: titles[0], payload: payload)
                return PreparedEdit(apply: { try $0.appendRowToEverySection(row) }, drawn: .success { try $0.current.appendRowToEverySection(row) })
            }
            guard !command[Self.titles].isEmpty else { throw command.usageError("add needs a SECTION and at least one TITLE") }
            let section = try command.section(command[Self.section], "SECTION")
            let at = try command[Self.at]
            let rows = try RowCommands.titles(from: command[Self.titles], command, input).map { NewRow(title: $0, payload: payload) }
            return PreparedEdit(
                apply: { transaction in
                    switch section {
                    case .index(let index): try transaction.insertRows(rows, intoSection: index, at: at)
                    case .id(let id): try transaction.insertRows(rows, intoSection: id, at: at)
                    }
                },
                drawn: {
                    switch (section, at) {
                    case (.index(let index), _): return .success { try $0.insertRows(rows, intoSection: index, at: at) }
                    case (.id(let id), nil): return .success { try $0.current.insertRows(rows, intoSection: id) }
                    case (.id, _?): return .failure(command.usageError(RowCommands.idWithAsOf("--at ROW as shown needs the section as shown: give its index, not id:N")))
                    }
                }())
        }
    }

    enum Edit {
        static let row = Argument("S:R|id:N")
        static let title = Option<String>("--title", value: "TITLE", help: "the new title")
        static let payload = Option<String>("--payload", value: "JSON", help: "the new JSON payload (null removes it)")

        static let spec = CommandSpec.mutation(
            words: ["edit"], positionals: [row], options: [title, payload], summary: "Change a row's title and/or payload.",
            details: "The row is named by its index path or by id:N, its id. --payload null removes the payload.",
            example: "liststore edit 0:1 --title \"Archmage\" --payload '{\"level\":3}'", prepare: prepare)

        @Sendable static func prepare(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
            let row = try command.row(command[Self.row])
            let title = try command[Self.title]
            let payload: PayloadUpdate = try command[Self.payload].map { try Payload.parse($0).map(PayloadUpdate.set) ?? .remove } ?? .unchanged
            guard title != nil || payload != .unchanged else { throw command.usageError("edit needs --title and/or --payload") }
            return PreparedEdit(
                apply: { transaction in
                    switch row {
                    case .path(let path): try transaction.updateRow(at: path, title: title, payload: payload)
                    case .id(let id): try transaction.updateRow(id: id, title: title, payload: payload)
                    }
                },
                drawn: .success { transaction in
                    switch row {
                    case .path(let path): try transaction.updateRow(at: path, title: title, payload: payload)
                    case .id(let id): try transaction.current.updateRow(id: id, title: title, payload: payload)
                    }
                })
        }
    }

    enum Move {
        static let row = Argument("S:R|id:N")
        static let destination = Argument("S:R")

        static let spec = CommandSpec.mutation(
            words: ["move"], positionals: [row, destination],
            summary: "Move a row; the second index path is where the row is after the move.",
            details: """
                The row to move is named by its index path or by id:N, its id. The destination is always an
                index path (never an id): where the row is after the move, in the same section or another.
                """,
            example: "liststore move 0:0 1:2", prepare: prepare)

        @Sendable static func prepare(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
            let row = try command.row(command[Self.row])
            let to = try command.destination(command[destination])
            return PreparedEdit(
                apply: { transaction in
                    switch row {
                    case .path(let from): try transaction.moveRow(from: from, to: to)
                    case .id(let id): try transaction.moveRow(id: id, to: to)
                    }
                },
                drawn: {
                    guard case .path(let from) = row else {
                        return .failure(
                            command.usageError(RowCommands.idWithAsOf("a destination as shown is relative to where the row was shown: name the row by its index path as shown")))
                    }
                    return .success { try $0.moveRow(from: from, to: to) }
                }())
        }
    }

    enum Delete {
        static let rows = Arguments("S:R|id:N")

        static let spec = CommandSpec.mutation(
            words: ["delete"], positionals: [rows], summary: "Delete several rows, across sections, in one transaction: all or nothing.",
            details: """
                Index paths are the current ones (as `show` prints them); id:N names a row by its id (as `show --json`
                prints it), which stays right whatever others insert or delete meanwhile. Both may be mixed; each row is named once.
                """,
            example: "liststore delete 2:1 2:3 0:0", prepare: prepare)

        @Sendable static func prepare(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
            let rows = try command[Self.rows].map { try command.row($0) }
            let paths = rows.compactMap { if case .path(let path) = $0 { path } else { nil } }
            return PreparedEdit(
                apply: { transaction in
                    if paths.count == rows.count { return try transaction.deleteRows(at: paths) }
                    // Ids, or a mix: the index paths name rows as they are now, inside this transaction.
                    if let repeated = firstRepeated(paths) { throw ListStoreError.duplicateIndexPath(repeated) }
                    try transaction.deleteRows(ids: try rows.map { try transaction.rowID($0) })
                },
                drawn: .success { transaction in
                    if paths.count == rows.count { return try transaction.deleteRows(at: paths) }
                    if let repeated = firstRepeated(paths) { throw ListStoreError.duplicateIndexPath(repeated) }
                    try transaction.current.deleteRows(ids: try rows.map { try transaction.rowID($0) })
                })
        }
    }

    /// Why an edit that names something by id:N cannot take `--as-of` in that form.
    static func idWithAsOf(_ reason: String) -> String { "with --as-of, \(reason)" }

    /// The titles to add: the arguments, or — for a single `-` — the lines of standard input.
    static func titles(from arguments: [String], _ command: ParsedCommand, _ input: EditInput) throws -> [String] {
        guard arguments == ["-"] else {
            if arguments.contains("-") { throw UsageError("- (read titles from standard input) must be the only TITLE") }
            return arguments
        }
        guard let read = input.standardInputTitles else {
            throw command.usageError("- (titles from standard input) cannot be used in a batch, whose input is the batch; write the titles on the line")
        }
        let titles = try read()
        guard !titles.isEmpty else { throw CommandFailure("standard input had no titles (one per line; blank lines are skipped)") }
        return titles
    }
}

/// Payload arguments: JSON text, checked here so the error can say where it breaks.
enum Payload {
    /// The JSON text to store (compact, numbers as written), or nil for `null` (no payload).
    /// Compact text makes `export` → `import` → `export` give the same bytes.
    /// Like `import`, it accepts what SQLite's `json_valid` does (lone surrogate escapes included),
    /// nested at most ``ListStore/maximumPayloadDepth`` deep.
    static func parse(_ text: String) throws -> String? {
        switch JSONText.check(text) {
        case .failure(let reason, let offset):
            throw CommandFailure("--payload is not valid JSON (\(reason) at byte \(offset)) in \(quoted(text)); pass a JSON value such as '{\"key\": 1}'")
        case .success(let compact, _):
            let payload = String(decoding: compact, as: UTF8.self)
            try ListStore.checkPayloadDepth(payload)
            return payload == "null" ? nil : payload
        }
    }
}

/// Titles from standard input: one per line, blank lines skipped, CRLF accepted; strict UTF-8 (read by
/// ``LineReader``, with its byte order mark rule). Lines and the whole input are limited (see ``InputLimits``).
enum StandardInputLines {
    static func titles(_ data: Data) throws -> [String] {
        guard data.count <= InputLimits.maximumInput else { throw InputLimits.tooLarge("standard input", "nothing was added") }
        let reader = LineReader(bytes: [UInt8](data), name: "standard input", unit: "title") { number, problem in
            CommandFailure("line \(number) of standard input \(problem); nothing was added")
        }
        var titles: [String] = []
        while let title = try reader.next() {
            if !title.allSatisfy(\.isWhitespace) { titles.append(title) }
        }
        return titles
    }
}
