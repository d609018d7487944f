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
        let counts: (sections: Int, rows: Int)
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
        let summary = "exported \(counts.sections) sections, \(counts.rows) rows to \(destination)"
        return CommandOutput(human: summary, json: .object([
            ("exported", .string(destination)),
            ("counts", .object([("sections", .int(counts.sections)), ("rows", .int(counts.rows))])),
        ]))
    }

    /// Writes the whole store as one JSON document (the shape of `show --json`) plus a newline, in
    /// pieces of about 64 KB, reading it with a scan so that no store is too big to export.
    @discardableResult
    static func writeDocument(of store: ListStore, to write: (String) -> Void) throws -> (sections: Int, rows: Int) {
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
        return (sections, rows)
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
        let document = try DocumentReader.read(data, name: name)
        let store = try context.openForWriting()
        let showProgress = context.environment.standardErrorIsTerminal && document.rowCount >= progressThreshold
        let write = context.environment.writeProgress
        let changes = try store.importDocument(document, replacing: command.flags.contains("--replace")) { written, total in
            if showProgress { write("\rimporting: \(written)/\(total) rows") }
        }
        if showProgress { write("\n") }
        return try mutationOutput(changes, store)
    }
}

/// Reads an import document: `{"sections":[{"id"?,"title","rows"?:[{"id"?,"title","payload"?}]}]}`.
/// Unknown members are refused, so a misspelt key is not silently dropped.
enum DocumentReader {
    static func read(_ data: Data, name: String) throws -> ListDocument {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]  // some editors start UTF-8 files with one
        let data = data.starts(with: byteOrderMark) ? data.dropFirst(3) : data
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CommandFailure("\(name) is not valid UTF-8 text; nothing was imported")
        }
        let root: JSONValue
        do { root = try JSONParser.parse(text) } catch let error as JSONSyntaxError {
            throw CommandFailure("\(name) is not valid JSON: \(error.reason) at byte \(error.offset); nothing was imported")
        }
        func fail(_ place: String, _ problem: String) -> CommandFailure {
            CommandFailure("\(name): \(place) \(problem); nothing was imported (expected {\"sections\":[{\"title\":…,\"rows\":[{\"title\":…}]}]})")
        }
        guard case .object(let members) = root else { throw fail("the document", "is not a JSON object") }
        try refuseUnknown(members, allowed: ["sections"], place: "the document", fail)
        guard case .array(let sectionValues)? = root["sections"] else { throw fail("the document", "has no \"sections\" array") }
        return ListDocument(sections: try sectionValues.enumerated().map { index, value in
            let place = "sections[\(index)]"
            guard case .object(let members) = value else { throw fail(place, "is not an object") }
            try refuseUnknown(members, allowed: ["id", "title", "rows"], place: place, fail)
            let rowValues: [JSONValue]
            switch value["rows"] {
            case nil, .null?: rowValues = []
            case .array(let items)?: rowValues = items
            default: throw fail(place, "has \"rows\" that is not an array")
            }
            let rows = try rowValues.enumerated().map { rowIndex, rowValue in
                let rowPlace = "\(place).rows[\(rowIndex)]"
                guard case .object(let rowMembers) = rowValue else { throw fail(rowPlace, "is not an object") }
                try refuseUnknown(rowMembers, allowed: ["id", "title", "payload"], place: rowPlace, fail)
                let payload: String? = switch rowValue["payload"] {
                case nil, .null?: nil
                case let other?: other.serialized()
                }
                return ListDocument.Row(id: try id(rowValue, rowPlace, fail).map(RowID.init), title: try title(rowValue, rowPlace, fail), payload: payload)
            }
            return ListDocument.Section(id: try id(value, place, fail).map(SectionID.init), title: try title(value, place, fail), rows: rows)
        })
    }

    private static func refuseUnknown(_ members: [(String, JSONValue)], allowed: Set<String>, place: String,
                                      _ fail: (String, String) -> CommandFailure) throws {
        if let unknown = members.first(where: { !allowed.contains($0.0) }) {
            throw fail(place, "has an unknown member \(quoted(unknown.0)) (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    private static func title(_ value: JSONValue, _ place: String, _ fail: (String, String) -> CommandFailure) throws -> String {
        guard case .string(let title)? = value["title"] else { throw fail(place, "needs a \"title\" string") }
        return title
    }

    private static func id(_ value: JSONValue, _ place: String, _ fail: (String, String) -> CommandFailure) throws -> Int64? {
        switch value["id"] {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let id = Int64(text), id > 0 else { throw fail(place, "has an \"id\" that is not a positive whole number") }
            return id
        default: throw fail(place, "has an \"id\" that is not a number")
        }
    }
}
