import Foundation
import ListStore

/// `export` and `import`.
enum TransferCommands {
    /// Imports with at least this many rows show progress on a terminal's standard error.
    static let progressThreshold = 5_000

    @Sendable static func export(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let destination = command.positionals.first
        if let destination, URL(fileURLWithPath: destination).standardizedFileURL == URL(fileURLWithPath: context.databasePath).standardizedFileURL {
            throw CommandFailure("refusing to export over the database itself (\(destination)); choose another FILE")
        }
        let store = try context.openForReading()
        guard let destination else {
            try writeDocument(of: store, to: context.write)
            return .streamed
        }
        let folder = CommandContext.folder(of: destination)
        guard FileManager.default.fileExists(atPath: folder) else {
            throw CommandFailure("cannot write \(destination): the folder \(folder) does not exist; create it first")
        }
        // Written beside the destination, then renamed over it: a reader never sees half a document.
        let temporary = "\(folder)/.\(destination.split(separator: "/").last ?? "export").\(UUID().uuidString).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let file = FileHandle(forWritingAtPath: temporary) else {
            throw CommandFailure("cannot write \(destination): the folder \(folder) is not writable; check its permissions")
        }
        let counts: StoreCounts
        do {
            counts = try writeDocument(of: store) { file.write(Data($0.utf8)) }
            try file.synchronize()
            try file.close()
            guard rename(temporary, destination) == 0 else {
                throw CommandFailure("cannot write \(destination): \(String(cString: strerror(errno))); check the path and permissions")
            }
        } catch {
            try? file.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        return CommandOutput(human: "exported \(counts.text) to \(destination)",
                             json: .object([("exported", .string(destination)), ("counts", counts.json)]))
    }

    /// Writes the whole store as one JSON document (the shape of `show --json`) plus a newline, in
    /// pieces of about 64 KB, reading it with a scan so that no store is too big to export.
    @discardableResult
    static func writeDocument(of store: ListStore, to write: (String) -> Void) throws -> StoreCounts {
        var buffer = "{\"sections\":["
        var sections = 0, rows = 0
        func flushIfLarge() {
            if buffer.utf8.count >= 65_536 { write(buffer); buffer = "" }
        }
        try store.scan { item in
            switch item {
            case let .section(index, id, title, _):
                buffer += (index == 0 ? "" : "]},") + "{\"id\":\(id.rawValue),\"title\":" + JSONValue.string(title).serialized() + ",\"rows\":["
                sections += 1
            case let .row(path, row):
                buffer += (path.row == 0 ? "" : ",") + JSONShapes.row(row).serialized()
                rows += 1
            }
            flushIfLarge()
        }
        buffer += (sections == 0 ? "" : "]}") + "]}\n"
        write(buffer)
        return StoreCounts(sections: sections, rows: rows)
    }

    @Sendable static func importDocument(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let source = command.positionals[0]
        let data: Data
        if source == "-" {
            data = context.environment.readStandardInput()
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
                throw CommandFailure("cannot read \(source): no such file; pass the path of a JSON document, or - for standard input")
            }
            guard !isDirectory.boolValue, let contents = FileManager.default.contents(atPath: source) else {
                throw CommandFailure("cannot read \(source): it is a folder or not readable; pass the path of a JSON document")
            }
            data = contents
        }
        let name = source == "-" ? "standard input" : source
        let document = try DocumentReader.bytes(of: data, name: name)
        // The whole document is checked before the store is opened: a bad one never creates a file.
        let total = try DocumentReader.check(document, name: name).rows
        let store = try context.openForWriting()
        let showProgress = context.environment.standardErrorIsTerminal && total >= progressThreshold
        let write = context.environment.writeProgress
        let changes = try store.importStream(replacing: command.flags.contains("--replace")) { importer in
            try DocumentReader.feed(document, name: name, into: importer) { written in
                if showProgress && (written % 1_000 == 0 || written == total) { write("\rimporting: \(written)/\(total) rows") }
            }
        }
        if showProgress { write("\n") }
        return try mutationOutput(changes, store)
    }
}

/// Reads an import document: `{"sections":[{"id"?,"title","rows"?:[{"id"?,"title","payload"?}]}]}`.
/// Unknown members are refused, so a misspelt key is not silently dropped. The document is walked, not
/// built in memory, so its size is limited by the disk, not by memory.
enum DocumentReader {
    /// The document's bytes (without a UTF-8 byte order mark), or an error when they are not UTF-8.
    static func bytes(of data: Data, name: String) throws -> [UInt8] {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]  // some editors start UTF-8 files with one
        let bytes = [UInt8](data.starts(with: byteOrderMark) ? data.dropFirst(3) : data)
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw CommandFailure("\(name) is not valid UTF-8 text; nothing was imported")
        }
        return bytes
    }

    /// Checks the whole document and counts its sections and rows, keeping nothing.
    static func check(_ bytes: [UInt8], name: String) throws -> StoreCounts {
        var sections = 0, rows = 0
        try walk(bytes, name: name, section: { _, _ in sections += 1 }, row: { _, _, _ in rows += 1 })
        return StoreCounts(sections: sections, rows: rows)
    }

    /// Hands every section and row to `importer`, calling `progress` with the rows written so far.
    static func feed(_ bytes: [UInt8], name: String, into importer: ListImporter, progress: (Int) -> Void) throws {
        try walk(bytes, name: name,
                 section: { id, title in try importer.addSection(id: id.map(SectionID.init), title: title) },
                 row: { id, title, payload in
                     try importer.addRow(id: id.map(RowID.init), title: title, payload: payload)
                     progress(importer.rowsWritten)
                 })
    }

    private static func walk(_ bytes: [UInt8], name: String, section: (Int64?, String) throws -> Void,
                             row: (Int64?, String, String?) throws -> Void) throws {
        func fail(_ place: String, _ problem: String) -> CommandFailure {
            CommandFailure("\(name): \(place) \(problem); nothing was imported (expected {\"sections\":[{\"title\":…,\"rows\":[{\"title\":…}]}]})")
        }
        var parser = JSONParser(bytes: bytes)
        do {
            parser.skipWhitespace()
            guard parser.atObject else { throw try syntaxFirst(&parser, depth: 0, fail("the document", "is not a JSON object")) }
            var sawSections = false
            try parser.forEachMember(depth: 0) { key, parser in
                guard key == "sections" else { throw fail("the document", "has an unknown member \(quoted(key)) (allowed: sections)") }
                guard !sawSections else { throw fail("the document", "has \"sections\" twice") }
                sawSections = true
                var index = 0
                guard parser.atArray else { throw try syntaxFirst(&parser, depth: 1, fail("the document", "has \"sections\" that is not an array")) }
                try parser.forEachElement(depth: 1) { parser in
                    try readSection(&parser, place: "sections[\(index)]", fail, section, row)
                    index += 1
                }
            }
            guard sawSections else { throw fail("the document", "has no \"sections\" array") }
            try parser.expectEnd()
        } catch let error as JSONSyntaxError {
            throw CommandFailure("\(name) is not valid JSON: \(error.reason) at byte \(error.offset); nothing was imported")
        }
    }

    /// One section object; its rows are read where they stand when the title came first, else afterwards.
    private static func readSection(_ parser: inout JSONParser, place: String, _ fail: (String, String) -> CommandFailure,
                                    _ section: (Int64?, String) throws -> Void, _ row: (Int64?, String, String?) throws -> Void) throws {
        guard parser.atObject else { throw try syntaxFirst(&parser, depth: 2, fail(place, "is not an object")) }
        var id: Int64?, title: String?, deferredRows: Int?, reported = false
        func report() throws {
            guard !reported, let title else { return }
            try section(id, title)
            reported = true
        }
        try parser.forEachMember(depth: 2) { key, parser in
            switch key {
            case "id": id = try readID(parser.value(depth: 3), place, fail)
            case "title":
                guard case .string(let text) = try parser.value(depth: 3) else { throw fail(place, "needs a \"title\" string") }
                title = text
            case "rows":
                if title != nil && !reported {
                    try report()
                    try readRows(&parser, place: place, fail, row)
                } else {
                    deferredRows = parser.position
                    try parser.skipValue(depth: 3)
                }
            default:
                throw fail(place, "has an unknown member \(quoted(key)) (allowed: id, rows, title)")
            }
        }
        guard title != nil else { throw fail(place, "needs a \"title\" string") }
        try report()
        if let deferredRows {
            var rowsParser = parser
            rowsParser.position = deferredRows
            try readRows(&rowsParser, place: place, fail, row)
        }
    }

    private static func readRows(_ parser: inout JSONParser, place: String, _ fail: (String, String) -> CommandFailure,
                                 _ row: (Int64?, String, String?) throws -> Void) throws {
        if parser.atNull { _ = try parser.value(depth: 3); return }
        guard parser.atArray else { throw try syntaxFirst(&parser, depth: 3, fail(place, "has \"rows\" that is not an array")) }
        var index = 0
        try parser.forEachElement(depth: 3) { parser in
            func rowPlace() -> String { "\(place).rows[\(index)]" }  // only built for an error message
            guard parser.atObject else { throw try syntaxFirst(&parser, depth: 4, fail(rowPlace(), "is not an object")) }
            var title: String?, id: JSONValue?, payload: String?
            try parser.forEachMember(depth: 4) { key, parser in
                switch key {
                case "title":
                    guard case .string(let text) = try parser.value(depth: 5) else { throw fail(rowPlace(), "needs a \"title\" string") }
                    title = text
                case "id":
                    id = try parser.value(depth: 5)
                case "payload":
                    let value = try parser.value(depth: 5)
                    if case .null = value { payload = nil } else { payload = value.serialized() }
                default:
                    throw fail(rowPlace(), "has an unknown member \(quoted(key)) (allowed: id, payload, title)")
                }
            }
            guard let title else { throw fail(rowPlace(), "needs a \"title\" string") }
            try row(try readID(id, rowPlace(), fail), title, payload)
            index += 1
        }
    }

    /// `shapeError`, unless the value here is not even valid JSON: that is reported first.
    private static func syntaxFirst(_ parser: inout JSONParser, depth: Int, _ shapeError: CommandFailure) throws -> CommandFailure {
        try parser.skipValue(depth: depth)
        return shapeError
    }

    private static func readID(_ value: JSONValue?, _ place: @autoclosure () -> String, _ fail: (String, String) -> CommandFailure) throws -> Int64? {
        switch value {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let id = Int64(text), id > 0 else { throw fail(place(), "has an \"id\" that is not a positive whole number") }
            return id
        default: throw fail(place(), "has an \"id\" that is not a number")
        }
    }
}
