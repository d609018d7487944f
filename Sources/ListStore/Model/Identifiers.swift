/// The stable identity of a row. It never changes when the row moves and is never reused after
/// the row is deleted, so it is the way to find a row again (a selection, a detail screen).
public struct RowID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The `rows.id` value in the database.
    public let rawValue: Int64
    /// Wraps a `rows.id` value.
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public static func < (lhs: RowID, rhs: RowID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "row #\(rawValue)" }
    public init(from decoder: any Decoder) throws { rawValue = try Int64(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
}

/// The stable identity of a section; unchanged by moves, never reused.
public struct SectionID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The `sections.id` value in the database.
    public let rawValue: Int64
    /// Wraps a `sections.id` value.
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public static func < (lhs: SectionID, rhs: SectionID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "section #\(rawValue)" }
    public init(from decoder: any Decoder) throws { rawValue = try Int64(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
}

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
              let section = Self.parseIndex(parts[0]),
              let row = Self.parseIndex(parts[1]) else { return nil }
        self.init(section: section, row: row)
    }

    /// `S:R`, e.g. `0:1`.
    public var description: String { "\(section):\(row)" }

    public static func < (lhs: ListIndexPath, rhs: ListIndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    private static func parseIndex(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
