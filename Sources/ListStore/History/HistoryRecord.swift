import Foundation

/// The declared on-disk format of `liststore_history.record` (TheFile.md, "The history record"). Every key
/// is written here as a literal, so renaming a Swift case or label never changes the file: a change of
/// format is a new ``version``.
///
/// Version 1 (schema 9): `{"steps":[{"kind":"rows-deleted","rows":[{"row":18,…}],"section":3}, …],"v":1}`;
/// a `rows-inserted` step holds every inserted row's id, title and payload.
/// Version 2: the same, except that a `rows-inserted` step of more than
/// ``HistoryCapture/insertValuesKept`` rows holds the rows' ids as runs and their ``RowDigest``:
/// `{"digest":"89ab…","ids":[[7,20]],"kind":"rows-inserted","section":3}` (one of fewer rows keeps
/// their values, as in version 1). ListStore writes version 2 and reads both, so entries already in
/// files still undo and redo.
enum HistoryRecord {
    /// The format version ListStore writes.
    static let version: Int64 = 2

    /// The record of `steps`, keys in sorted order. Written by hand rather than by `JSONEncoder`, which
    /// made a 1,000-row insert's transaction cost five times as much; decoding stays with `Decodable`
    /// (an undo reads one record).
    static func encode(_ steps: [HistoryStep]) throws -> String {
        var out = JSONBytes(capacity: 256)
        out.append("{\"steps\":[")
        for (index, step) in steps.enumerated() {
            if index > 0 { out.append(",") }
            write(step, to: &out)
        }
        out.append("],\"v\":")
        out.append(version)
        out.append("}")
        return out.text
    }

    /// The steps of a record; nil when `json` is not a record of a format ListStore reads (damaged or
    /// edited by hand).
    static func decode(_ json: String) -> [HistoryStep]? {
        try? JSONDecoder().decode(Record.self, from: Data(json.utf8)).steps
    }
}

/// The records' coding keys are string literals.
private typealias Key = LiteralCodingKey
private typealias RecordError = RecordFormatError

/// `{"v": 1 or 2, "steps": [step, …]}`.
private struct Record: Decodable {
    let steps: [HistoryStep]

    init(from decoder: any Decoder) throws {
        let record = try decoder.container(keyedBy: Key.self)
        let version = try record.decode(Int64.self, forKey: "v")
        switch version {
        case 1: steps = try record.decode([FormatOneStep].self, forKey: "steps").map(\.step)
        case 2: steps = try record.decode([Step].self, forKey: "steps").map(\.step)
        default: throw RecordError.unknownVersion(version)
        }
    }
}

/// A step of format 1: as in format 2 but for `rows-inserted`, which always holds the rows' values.
private struct FormatOneStep: Decodable {
    let step: HistoryStep

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        if try c.decode(String.self, forKey: "kind") == "rows-inserted" {
            step = .rowsInserted(section: try c.decode(Int64.self, forKey: "section"), rows: try c.decode([Row].self, forKey: "rows").map(\.row))
        } else {
            step = try Step(from: decoder).step
        }
    }
}

/// `{"id": …, "title": …, "payload": … or null}`.
private struct Row: Decodable {
    let row: HistoryRow

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        row = HistoryRow(
            id: try c.decode(Int64.self, forKey: "id"), title: try c.decode(String.self, forKey: "title"),
            payload: try c.decodeIfPresent(String.self, forKey: "payload"))
    }
}

/// `{"row": id, "title": …, "payload": … or null, "index": …, "after": id or null, "before": id or null}`.
private struct Deleted: Decodable {
    let row: DeletedRow

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        row = DeletedRow(
            row: HistoryRow(
                id: try c.decode(Int64.self, forKey: "row"), title: try c.decode(String.self, forKey: "title"),
                payload: try c.decodeIfPresent(String.self, forKey: "payload")),
            index: try c.decodedIndex("index"), after: try c.decodeIfPresent(Int64.self, forKey: "after"),
            before: try c.decodeIfPresent(Int64.self, forKey: "before"))
    }
}

/// `{"section": id, "title": …, "index": …, "after": id or null, "before": id or null, "rowCount": n}`.
private struct DeletedSectionRecord: Decodable {
    let section: DeletedSection

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        section = DeletedSection(
            id: try c.decode(Int64.self, forKey: "section"), title: try c.decode(String.self, forKey: "title"),
            index: try c.decodedIndex("index"), after: try c.decodeIfPresent(Int64.self, forKey: "after"),
            before: try c.decodeIfPresent(Int64.self, forKey: "before"), rowCount: try c.decode(Int64.self, forKey: "rowCount"))
    }
}

extension KeyedDecodingContainer where Key == LiteralCodingKey {
    /// An index (of a row or section) as ListStore writes it: never negative.
    fileprivate func decodedIndex(_ key: Key) throws -> Int {
        let value = try decode(Int.self, forKey: key)
        guard value >= 0 else { throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "a negative index") }
        return value
    }
}

/// One step: `{"kind": …, fields of that kind}`; a neighbour that is none is `null`.
private struct Step: Decodable {
    let step: HistoryStep

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let kind = try c.decode(String.self, forKey: "kind")
        switch kind {
        case "rows-inserted" where !c.contains("digest"):
            step = .rowsInserted(section: try c.decode(Int64.self, forKey: "section"), rows: try c.decode([Row].self, forKey: "rows").map(\.row))
        case "rows-inserted":
            let digest = try c.decode(String.self, forKey: "digest")
            guard let value = RowDigest.value(ofHex: digest) else {
                throw DecodingError.dataCorruptedError(forKey: "digest", in: c, debugDescription: "not 16 lowercase hexadecimal digits")
            }
            step = .rowsInsertedRuns(section: try c.decode(Int64.self, forKey: "section"), ids: try c.decode([[Int64]].self, forKey: "ids"), digest: value)
        case "rows-deleted":
            step = .rowsDeleted(section: try c.decode(Int64.self, forKey: "section"), rows: try c.decode([Deleted].self, forKey: "rows").map(\.row))
        case "row-moved":
            step = .rowMoved(
                id: try c.decode(Int64.self, forKey: "row"), fromSection: try c.decode(Int64.self, forKey: "fromSection"),
                fromIndex: try c.decodedIndex("fromIndex"), after: try c.decodeIfPresent(Int64.self, forKey: "after"),
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
                id: try c.decode(Int64.self, forKey: "section"), from: try c.decodedIndex("from"),
                after: try c.decodeIfPresent(Int64.self, forKey: "after"), before: try c.decodeIfPresent(Int64.self, forKey: "before"))
        case "section-renamed":
            step = .sectionRenamed(
                id: try c.decode(Int64.self, forKey: "section"), oldTitle: try c.decode(String.self, forKey: "oldTitle"),
                title: try c.decode(String.self, forKey: "title"))
        default:
            throw RecordError.unknownKind(kind)
        }
    }
}

// MARK: Writing

extension HistoryRecord {
    /// One step as its object, keys sorted (the order `JSONEncoder`'s `.sortedKeys` gives; the test of
    /// the format compares the bytes).
    fileprivate static func write(_ step: HistoryStep, to out: inout JSONBytes) {
        var object = ObjectWriter(&out)
        switch step {
        case .rowsInserted(let section, let rows):
            object.string("kind", "rows-inserted", &out)
            object.array("rows", rows, &out) { row, out in
                var item = ObjectWriter(&out)
                item.int("id", row.id, &out)
                item.string("payload", row.payload, &out)
                item.string("title", row.title, &out)
                item.finish(&out)
            }
            object.int("section", section, &out)
        case .rowsInsertedRuns(let section, let ids, let digest):
            writeInsertedRuns(section: section, ids: ids, digest: digest, to: &object, &out)
        case .rowsDeleted(let section, let rows):
            object.string("kind", "rows-deleted", &out)
            object.array("rows", rows, &out) { row, out in
                var item = ObjectWriter(&out)
                item.int("after", row.after, &out)
                item.int("before", row.before, &out)
                item.int("index", Int64(row.index), &out)
                item.string("payload", row.row.payload, &out)
                item.int("row", row.row.id, &out)
                item.string("title", row.row.title, &out)
                item.finish(&out)
            }
            object.int("section", section, &out)
        case .rowMoved(let id, let fromSection, let fromIndex, let after, let before, let toSection):
            object.int("after", after, &out)
            object.int("before", before, &out)
            object.int("fromIndex", Int64(fromIndex), &out)
            object.int("fromSection", fromSection, &out)
            object.string("kind", "row-moved", &out)
            object.int("row", id, &out)
            object.int("toSection", toSection, &out)
        case .rowUpdated(let id, let oldTitle, let oldPayload, let title, let payload):
            object.string("kind", "row-updated", &out)
            object.string("oldPayload", oldPayload, &out)
            object.string("oldTitle", oldTitle, &out)
            object.string("payload", payload, &out)
            object.int("row", id, &out)
            object.string("title", title, &out)
        case .sectionInserted(let id, let title, let rows):
            object.string("kind", "section-inserted", &out)
            object.array("rows", rows, &out) { run, out in writeNumbers(run, to: &out) }
            object.int("section", id, &out)
            object.string("title", title, &out)
        case .sectionsDeleted(let sections):
            object.string("kind", "sections-deleted", &out)
            object.array("sections", sections, &out) { section, out in
                var item = ObjectWriter(&out)
                item.int("after", section.after, &out)
                item.int("before", section.before, &out)
                item.int("index", Int64(section.index), &out)
                item.int("rowCount", section.rowCount, &out)
                item.int("section", section.id, &out)
                item.string("title", section.title, &out)
                item.finish(&out)
            }
        case .sectionMoved(let id, let from, let after, let before):
            object.int("after", after, &out)
            object.int("before", before, &out)
            object.int("from", Int64(from), &out)
            object.string("kind", "section-moved", &out)
            object.int("section", id, &out)
        case .sectionRenamed(let id, let oldTitle, let title):
            object.string("kind", "section-renamed", &out)
            object.string("oldTitle", oldTitle, &out)
            object.int("section", id, &out)
            object.string("title", title, &out)
        }
        object.finish(&out)
    }

    /// The members of format 2's `rows-inserted` step.
    private static func writeInsertedRuns(section: Int64, ids: [[Int64]], digest: UInt64, to object: inout ObjectWriter, _ out: inout JSONBytes) {
        object.string("digest", RowDigest.hex(digest), &out)
        object.array("ids", ids, &out) { run, out in writeNumbers(run, to: &out) }
        object.string("kind", "rows-inserted", &out)
        object.int("section", section, &out)
    }

    /// `[1,2,3]`.
    private static func writeNumbers(_ values: [Int64], to out: inout JSONBytes) {
        out.append("[")
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(",") }
            out.append(value)
        }
        out.append("]")
    }
}

/// Writes one JSON object into the text it is lent, member by member in the order given; nil as `null`.
private struct ObjectWriter {
    private var first = true

    init(_ out: inout JSONBytes) { out.append("{") }

    private mutating func key(_ name: StaticString, _ out: inout JSONBytes) {
        out.append(first ? "\"" : ",\"")
        first = false
        out.append(name)
        out.append("\":")
    }

    mutating func string(_ name: StaticString, _ value: String?, _ out: inout JSONBytes) {
        key(name, &out)
        guard let value else { return out.append("null") }
        CanonicalJSON.writeString(value, to: &out)
    }

    mutating func int(_ name: StaticString, _ value: Int64?, _ out: inout JSONBytes) {
        key(name, &out)
        out.append(value)
    }

    mutating func array<T>(_ name: StaticString, _ items: [T], _ out: inout JSONBytes, _ write: (T, inout JSONBytes) -> Void) {
        key(name, &out)
        out.append("[")
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(",") }
            write(item, &out)
        }
        out.append("]")
    }

    func finish(_ out: inout JSONBytes) { out.append("}") }
}
