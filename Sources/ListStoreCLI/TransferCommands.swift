import Foundation
import ListStore

/// `export` and `import`.
enum TransferCommands {
    /// Imports with at least this many rows show progress on a terminal's standard error.
    static let progressThreshold = 5_000

    /// `export`'s FILE (or `-`).
    static let exportDestination = OptionalArgument("FILE|-")
    /// `import`'s FILE (or `-`).
    static let importSource = Argument("FILE|-")
    static let replace = Flag("--replace", help: "replace the current contents")
    /// `export --all` and `import --all`: every list of the file, in the lists document (format 2).
    static let all = Flag("--all", help: "every list of the file (the lists document, format 2), not only the --list list")

    @Sendable static func export(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        // `-` is standard output, as `import -` is standard input.
        let everyList = command[all]
        guard let destination = command[exportDestination], destination != "-" else {
            let store = try context.openForReading()
            try writeExport(of: store, everyList: everyList, to: context.write)
            return .streamed
        }
        // A symbolic link is written through, to the file it points to (as the shell's `>` does); the
        // link itself stays.
        let target = try ExportDestination.followingLinks(destination, context)
        let targetFile = context.file(target)
        try ExportDestination.refuseDatabase(targetFile, destination: destination, database: context.databaseFile, context)
        let store = try context.openForReading()
        let folder = CommandContext.folder(of: target)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: context.file(folder), isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure("cannot write \(destination): the folder \(folder) does not exist; create it first")
        }
        if FileManager.default.fileExists(atPath: targetFile, isDirectory: &isFolder), isFolder.boolValue {
            throw CommandFailure("cannot write \(destination): it is a folder; pass a file path such as \(destination)/export.json")
        }
        try ExportDestination.refuseSpecialFile(targetFile, destination: destination)
        try ExportDestination.refuseReadOnly(targetFile, destination: destination)
        // Written beside the destination, then renamed over it: a reader never sees half a document, and
        // on any failure the temporary file goes and the destination is as it was.
        let temporary = ExportDestination.temporaryPath(for: targetFile, in: context.file(folder))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw ExportDestination.failure(errno, destination: destination, creatingIn: folder) }
        var isOpen = true
        let counts: StoreCounts
        do {
            let writer = DescriptorWriter(descriptor: descriptor)
            counts = try writeExport(of: store, everyList: everyList) { text in
                do { try writer.write(text) } catch let failure as DescriptorWriter.Failure {
                    throw ExportDestination.failure(failure.code, destination: destination)
                }
            }
            guard fsync(descriptor) == 0 else { throw ExportDestination.failure(errno, destination: destination) }
            isOpen = false
            guard close(descriptor) == 0 else { throw ExportDestination.failure(errno, destination: destination) }
            ExportDestination.keepPermissions(of: targetFile, on: temporary)
            guard rename(temporary, targetFile) == 0 else { throw ExportDestination.failure(errno, destination: destination) }
        } catch {
            if isOpen { close(descriptor) }
            unlink(temporary)
            throw error
        }
        let through = target == destination ? "" : " (through the link, to \(target))"
        return CommandOutput(
            human: "exported \(counts.text) to \(destination)\(through)",
            json: .object([("exported", .string(destination)), ("file", .string(target)), ("counts", counts.json)]))
    }

    /// Writes the whole store as one JSON document plus a newline, in pieces of about 64 KB, reading it
    /// with a scan so that no store is too big to export. With `indexPaths` (`show --json`) every section
    /// has its `"index"` and every row its `"path"`, as the scan reads them — with gaps, after hand edits,
    /// exactly the ones edits act on; without (`export`, the import document) neither.
    /// `show --json` (`indexPaths`) ends with the `"version"` of the state it read (``ListVersion``).
    @discardableResult
    static func writeDocument(of store: ListStore, indexPaths: Bool = false, to write: (String) throws -> Void) throws -> StoreCounts {
        try withoutActuallyEscaping(write) { write in try writeDocument(scanning: store.scan, indexPaths: indexPaths, to: write) }
    }

    /// The export document: of the store's list (format 1, `{"sections":[…]}`, what every version wrote), or
    /// with `everyList` of every list of the file (format 2: `{"format":2,"lists":[{"name":…,"sections":[…]}, …]}`,
    /// the lists in order), each list read in its own read transaction, in constant memory.
    @discardableResult
    static func writeExport(of store: ListStore, everyList: Bool, to write: (String) throws -> Void) throws -> StoreCounts {
        guard everyList else { return try writeDocument(of: store, to: write) }
        try write("{\"format\":\(listsFormat),\"lists\":[")
        var total = StoreCounts(sections: 0, rows: 0)
        for (index, list) in try store.lists().enumerated() {
            let handle = try store.list(named: list.name)
            let opening = (index == 0 ? "" : ",") + "{\"name\":" + JSONValue.string(list.name).serialized() + ",\"sections\":["
            let counts = try withoutActuallyEscaping(write) { write in
                try writeDocument(scanning: handle.scan, opening: opening, closing: "}", to: write)
            }
            total = StoreCounts(sections: total.sections + counts.sections, rows: total.rows + counts.rows)
        }
        try write("]}\n")
        return total
    }

    /// The `"format"` of the lists document (`export --all`); a document without one is format 1, one list.
    static let listsFormat = 2

    /// ``writeDocument(of:indexPaths:to:)`` of the state `scan` visits (`watch --json`'s first document:
    /// the state its observation starts from).
    @discardableResult
    static func writeDocument(
        scanning scan: ((ScannedItem) throws -> Void) throws -> ListVersion, indexPaths: Bool = false, opening: String = "{\"sections\":[",
        closing: String = "}\n", to write: @escaping (String) throws -> Void
    ) throws -> StoreCounts {
        var buffer = opening
        var sections = 0
        var rows = 0
        var rowsInSection = 0
        func flushIfLarge() throws {
            if buffer.utf8.count >= 65_536 {
                try write(buffer)
                buffer = ""
            }
        }
        // Commas follow what was written, not the index paths: on a file damaged by hand those have gaps.
        let version = try scan { item in
            switch item {
            case .section(let index, let id, let title, _):
                buffer +=
                    (sections == 0 ? "" : "]},") + (indexPaths ? "{\"index\":\(index)," : "{")
                    + "\"id\":\(id.rawValue),\"title\":" + JSONValue.string(title).serialized() + ",\"rows\":["
                sections += 1
                rowsInSection = 0
            case .row(let path, let row):
                buffer += (rowsInSection == 0 ? "" : ",") + JSONShapes.row(row, at: indexPaths ? path : nil).serialized()
                rows += 1
                rowsInSection += 1
            }
            try flushIfLarge()
        }
        let versionMember = indexPaths && version.isVersioned ? ",\"version\":\(version.rawValue)" : ""
        buffer += (sections == 0 ? "" : "]}") + "]" + versionMember + closing
        try write(buffer)
        return StoreCounts(sections: sections, rows: rows)
    }

    /// Holds the document's bytes once (it is checked whole before the store is opened, then loaded) and,
    /// without `--json`, nothing of what it wrote: memory is the document's size plus a constant.
    @Sendable static func importDocument(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let source = command[importSource]
        let name = source == "-" ? "standard input" : source
        let document = try DocumentReader.bytes(of: try source == "-" ? [UInt8](context.environment.readStandardInput()) : readFile(source, context), name: name)
        if command[all] { return try importLists(document, name: name, command, context) }
        // The whole document is checked before the store is opened: a bad one never creates a file.
        let total = try DocumentReader.check(document, name: name).rows
        // The document is held whole, so the import can run again on a file another process created meanwhile.
        return try context.withStoreForWriting { store in
            try importDocument(document, name: name, rows: total, into: store, command, context)
        }
    }

    private static func importDocument(
        _ document: [UInt8], name: String, rows total: Int, into store: ListStore, _ command: ParsedCommand, _ context: CommandContext
    ) throws -> CommandOutput {
        let showProgress = context.environment.standardErrorIsTerminal && total >= progressThreshold
        let write = context.environment.writeProgress
        var replaced = 0
        var imported = 0
        // Without --json no change set is printed, so none is built (it would hold every row imported).
        let changes = try store.importStream(replacing: command[replace], tracksChanges: context.json) { importer in
            try DocumentReader.feed(document, name: name, into: importer) { written in
                if showProgress && (written % 1_000 == 0 || written == total) { write("\rimporting: \(written)/\(total) rows") }
            }
            (replaced, imported) = (importer.sectionsReplaced, importer.sectionsWritten)
        }
        if showProgress { write("\n") }
        guard context.json else {
            let lines = [
                HumanText.line("deleted", "section", (0..<replaced).map(String.init)),
                HumanText.line("inserted", "section", (0..<imported).map(String.init)),
            ].compactMap { $0 }
            return CommandOutput(
                human: (lines.isEmpty ? "nothing changed" : lines.joined(separator: "\n")) + "\nnow " + (try StoreCounts(store)).text,
                json: .null)
        }
        return try mutationOutput(changes, store)
    }

    /// `import --all`: a lists document (format 2, as `export --all` writes it) loaded into the lists of
    /// those names — made when the file has none, each else empty unless `--replace` — in one
    /// transaction. The document is walked, not built in memory: its lists are found first (each list's
    /// sections by where they start in the document), each list's sections are checked as a document of
    /// its own before the store is opened, then fed to the import from there. Memory is the document's
    /// bytes, held once, plus a constant, as for one list.
    private static func importLists(_ document: [UInt8], name: String, _ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let lists = try ListsDocumentReader.lists(in: document, name: name)
        let names = lists.map(\.name)
        for list in lists { _ = try DocumentReader.check(document, name: "\(name), list \(quoted(list.name))", sectionsAt: list.sectionsAt) }
        let counts = try context.withStoreForWriting { store -> [ListSummary] in
            // Named here; the import checks again under the write lock (as storeNotEmpty).
            if !command[replace], let busy = try store.lists().first(where: { list in list.sectionCount > 0 && names.contains { ListStore.sameListName($0, list.name) } }) {
                throw CommandFailure(
                    "cannot import \(name): list \(quoted(busy.name)) is not empty (\(StoreCounts(sections: busy.sectionCount, rows: busy.rowCount).text)); pass --replace to replace the lists the document names; nothing was imported"
                )
            }
            do {
                try store.importLists(named: names, replacing: command[replace]) { index, importer in
                    try DocumentReader.feed(document, name: "\(name), list \(quoted(names[index]))", sectionsAt: lists[index].sectionsAt, into: importer) { _ in }
                }
            } catch let error as ListStoreError {
                guard case .invalidListName(let listName, let reason) = error.reason else { throw error }
                throw CommandFailure("\(name): the list name \(quoted(listName)) is not allowed: \(reason); nothing was imported")
            }
            return try store.lists()
        }
        let imported = counts.filter { list in names.contains { ListStore.sameListName($0, list.name) } }
        return CommandOutput(
            human: imported.isEmpty
                ? "imported no list: the document names none"
                : "imported " + imported.map { "\(quoted($0.name)): \(StoreCounts(sections: $0.sectionCount, rows: $0.rowCount).text)" }.joined(separator: "; "),
            json: .object([
                ("lists", .array(imported.map { .object([("name", .string($0.name)), ("sections", .int($0.sectionCount)), ("rows", .int($0.rowCount))]) }))
            ]))
    }

    /// The contents of an import file, read within ``InputLimits`` (a FIFO or device may never end);
    /// a regular file is read into a buffer of its size, so its bytes are held once.
    private static func readFile(_ source: String, _ context: CommandContext) throws -> [UInt8] {
        let path = context.file(source)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw CommandFailure("cannot read \(source): no such file; pass the path of a JSON document, or - for standard input")
        }
        guard !isDirectory.boolValue, let file = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure("cannot read \(source): it is a folder or not readable; pass the path of a JSON document")
        }
        defer { try? file.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
        if size > InputLimits.maximumInput { throw InputLimits.tooLarge(source, "nothing was imported") }
        return BoundedReader.readBytes(descriptor: file.fileDescriptor, expected: size)
    }
}

/// Reads an import document: `{"sections":[{"id"?,"title","rows"?:[{"id"?,"title","payload"?}]}]}`.
/// Unknown and repeated members are refused, so a misspelt or doubled key is not silently dropped. The
/// document is walked, not built in memory. Titles are checked (with where they are) before the store
/// is opened; payloads are kept as written, less the whitespace between tokens (see ``JSONText``).
enum DocumentReader {
    /// The document's bytes (without a UTF-8 byte order mark), or an error when they are not UTF-8 text
    /// or longer than ``InputLimits/maximumInput``. Takes the bytes over without copying them.
    static func bytes(of data: consuming [UInt8], name: String) throws -> [UInt8] {
        var bytes = data
        guard bytes.count <= InputLimits.maximumInput else { throw InputLimits.tooLarge(name, "nothing was imported") }
        if bytes.starts(with: ByteOrderMark.bytes) { bytes.removeFirst(ByteOrderMark.bytes.count) }
        if let nul = ByteSearch.firstIndex(of: 0, in: bytes[...]) {
            throw CommandFailure("\(name) has a NUL byte at byte \(nul): it is not a JSON document; nothing was imported")
        }
        guard isUTF8(bytes) else { throw CommandFailure("\(name) is not valid UTF-8 text; nothing was imported") }
        return bytes
    }

    /// Whether `bytes` are UTF-8, checked a megabyte at a time so that no copy of the whole is made.
    private static func isUTF8(_ bytes: [UInt8]) -> Bool {
        var start = 0
        while start < bytes.count {
            var end = min(start + (1 << 20), bytes.count)
            // Cut before a character's continuation bytes (10xxxxxx): a character has at most 3. (More
            // in a row is not UTF-8, and the piece after the cut, starting with one, says so.)
            var backed = 0
            while end < bytes.count, backed < 3, bytes[end] & 0xC0 == 0x80 {
                end -= 1
                backed += 1
            }
            guard String(strictUTF8: bytes[start..<end]) != nil else { return false }
            start = end
        }
        return true
    }

    /// Checks the whole document (payload depths included) and counts its sections and rows, keeping
    /// nothing. With `sectionsAt`, checks instead the `"sections"` array that starts at that byte of
    /// `bytes` (one list of a lists document, ``ListsDocumentReader``) and nothing around it.
    static func check(_ bytes: [UInt8], name: String, sectionsAt start: Int? = nil) throws -> StoreCounts {
        var sections = 0
        var rows = 0
        try walk(
            bytes, name: name, sectionsAt: start, section: { _, _ in sections += 1 },
            row: { _, _, payload in
                if let payload { try ListStore.checkPayloadDepth(payload) }
                rows += 1
            })
        return StoreCounts(sections: sections, rows: rows)
    }

    /// Hands every section and row to `importer`, calling `progress` with the rows written so far (of
    /// the `"sections"` array at byte `sectionsAt` only, when given, as ``check(_:name:sectionsAt:)``).
    static func feed(_ bytes: [UInt8], name: String, sectionsAt start: Int? = nil, into importer: ListImporter, progress: (Int) -> Void) throws {
        try walk(
            bytes, name: name, sectionsAt: start,
            section: { id, title in try importer.addSection(id: id.map(SectionID.init), title: title) },
            row: { id, title, payload in
                try importer.addRow(id: id.map(RowID.init), title: title, payload: payload)
                progress(importer.rowsWritten)
            })
    }

    private typealias Failing = (_ place: String, _ problem: String) -> CommandFailure

    private static func walk(
        _ bytes: [UInt8], name: String, sectionsAt start: Int?, section: (Int64?, String) throws -> Void,
        row: (Int64?, String, String?) throws -> Void
    ) throws {
        func fail(_ place: String, _ problem: String) -> CommandFailure {
            CommandFailure("\(name): \(place) \(problem); nothing was imported (expected {\"sections\":[{\"title\":…,\"rows\":[{\"title\":…}]}]})")
        }
        var parser = JSONParser(bytes: bytes)
        do {
            if let start {
                parser.position = start
                return try walkSections(&parser, name: name, fail, section, row)
            }
            parser.skipWhitespace()
            guard parser.atObject else { throw try syntaxFirst(&parser, depth: 0, fail("the document", "is not a JSON object")) }
            var sawSections = false
            try parser.forEachMember(depth: 0) { key, parser in
                if key == "version" {
                    // The version of the state `show --json` printed: ignored, as its indexes and paths are.
                    guard case .number = try parser.value(depth: 1) else { throw fail("the document", "has a \"version\" that is not a number (it is ignored, but must be one)") }
                    return
                }
                if key == "format" || key == "lists" {
                    throw CommandFailure("\(name) is a document of every list (as `export --all` writes it): import it with `liststore import --all`; nothing was imported")
                }
                guard key == "sections" else { throw fail("the document", "has an unknown member \(quoted(key)) (allowed: sections, version)") }
                guard !sawSections else { throw fail("the document", "has \"sections\" twice") }
                sawSections = true
                try walkSections(&parser, name: name, fail, section, row)
            }
            guard sawSections else { throw fail("the document", "has no \"sections\" array") }
            try parser.expectEnd()
        } catch let error as JSONSyntaxError {
            throw CommandFailure("\(name) is not valid JSON: \(error.reason) at byte \(error.offset); nothing was imported")
        }
    }

    /// The `"sections"` array that starts where `parser` is: each section, then its rows, as they stand.
    private static func walkSections(
        _ parser: inout JSONParser, name: String, _ fail: Failing, _ section: (Int64?, String) throws -> Void,
        _ row: (Int64?, String, String?) throws -> Void
    ) throws {
        var index = 0
        guard parser.atArray else { throw try syntaxFirst(&parser, depth: 1, fail("the document", "has \"sections\" that is not an array")) }
        try parser.forEachElement(depth: 1) { parser in
            try readSection(&parser, place: "sections[\(index)]", name: name, fail, section, row)
            index += 1
        }
    }

    /// One section object; its rows are read where they stand when the title came first, else afterwards.
    private static func readSection(
        _ parser: inout JSONParser, place: String, name: String, _ fail: Failing,
        _ section: (Int64?, String) throws -> Void, _ row: (Int64?, String, String?) throws -> Void
    ) throws {
        guard parser.atObject else { throw try syntaxFirst(&parser, depth: 2, fail(place, "is not an object")) }
        var id: Int64?
        var title: String?
        var deferredRows: Int?
        var reported = false
        var seen = Set<String>()
        func report() throws {
            guard !reported, let title else { return }
            try placing(place, name) { try section(id, title) }
            reported = true
        }
        try parser.forEachMember(depth: 2) { key, parser in
            guard seen.insert(key).inserted else { throw fail(place, "has \(quoted(key)) twice") }
            switch key {
            case "id": id = try readID(parser.value(depth: 3), place, fail)
            case "index": try skipPosition(&parser, "index", depth: 3, place, fail)
            case "title": title = try readTitle(&parser, depth: 3, place, fail)
            case "rows":
                if title != nil && !reported {
                    try report()
                    try readRows(&parser, place: place, name: name, fail, row)
                } else {
                    deferredRows = parser.position
                    try parser.skipValueAsPayloads()
                }
            default:
                throw fail(place, "has an unknown member \(quoted(key)) (allowed: id, index, rows, title)")
            }
        }
        guard title != nil else { throw fail(place, "needs a \"title\" string") }
        try report()
        if let deferredRows {
            var rowsParser = parser
            rowsParser.position = deferredRows
            try readRows(&rowsParser, place: place, name: name, fail, row)
        }
    }

    private static func readRows(
        _ parser: inout JSONParser, place: String, name: String, _ fail: Failing,
        _ row: (Int64?, String, String?) throws -> Void
    ) throws {
        if parser.atNull {
            _ = try parser.value(depth: 3)
            return
        }
        guard parser.atArray else { throw try syntaxFirst(&parser, depth: 3, fail(place, "has \"rows\" that is not an array")) }
        var index = 0
        try parser.forEachElement(depth: 3) { parser in
            func rowPlace() -> String { "\(place).rows[\(index)]" }  // only built for an error message
            guard parser.atObject else { throw try syntaxFirst(&parser, depth: 4, fail(rowPlace(), "is not an object")) }
            var title: String?
            var id: JSONValue?
            var payload: String?
            var seen: UInt8 = 0  // bits: title, id, payload, path
            func once(_ bit: UInt8, _ key: String) throws {
                guard seen & bit == 0 else { throw fail(rowPlace(), "has \(quoted(key)) twice") }
                seen |= bit
            }
            try parser.forEachMember(depth: 4) { key, parser in
                switch key {
                case "title":
                    try once(1, key)
                    title = try readTitle(&parser, depth: 5, rowPlace(), fail)
                case "id":
                    try once(2, key)
                    id = try parser.value(depth: 5)
                case "path":
                    try once(8, key)
                    try skipPosition(&parser, "path", depth: 5, rowPlace(), fail)
                case "payload":
                    try once(4, key)
                    if parser.atNull {
                        _ = try parser.value(depth: 5)
                    } else {
                        let start = parser.position
                        payload = try parser.compactValue()
                        if parser.position - start > InputLimits.maximumPiece {
                            throw fail(rowPlace(), "has a \"payload\" longer than \(InputLimits.text(InputLimits.maximumPiece)), the most liststore reads")
                        }
                    }
                default:
                    throw fail(rowPlace(), "has an unknown member \(quoted(key)) (allowed: id, path, payload, title)")
                }
            }
            guard let title else { throw fail(rowPlace(), "needs a \"title\" string") }
            let rowID = try readID(id, rowPlace(), fail)
            try placing(rowPlace(), name) { try row(rowID, title, payload) }
            index += 1
        }
    }

    /// A section's `"index"` (a number) or a row's `"path"` (an array), as `show --json` prints them:
    /// ignored — the document's order is the order imported, renumbered from 0 — so that such a
    /// document imports as it is.
    private static func skipPosition(_ parser: inout JSONParser, _ key: String, depth: Int, _ place: @autoclosure () -> String, _ fail: Failing) throws {
        switch (key, try parser.value(depth: depth)) {
        case ("index", .number), ("path", .array): return
        default: throw fail(place(), "has \(key == "index" ? "an" : "a") \"\(key)\" that is not \(key == "index" ? "a number" : "an array") (it is ignored, but must be one)")
        }
    }

    /// A title, refused here — with where it is — when the store would refuse it.
    private static func readTitle(_ parser: inout JSONParser, depth: Int, _ place: @autoclosure () -> String, _ fail: Failing) throws -> String {
        guard case .string(let title) = try parser.value(depth: depth) else { throw fail(place(), "needs a \"title\" string") }
        if title.isEmpty { throw fail(place(), "has an empty \"title\" (a title cannot be empty)") }
        if ByteSearch.contains(0, in: title) { throw fail(place(), "has a \"title\" with a NUL character (\\u0000), which a title cannot contain") }
        if title.utf8.count > InputLimits.maximumPiece {
            throw fail(place(), "has a \"title\" longer than \(InputLimits.text(InputLimits.maximumPiece)), the most liststore reads")
        }
        return title
    }

    /// Runs `body`, naming `place` in a store error it throws (a repeated id, a payload SQLite refuses).
    private static func placing(_ place: String, _ name: String, _ body: () throws -> Void) throws {
        do { try body() } catch let error as ListStoreError {
            throw CommandFailure("\(name): \(place): \(error); nothing was imported")
        }
    }

    /// `shapeError`, unless the value here is not even valid JSON: that is reported first.
    private static func syntaxFirst(_ parser: inout JSONParser, depth: Int, _ shapeError: CommandFailure) throws -> CommandFailure {
        try parser.skipValue(depth: depth)
        return shapeError
    }

    private static func readID(_ value: JSONValue?, _ place: @autoclosure () -> String, _ fail: Failing) throws -> Int64? {
        switch value {
        case nil, .null?: return nil
        case .number(let text)?:
            guard let id = Int64(text), id > 0 else { throw fail(place(), "has an \"id\" that is not a positive whole number") }
            return id
        default: throw fail(place(), "has an \"id\" that is not a number")
        }
    }
}
