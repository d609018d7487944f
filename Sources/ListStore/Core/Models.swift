/// A row as stored: its identity, its title and an optional JSON payload (as JSON text).
public struct ListRow: Identifiable, Hashable, Sendable, Codable {
    /// The row's stable identity.
    public let id: RowID
    /// The text a table view cell shows.
    public var title: String
    /// Optional JSON text, exactly as it was stored; nil when the row has none.
    public var payload: String?

    /// A row value; rows are created by the store, which assigns `id`.
    public init(id: RowID, title: String, payload: String? = nil) {
        self.id = id
        self.title = title
        self.payload = payload
    }

    /// The keys of its JSON form, spelled out so that renaming a property never changes the format:
    /// `{"id":3,"title":"Canada","payload":"{\"pop\":38}"}` (`payload` left out when there is none).
    enum CodingKeys: String, CodingKey {
        case id, title, payload
    }
}

/// A section without its rows: identity, title and how many rows it holds.
public struct ListSection: Identifiable, Hashable, Sendable, Codable {
    /// The section's stable identity.
    public let id: SectionID
    /// The section header text.
    public var title: String
    /// The number of rows in the section.
    public var rowCount: Int

    /// A section value; sections are created by the store, which assigns `id`.
    public init(id: SectionID, title: String, rowCount: Int) {
        self.id = id
        self.title = title
        self.rowCount = rowCount
    }

    /// The keys of its JSON form, spelled out so that renaming a property never changes the format:
    /// `{"id":2,"title":"Countries","rowCount":8}`.
    enum CodingKeys: String, CodingKey {
        case id, title, rowCount
    }
}

/// A section with all of its rows, in order.
public struct SectionSnapshot: Identifiable, Hashable, Sendable, Codable {
    /// The section's stable identity.
    public let id: SectionID
    /// The section header text.
    public var title: String
    /// The rows, in display order.
    public var rows: [ListRow]

    /// A section with its rows.
    public init(id: SectionID, title: String, rows: [ListRow]) {
        self.id = id
        self.title = title
        self.rows = rows
    }
}

/// The whole store at one moment: every section and row in display order, read in one transaction.
public struct ListSnapshot: Hashable, Sendable, Codable {
    /// The sections, in display order.
    public var sections: [SectionSnapshot]
    /// The state this snapshot shows: read in the same transaction as the sections, and carried
    /// forward by ``apply(_:)``. Pass it to ``ListTransaction/asOf(_:)`` with index paths of what
    /// you drew from this snapshot. ``ListVersion/unversioned`` for a snapshot built by hand.
    public var version: ListVersion

    /// A snapshot of `sections` at `version` (none for a snapshot built by hand).
    public init(sections: [SectionSnapshot], version: ListVersion = .unversioned) {
        self.sections = sections
        self.version = version
    }

    private enum CodingKeys: String, CodingKey { case sections, version }

    /// Whether `lhs` and `rhs` show the same sections and rows. Their versions are not compared: a
    /// commit that changes nothing a snapshot shows (a title set by hand to what it was) makes a new
    /// version of the same state, and observers are sent no change set for it.
    public static func == (lhs: ListSnapshot, rhs: ListSnapshot) -> Bool { lhs.sections == rhs.sections }

    /// Hashes the sections and rows (not the version, as ``==(_:_:)``).
    public func hash(into hasher: inout Hasher) { hasher.combine(sections) }

    /// Decodes `{"sections": […], "version": N}`; a document without a version is ``ListVersion/unversioned``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sections = try container.decode([SectionSnapshot].self, forKey: .sections)
        version = try container.decodeIfPresent(ListVersion.self, forKey: .version) ?? .unversioned
    }

    /// The row at `indexPath`, or nil when it is out of range.
    public subscript(indexPath: ListIndexPath) -> ListRow? {
        guard sections.indices.contains(indexPath.section),
            sections[indexPath.section].rows.indices.contains(indexPath.row)
        else { return nil }
        return sections[indexPath.section].rows[indexPath.row]
    }

    /// The total number of rows in all sections.
    public var rowCount: Int { sections.reduce(0) { $0 + $1.rows.count } }
}

/// What an insert accepts as a row: a ``NewRow``, or a `String` for a row with that title and no payload.
public protocol NewRowConvertible {
    /// The row to insert.
    var newRow: NewRow { get }
}

extension String: NewRowConvertible {
    /// A row with this title and no payload.
    public var newRow: NewRow { NewRow(title: self) }
}

/// A row to be inserted: the store assigns its id and position.
public struct NewRow: Hashable, Sendable, ExpressibleByStringLiteral, NewRowConvertible {
    /// Itself.
    public var newRow: NewRow { self }

    /// The row's title; must not be empty or contain NUL characters.
    public var title: String
    /// Optional JSON text; must be valid JSON.
    public var payload: String?

    /// A new row with `title` and an optional JSON `payload`.
    public init(title: String, payload: String? = nil) {
        self.title = title
        self.payload = payload
    }

    /// A new row with this title and no payload.
    public init(stringLiteral title: String) { self.init(title: title) }
}

/// What an update does to a row's payload.
public enum PayloadUpdate: Hashable, Sendable {
    /// Leave the payload as it is.
    case unchanged
    /// Replace it with this JSON text.
    case set(String)
    /// Remove it.
    case remove
}
