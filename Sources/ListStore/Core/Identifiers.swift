/// What a ``StableID`` names: rows or sections. Only its name differs, for messages.
public protocol IdentifiedEntity: Sendable {
    /// The noun in messages, e.g. "row".
    static var noun: String { get }
}

/// Rows, as the kind of a ``RowID``.
public enum RowEntity: IdentifiedEntity {
    /// "row".
    public static let noun = "row"
}

/// Sections, as the kind of a ``SectionID``.
public enum SectionEntity: IdentifiedEntity {
    /// "section".
    public static let noun = "section"
}

/// The stable identity of a row or section: it never changes when the entity moves and is never reused
/// after it is deleted, so it is the way to find it again (a selection, a detail screen, a diffable
/// data source's item identifier). Row and section ids are different types, so one cannot be passed for the other.
public struct StableID<Entity: IdentifiedEntity>: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The `id` value in the database (`rows.id` or `sections.id`).
    public let rawValue: Int64
    /// Wraps an `id` value from the database.
    public init(rawValue: Int64) { self.rawValue = rawValue }
    /// Ordered by the raw id, which is the order of creation.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    /// `row #12`, `section #3`.
    public var description: String { "\(Entity.noun) #\(rawValue)" }
    /// Decodes the bare number.
    public init(from decoder: any Decoder) throws { rawValue = try Int64(from: decoder) }
    /// Encodes the bare number.
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
}

/// The stable identity of a row.
public typealias RowID = StableID<RowEntity>

/// The stable identity of a section.
public typealias SectionID = StableID<SectionEntity>

/// Where a row is shown: its section's index and its index within that section, both zero-based.
///
/// Foundation's `IndexPath` has no `section`/`row` outside Apple platforms, hence this type.
/// Its text form is `S:R` (section 0, row 1 is `0:1`), as the CLI prints and parses it.
public struct ListIndexPath: Hashable, Comparable, Sendable, Codable, LosslessStringConvertible {
    /// The zero-based section index.
    public var section: Int
    /// The zero-based row index within the section.
    public var row: Int

    /// An index path for `row` in `section`.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// Parses `S:R` with two non-negative decimal numbers and nothing else; nil otherwise.
    public init?(_ description: String) {
        let parts = description.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let section = DecimalInteger.parse(parts[0]),
            let row = DecimalInteger.parse(parts[1])
        else { return nil }
        self.init(section: section, row: row)
    }

    /// The row index ``ListStore/scan(_:)`` reports for a row no index names: one a hand edit left
    /// outside the rows its block counts (`liststore check` reports it; `repair` counts it again).
    public static let noRow = Int.min

    /// `S:R`, e.g. `0:1`; `S:?` for a row no index names (``noRow``).
    public var description: String { row == Self.noRow ? "\(section):?" : "\(section):\(row)" }

    /// A table view's order, top to bottom: by section, then row.
    public static func < (lhs: ListIndexPath, rhs: ListIndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }
}
