import Foundation
import ListStore

/// `add`, `edit`, `move`, `delete`: each turns its arguments into an edit of a write transaction.
enum RowCommands {
    @Sendable static func add(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
        let payload = try command.values["--payload"].flatMap(Payload.parse)
        if command.flags.contains("--every-section") {
            guard command.positionals.count == 1 else {
                throw command.usageError("--every-section takes exactly one TITLE and no SECTION")
            }
            guard command.values["--at"] == nil else { throw command.usageError("--every-section always appends; drop --at") }
            let titles = try titles(from: command.positionals, command, input)
            guard titles.count == 1 else { throw CommandFailure("--every-section adds one title; standard input had \(titles.count)") }
            let row = NewRow(title: titles[0], payload: payload)
            return PreparedEdit { try $0.appendRowToEverySection(row) }
        }
        guard command.positionals.count >= 2 else { throw command.usageError("add needs a SECTION and at least one TITLE") }
        let section = try command.section(0, "SECTION")
        let at = try command.indexOption("--at")
        let rows = try titles(from: Array(command.positionals.dropFirst()), command, input).map { NewRow(title: $0, payload: payload) }
        return PreparedEdit { transaction in
            switch section {
            case .index(let index): try transaction.insertRows(rows, intoSection: index, at: at)
            case .id(let id): try transaction.insertRows(rows, intoSection: id, at: at)
            }
        }
    }

    @Sendable static func edit(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
        let row = try command.row(0)
        let title = command.values["--title"]
        let payload: PayloadUpdate = try command.values["--payload"].map { try Payload.parse($0).map(PayloadUpdate.set) ?? .remove } ?? .unchanged
        guard title != nil || payload != .unchanged else { throw command.usageError("edit needs --title and/or --payload") }
        return PreparedEdit { transaction in
            switch row {
            case .path(let path): try transaction.updateRow(at: path, title: title, payload: payload)
            case .id(let id): try transaction.updateRow(id: id, title: title, payload: payload)
            }
        }
    }

    @Sendable static func move(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
        let row = try command.row(0)
        let to = try command.destination(1)
        return PreparedEdit { transaction in
            switch row {
            case .path(let from): try transaction.moveRow(from: from, to: to)
            case .id(let id): try transaction.moveRow(id: id, to: to)
            }
        }
    }

    @Sendable static func delete(_ command: ParsedCommand, _ input: EditInput) throws -> PreparedEdit {
        let rows = try command.positionals.indices.map { try command.row($0) }
        let paths = rows.compactMap { if case .path(let path) = $0 { path } else { nil } }
        return PreparedEdit { transaction in
            if paths.count == rows.count { return try transaction.deleteRows(at: paths) }
            // Ids, or a mix: the index paths name rows as they are now, inside this transaction.
            if let repeated = firstRepeated(paths) { throw ListStoreError.duplicateIndexPath(repeated) }
            try transaction.deleteRows(ids: try rows.map { try transaction.rowID($0) })
        }
    }

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

/// The first element that occurs twice, in order of the second occurrence.
func firstRepeated<T: Hashable>(_ items: [T]) -> T? {
    var seen = Set<T>()
    return items.first { !seen.insert($0).inserted }
}

/// Payload arguments: JSON text, checked here so the error can say where it breaks.
enum Payload {
    /// The JSON text to store (compact, numbers as written), or nil for `null` (no payload).
    /// Compact text makes `export` → `import` → `export` give the same bytes.
    /// Like `import`, it accepts what SQLite's `json_valid` does (lone surrogate escapes included),
    /// nested at most ``ListStore/maximumPayloadDepth`` deep.
    static func parse(_ text: String) throws -> String? {
        switch JSONText.check(text) {
        case let .failure(reason, offset):
            throw CommandFailure("--payload is not valid JSON (\(reason) at byte \(offset)) in \(quoted(text)); pass a JSON value such as '{\"key\": 1}'")
        case let .success(compact, _):
            let payload = String(decoding: compact, as: UTF8.self)
            try ListStore.checkPayloadDepth(payload)
            return payload == "null" ? nil : payload
        }
    }
}

/// Titles from standard input: one per line, blank lines skipped, CRLF accepted; strict UTF-8. A byte
/// order mark before the first line (some editors write one) is not part of the first title. Lines and
/// the whole input are limited (see ``InputLimits``).
enum StandardInputLines {
    static func titles(_ data: Data) throws -> [String] {
        guard data.count <= InputLimits.maximumInput else { throw InputLimits.tooLarge("standard input", "nothing was added") }
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let text = data.starts(with: byteOrderMark) ? data.dropFirst(3) : data[...]
        var titles: [String] = []
        for (number, line) in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var bytes = line
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            guard bytes.count <= InputLimits.maximumPiece else {
                throw CommandFailure("line \(number + 1) of standard input is longer than \(InputLimits.text(InputLimits.maximumPiece)), the most liststore reads for one title; nothing was added")
            }
            guard let title = String(strictUTF8: bytes) else {
                throw CommandFailure("line \(number + 1) of standard input is not valid UTF-8; nothing was added")
            }
            if title.utf8.contains(0) {
                throw CommandFailure("line \(number + 1) of standard input contains a NUL byte; nothing was added")
            }
            if !title.allSatisfy(\.isWhitespace) { titles.append(title) }
        }
        return titles
    }
}
