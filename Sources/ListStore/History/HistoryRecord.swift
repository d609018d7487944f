import Foundation

/// The declared on-disk format of `liststore_history.record` (README, "The history record"). Every key
/// is written here as a literal, so renaming a Swift case or label never changes the file: a change of
/// format is a new ``version``.
///
/// Version 1 (schema 8 on): `{"steps":[{"kind":"rows-deleted","rows":[{"row":18,…}],"section":3}, …],"v":1}`.
enum HistoryRecord {
    /// The format version ListStore writes.
    static let version: Int64 = 1

    /// The record of `steps`.
    static func encode(_ steps: [HistoryStep]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(Record(steps: steps)), as: UTF8.self)
    }

    /// The steps of a record; nil when `json` is not a record of this format (damaged or edited by hand).
    static func decode(_ json: String) -> [HistoryStep]? {
        try? JSONDecoder().decode(Record.self, from: Data(json.utf8)).steps
    }
}

/// A coding key spelled as a string literal.
private struct Key: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init(stringLiteral value: String) { stringValue = value }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

private enum RecordError: Error {
    case unknownVersion(Int64)
    case unknownKind(String)
}

/// `{"v": 1, "steps": [step, …]}`.
private struct Record: Codable {
    let steps: [HistoryStep]

    init(steps: [HistoryStep]) { self.steps = steps }

    init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Key.self)
        let version = try record.decode(Int64.self, forKey: "v")
        guard version == HistoryRecord.version else { throw RecordError.unknownVersion(version) }
        steps = try record.decode([Step].self, forKey: "steps").map(\.step)
    }

    func encode(to encoder: any Encoder) throws {
        var record = encoder.container(keyedBy: Key.self)
        try record.encode(HistoryRecord.version, forKey: "v")
        try record.encode(steps.map(Step.init), forKey: "steps")
    }
}

/// `{"id": …, "title": …, "payload": … or null}`.
private struct Row: Codable {
    let row: HistoryRow

    init(_ row: HistoryRow) { self.row = row }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        row = HistoryRow(
            id: try c.decode(Int64.self, forKey: "id"), title: try c.decode(String.self, forKey: "title"),
            payload: try c.decodeIfPresent(String.self, forKey: "payload"))
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(row.id, forKey: "id")
        try c.encode(row.title, forKey: "title")
        try c.encodeOptional(row.payload, forKey: "payload")
    }
}

/// `{"row": id, "title": …, "payload": … or null, "index": …, "after": id or null, "before": id or null}`.
private struct Deleted: Codable {
    let row: DeletedRow

    init(_ row: DeletedRow) { self.row = row }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        row = DeletedRow(
            row: HistoryRow(
                id: try c.decode(Int64.self, forKey: "row"), title: try c.decode(String.self, forKey: "title"),
                payload: try c.decodeIfPresent(String.self, forKey: "payload")),
            index: try c.decode(Int.self, forKey: "index"), after: try c.decodeIfPresent(Int64.self, forKey: "after"),
            before: try c.decodeIfPresent(Int64.self, forKey: "before"))
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(row.row.id, forKey: "row")
        try c.encode(row.row.title, forKey: "title")
        try c.encodeOptional(row.row.payload, forKey: "payload")
        try c.encode(row.index, forKey: "index")
        try c.encodeOptional(row.after, forKey: "after")
        try c.encodeOptional(row.before, forKey: "before")
    }
}

/// `{"section": id, "title": …, "index": …, "after": id or null, "before": id or null, "rowCount": n}`.
private struct DeletedSectionRecord: Codable {
    let section: DeletedSection

    init(_ section: DeletedSection) { self.section = section }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        section = DeletedSection(
            id: try c.decode(Int64.self, forKey: "section"), title: try c.decode(String.self, forKey: "title"),
            index: try c.decode(Int.self, forKey: "index"), after: try c.decodeIfPresent(Int64.self, forKey: "after"),
            before: try c.decodeIfPresent(Int64.self, forKey: "before"), rowCount: try c.decode(Int64.self, forKey: "rowCount"))
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(section.id, forKey: "section")
        try c.encode(section.title, forKey: "title")
        try c.encode(section.index, forKey: "index")
        try c.encodeOptional(section.after, forKey: "after")
        try c.encodeOptional(section.before, forKey: "before")
        try c.encode(section.rowCount, forKey: "rowCount")
    }
}

/// One step: `{"kind": …, fields of that kind}`; a neighbour that is none is `null`.
private struct Step: Codable {
    let step: HistoryStep

    init(_ step: HistoryStep) { self.step = step }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: "kind")
        switch kind {
        case "rows-inserted":
            step = .rowsInserted(section: try c.decode(Int64.self, forKey: "section"), rows: try c.decode([Row].self, forKey: "rows").map(\.row))
        case "rows-deleted":
            step = .rowsDeleted(section: try c.decode(Int64.self, forKey: "section"), rows: try c.decode([Deleted].self, forKey: "rows").map(\.row))
        case "row-moved":
            step = .rowMoved(
                id: try c.decode(Int64.self, forKey: "row"), fromSection: try c.decode(Int64.self, forKey: "fromSection"),
                fromIndex: try c.decode(Int.self, forKey: "fromIndex"), after: try c.decodeIfPresent(Int64.self, forKey: "after"),
                before: try c.decodeIfPresent(Int64.self, forKey: "before"), toSection: try c.decode(Int64.self, forKey: "toSection"))
        case "row-updated":
            step = .rowUpdated(
                id: try c.decode(Int64.self, forKey: "row"), oldTitle: try c.decode(String.self, forKey: "oldTitle"),
                oldPayload: try c.decodeIfPresent(String.self, forKey: "oldPayload"), title: try c.decode(String.self, forKey: "title"),
                payload: try c.decodeIfPresent(String.self, forKey: "payload"))
        case "section-inserted":
            step = .sectionInserted(
                id: try c.decode(Int64.self, forKey: "section"), title: try c.decode(String.self, forKey: "title"),
                rows: try c.decode([[Int64]].self, forKey: "rows"))
        case "sections-deleted":
            step = .sectionsDeleted(try c.decode([DeletedSectionRecord].self, forKey: "sections").map(\.section))
        case "section-moved":
            step = .sectionMoved(
                id: try c.decode(Int64.self, forKey: "section"), from: try c.decode(Int.self, forKey: "from"),
                after: try c.decodeIfPresent(Int64.self, forKey: "after"), before: try c.decodeIfPresent(Int64.self, forKey: "before"))
        case "section-renamed":
            step = .sectionRenamed(
                id: try c.decode(Int64.self, forKey: "section"), oldTitle: try c.decode(String.self, forKey: "oldTitle"),
                title: try c.decode(String.self, forKey: "title"))
        default:
            throw RecordError.unknownKind(kind)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch step {
        case .rowsInserted(let section, let rows):
            try c.encode("rows-inserted", forKey: "kind")
            try c.encode(section, forKey: "section")
            try c.encode(rows.map(Row.init), forKey: "rows")
        case .rowsDeleted(let section, let rows):
            try c.encode("rows-deleted", forKey: "kind")
            try c.encode(section, forKey: "section")
            try c.encode(rows.map(Deleted.init), forKey: "rows")
        case .rowMoved(let id, let fromSection, let fromIndex, let after, let before, let toSection):
            try c.encode("row-moved", forKey: "kind")
            try c.encode(id, forKey: "row")
            try c.encode(fromSection, forKey: "fromSection")
            try c.encode(fromIndex, forKey: "fromIndex")
            try c.encodeOptional(after, forKey: "after")
            try c.encodeOptional(before, forKey: "before")
            try c.encode(toSection, forKey: "toSection")
        case .rowUpdated(let id, let oldTitle, let oldPayload, let title, let payload):
            try c.encode("row-updated", forKey: "kind")
            try c.encode(id, forKey: "row")
            try c.encode(oldTitle, forKey: "oldTitle")
            try c.encodeOptional(oldPayload, forKey: "oldPayload")
            try c.encode(title, forKey: "title")
            try c.encodeOptional(payload, forKey: "payload")
        case .sectionInserted(let id, let title, let rows):
            try c.encode("section-inserted", forKey: "kind")
            try c.encode(id, forKey: "section")
            try c.encode(title, forKey: "title")
            try c.encode(rows, forKey: "rows")
        case .sectionsDeleted(let sections):
            try c.encode("sections-deleted", forKey: "kind")
            try c.encode(sections.map(DeletedSectionRecord.init), forKey: "sections")
        case .sectionMoved(let id, let from, let after, let before):
            try c.encode("section-moved", forKey: "kind")
            try c.encode(id, forKey: "section")
            try c.encode(from, forKey: "from")
            try c.encodeOptional(after, forKey: "after")
            try c.encodeOptional(before, forKey: "before")
        case .sectionRenamed(let id, let oldTitle, let title):
            try c.encode("section-renamed", forKey: "kind")
            try c.encode(id, forKey: "section")
            try c.encode(oldTitle, forKey: "oldTitle")
            try c.encode(title, forKey: "title")
        }
    }
}

extension KeyedEncodingContainer where Key: CodingKey {
    /// The value, or `null`: the key is always present in its kind.
    fileprivate mutating func encodeOptional<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
}
