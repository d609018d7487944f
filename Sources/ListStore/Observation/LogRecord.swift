import Foundation

/// The declared on-disk format of an `edits` entry's `events` column in `liststore_log` (TheFile.md, "The
/// change-log record"). Every key is written here as a literal, so renaming a Swift case or label never
/// changes the file: a change of format is a new ``version`` with a schema migration.
///
/// Version 3 (schema 8 on, several lists): `{"lists":[{"events":[event, …],"list":1}, …],"v":3}`, each
/// list's events in that list's coordinates, with `"arrivedRows"`/`"arrivedSections"` (ids moved in from
/// another list) when there are any; a `structure` entry's events are `{"lists":[1, …],"v":3}`, the lists it changed.
/// Version 2 (schema 6 and 7): `{"events":[{"kind":"rows-deleted","rows":[[2,1,18,3]]}, …],"v":2}`, read
/// as the default list's events (files before schema 8 hold one list).
/// Version 1 (schemas 3 to 5, no version field): the shape Swift's synthesized `Codable` gave the
/// events then, `[{"rowsDeleted":{"_0":[[2,1,18,3]]}}, …]`, still read by ``decode(_:)`` from files
/// migrated from those versions.
enum LogRecord {
    /// The format version ListStore writes.
    static let version: Int64 = 3
    /// The format before lists, still read.
    static let singleListVersion: Int64 = 2
    /// The list every record of a version before 3 belongs to: the default list, into which schema 8
    /// moved every section.
    static let defaultList: Int64 = 1

    /// The record of `events` in the current format, written by hand (``LogRecordWriter``).
    static func encode(_ events: ListedEvents) throws -> String {
        LogRecordWriter.record(events)
    }

    /// The same through `JSONEncoder`, as ListStore wrote it before ``LogRecordWriter`` (for the test
    /// that the two write the same bytes).
    static func encodeThroughJSONEncoder(_ events: ListedEvents) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(Listed(events)), as: UTF8.self)
    }

    /// The events of a record of any version ListStore wrote; nil when `json` is none (damaged or forged).
    static func decode(_ json: String) -> ListedEvents? {
        let data = Data(json.utf8)
        if let listed = try? JSONDecoder().decode(Listed.self, from: data) { return listed.events }
        if let single = try? JSONDecoder().decode(Current.self, from: data) { return ListedEvents(single.events, list: defaultList) }
        return (try? JSONDecoder().decode(Legacy.self, from: data)).map { ListedEvents($0.events, list: defaultList) }
    }

    /// The record of `events` in format 2, as schemas 6 and 7 wrote it (for tests of files from then).
    static func encodeVersion2(_ events: [EditEvent]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(Current(events: events)), as: UTF8.self)
    }

    /// A `structure` entry's events: the lists it changed.
    static func encodeStructure(lists: Set<Int64>) -> String {
        "{\"lists\":[\(lists.sorted().map(String.init).joined(separator: ","))],\"v\":\(version)}"
    }

    /// The lists a `structure` entry names; nil (every list) for an entry without them (a hand edit's, an
    /// older version's) or one that cannot be read.
    static func decodeStructure(_ json: String?) -> Set<Int64>? {
        guard let json, let record = try? JSONDecoder().decode(StructureRecord.self, from: Data(json.utf8)), record.v == version else { return nil }
        return Set(record.lists)
    }
}

/// The records' coding keys are string literals.
private typealias Key = LiteralCodingKey
private typealias RecordError = RecordFormatError

// MARK: Version 3

/// `{"v": 3, "lists": [{"list": id, "events": [event, …]}, …], "arrivedRows": [id, …], "arrivedSections": [id, …]}`.
private struct Listed: Codable {
    let events: ListedEvents

    init(_ events: ListedEvents) { self.events = events }

    init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Key.self)
        let version = try record.decode(Int64.self, forKey: "v")
        guard version == LogRecord.version else { throw RecordError.unknownVersion(version) }
        var lists: [Int64: [EditEvent]] = [:]
        for list in try record.decode([ListRecord].self, forKey: "lists") {
            guard lists[list.list] == nil else { throw RecordError.unknownKind("a list twice") }
            lists[list.list] = list.events
        }
        events = ListedEvents(
            lists: lists, arrivedRows: try record.decodeIfPresent([Int64].self, forKey: "arrivedRows") ?? [],
            arrivedSections: try record.decodeIfPresent([Int64].self, forKey: "arrivedSections") ?? [])
    }

    func encode(to encoder: any Encoder) throws {
        var record = encoder.container(keyedBy: Key.self)
        try record.encode(LogRecord.version, forKey: "v")
        try record.encode(events.lists.sorted { $0.key < $1.key }.map { ListRecord(list: $0.key, events: $0.value) }, forKey: "lists")
        if !events.arrivedRows.isEmpty { try record.encode(events.arrivedRows, forKey: "arrivedRows") }
        if !events.arrivedSections.isEmpty { try record.encode(events.arrivedSections, forKey: "arrivedSections") }
    }
}

/// `{"list": id, "events": [event, …]}`.
private struct ListRecord: Codable {
    let list: Int64
    let events: [EditEvent]

    init(list: Int64, events: [EditEvent]) {
        self.list = list
        self.events = events
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        list = try c.decode(Int64.self, forKey: "list")
        events = try c.decode([Event].self, forKey: "events").map(\.event)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(list, forKey: "list")
        try c.encode(events.map(Event.init), forKey: "events")
    }
}

/// `{"v": 3, "lists": [id, …]}`: the lists a `structure` entry changed.
private struct StructureRecord: Decodable {
    let v: Int64
    let lists: [Int64]
}

// MARK: Version 2

/// `{"v": 2, "events": [event, …]}`: read as the default list's events.
private struct Current: Codable {
    let events: [EditEvent]

    init(events: [EditEvent]) { self.events = events }

    init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Key.self)
        let version = try record.decode(Int64.self, forKey: "v")
        guard version == LogRecord.singleListVersion else { throw RecordError.unknownVersion(version) }
        events = try record.decode([Event].self, forKey: "events").map(\.event)
    }

    func encode(to encoder: any Encoder) throws {
        var record = encoder.container(keyedBy: Key.self)
        try record.encode(LogRecord.singleListVersion, forKey: "v")
        try record.encode(events.map(Event.init), forKey: "events")
    }
}

/// One event: `{"kind": …, fields of that kind}`. Index paths are `[section, row]`.
private struct Event: Codable {
    let event: EditEvent

    init(_ event: EditEvent) { self.event = event }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: "kind")
        switch kind {
        case "section-inserted":
            event = .sectionInserted(id: try c.decode(Int64.self, forKey: "section"), index: try c.decode(Int.self, forKey: "index"))
        case "sections-deleted":
            event = .sectionsDeleted(try c.decode([[Int64]].self, forKey: "sections"))
        case "section-moved":
            event = .sectionMoved(
                id: try c.decode(Int64.self, forKey: "section"), from: try c.decode(Int.self, forKey: "from"),
                to: try c.decode(Int.self, forKey: "to"))
        case "section-renamed":
            event = .sectionRenamed(
                id: try c.decode(Int64.self, forKey: "section"), index: try c.decode(Int.self, forKey: "index"),
                oldTitle: try c.decode(String.self, forKey: "oldTitle"))
        case "rows-inserted":
            event = .rowsInserted(
                ids: try c.decode([[Int64]].self, forKey: "ids"), section: try c.decode(Int64.self, forKey: "section"),
                sectionIndex: try c.decode(Int.self, forKey: "sectionIndex"), at: try c.decode(Int.self, forKey: "at"))
        case "section-restored":
            event = .sectionRestored(id: try c.decode(Int64.self, forKey: "section"), index: try c.decode(Int.self, forKey: "index"))
        case "rows-restored":
            event = .rowsRestored(
                ids: try c.decode([[Int64]].self, forKey: "ids"), section: try c.decode(Int64.self, forKey: "section"),
                sectionIndex: try c.decode(Int.self, forKey: "sectionIndex"), at: try c.decode(Int.self, forKey: "at"))
        case "rows-deleted":
            event = .rowsDeleted(try c.decode([[Int64]].self, forKey: "rows"))
        case "row-moved":
            event = .rowMoved(
                id: try c.decode(Int64.self, forKey: "row"), from: try Self.path(c, "from"), source: try c.decode(Int64.self, forKey: "fromSection"),
                to: try Self.path(c, "to"), target: try c.decode(Int64.self, forKey: "toSection"))
        case "row-updated":
            event = .rowUpdated(
                id: try c.decode(Int64.self, forKey: "row"), section: try c.decode(Int64.self, forKey: "section"),
                path: try Self.path(c, "path"), oldTitle: try c.decode(String.self, forKey: "oldTitle"),
                oldPayload: try c.decodeIfPresent(String.self, forKey: "oldPayload"))
        default:
            throw RecordError.unknownKind(kind)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch event {
        case .sectionInserted(let id, let index):
            try c.encode("section-inserted", forKey: "kind")
            try c.encode(id, forKey: "section")
            try c.encode(index, forKey: "index")
        case .sectionsDeleted(let pairs):
            try c.encode("sections-deleted", forKey: "kind")
            try c.encode(pairs, forKey: "sections")
        case .sectionMoved(let id, let from, let to):
            try c.encode("section-moved", forKey: "kind")
            try c.encode(id, forKey: "section")
            try c.encode(from, forKey: "from")
            try c.encode(to, forKey: "to")
        case .sectionRenamed(let id, let index, let oldTitle):
            try c.encode("section-renamed", forKey: "kind")
            try c.encode(id, forKey: "section")
            try c.encode(index, forKey: "index")
            try c.encode(oldTitle, forKey: "oldTitle")
        case .rowsInserted(let runs, let section, let sectionIndex, let at):
            try c.encode("rows-inserted", forKey: "kind")
            try c.encode(runs, forKey: "ids")
            try c.encode(section, forKey: "section")
            try c.encode(sectionIndex, forKey: "sectionIndex")
            try c.encode(at, forKey: "at")
        case .sectionRestored(let id, let index):
            try c.encode("section-restored", forKey: "kind")
            try c.encode(id, forKey: "section")
            try c.encode(index, forKey: "index")
        case .rowsRestored(let runs, let section, let sectionIndex, let at):
            try c.encode("rows-restored", forKey: "kind")
            try c.encode(runs, forKey: "ids")
            try c.encode(section, forKey: "section")
            try c.encode(sectionIndex, forKey: "sectionIndex")
            try c.encode(at, forKey: "at")
        case .rowsDeleted(let rows):
            try c.encode("rows-deleted", forKey: "kind")
            try c.encode(rows, forKey: "rows")
        case .rowMoved(let id, let from, let source, let to, let target):
            try c.encode("row-moved", forKey: "kind")
            try c.encode(id, forKey: "row")
            try c.encode([from.section, from.row], forKey: "from")
            try c.encode(source, forKey: "fromSection")
            try c.encode([to.section, to.row], forKey: "to")
            try c.encode(target, forKey: "toSection")
        case .rowUpdated(let id, let section, let path, let oldTitle, let oldPayload):
            try c.encode("row-updated", forKey: "kind")
            try c.encode(id, forKey: "row")
            try c.encode(section, forKey: "section")
            try c.encode([path.section, path.row], forKey: "path")
            try c.encode(oldTitle, forKey: "oldTitle")
            // Always present, null for none: the key says the field exists in this kind.
            if let oldPayload { try c.encode(oldPayload, forKey: "oldPayload") } else { try c.encodeNil(forKey: "oldPayload") }
        }
    }

    /// `[section, row]`.
    private static func path(_ c: KeyedDecodingContainer<Key>, _ key: Key) throws -> ListIndexPath {
        let pair = try c.decode([Int].self, forKey: key)
        guard pair.count == 2 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "an index path is [section, row]")
        }
        return ListIndexPath(section: pair[0], row: pair[1])
    }
}

// MARK: Version 1

/// `[{"<caseName>": {labels, or "_0" for an unlabelled value}}, …]`, index paths as `{"section":…,"row":…}`:
/// what schemas 3 to 5 wrote, spelled out here rather than left to a synthesized `Codable`.
private struct Legacy: Decodable {
    let events: [EditEvent]

    init(from decoder: any Decoder) throws {
        var list = try decoder.unkeyedContainer()
        var events: [EditEvent] = []
        while !list.isAtEnd { events.append(try list.decode(LegacyEvent.self).event) }
        self.events = events
    }
}

private struct LegacyEvent: Decodable {
    let event: EditEvent

    init(from decoder: any Decoder) throws {
        let outer = try decoder.container(keyedBy: Key.self)
        guard outer.allKeys.count == 1, let kind = outer.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: outer.codingPath, debugDescription: "one case per event"))
        }
        let c = try outer.nestedContainer(keyedBy: Key.self, forKey: kind)
        switch kind.stringValue {
        case "sectionInserted":
            event = .sectionInserted(id: try c.decode(Int64.self, forKey: "id"), index: try c.decode(Int.self, forKey: "index"))
        case "sectionsDeleted":
            event = .sectionsDeleted(try c.decode([[Int64]].self, forKey: "_0"))
        case "sectionMoved":
            event = .sectionMoved(
                id: try c.decode(Int64.self, forKey: "id"), from: try c.decode(Int.self, forKey: "from"),
                to: try c.decode(Int.self, forKey: "to"))
        case "sectionRenamed":
            event = .sectionRenamed(
                id: try c.decode(Int64.self, forKey: "id"), index: try c.decode(Int.self, forKey: "index"),
                oldTitle: try c.decode(String.self, forKey: "oldTitle"))
        case "rowsInserted":
            event = .rowsInserted(
                ids: try c.decode([[Int64]].self, forKey: "ids"), section: try c.decode(Int64.self, forKey: "section"),
                sectionIndex: try c.decode(Int.self, forKey: "sectionIndex"), at: try c.decode(Int.self, forKey: "at"))
        case "rowsDeleted":
            event = .rowsDeleted(try c.decode([[Int64]].self, forKey: "_0"))
        case "rowMoved":
            event = .rowMoved(
                id: try c.decode(Int64.self, forKey: "id"), from: try Self.path(c, "from"), source: try c.decode(Int64.self, forKey: "source"),
                to: try Self.path(c, "to"), target: try c.decode(Int64.self, forKey: "target"))
        case "rowUpdated":
            event = .rowUpdated(
                id: try c.decode(Int64.self, forKey: "id"), section: try c.decode(Int64.self, forKey: "section"),
                path: try Self.path(c, "path"), oldTitle: try c.decode(String.self, forKey: "oldTitle"),
                oldPayload: try c.decodeIfPresent(String.self, forKey: "oldPayload"))
        default:
            throw RecordError.unknownKind(kind.stringValue)
        }
    }

    /// `{"section": …, "row": …}`.
    private static func path(_ c: KeyedDecodingContainer<Key>, _ key: Key) throws -> ListIndexPath {
        let path = try c.nestedContainer(keyedBy: Key.self, forKey: key)
        return ListIndexPath(section: try path.decode(Int.self, forKey: "section"), row: try path.decode(Int.self, forKey: "row"))
    }
}
