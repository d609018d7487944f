/// Which committed state of a file a value describes: the sequence number of the last change-log entry
/// (`liststore_log.seq`) committed when that state was read. Every commit that changes the file —
/// ListStore's own, another process's, an edit in the `sqlite3` shell (logged by the schema's triggers)
/// — adds an entry, so a later state always has a larger version, and two states with the same version
/// are the same state.
///
/// A ``ListSnapshot`` carries the version it was read at, and a ``ChangeSet`` the version of the state
/// right after the commits it describes, so a mirror kept with ``ListSnapshot/apply(_:)`` always knows
/// which state it shows. Edits given index paths *as drawn* (``ListTransaction/asOf(_:)``) name that
/// version, and the store translates the paths through every commit since.
///
/// Versions are comparable only between states of the same file. ``unversioned`` describes no state
/// the change log can name: edits as of it are refused.
public struct ListVersion: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The sequence number of the last change-log entry of the state; −1 for ``unversioned``.
    public let rawValue: Int64

    /// A version read from a file or a document (`"version"` of `liststore show --json`).
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// No state of the change log: a snapshot built by hand, the result of applying a change set that
    /// the store did not give, or a file without a change log yet (schema 1 or 2, read with
    /// ``ListStore/AccessMode/inspect``), which older ListStore builds may change without logging.
    public static let unversioned = ListVersion(rawValue: -1)

    /// Whether the version names a state of the change log (0 or more).
    public var isVersioned: Bool { rawValue >= 0 }

    /// Later states have larger versions.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `version 42`, or `no version`.
    public var description: String { isVersioned ? "version \(rawValue)" : "no version" }

    /// Decodes the bare number.
    public init(from decoder: any Decoder) throws { rawValue = try Int64(from: decoder) }

    /// Encodes the bare number.
    public func encode(to encoder: any Encoder) throws { try rawValue.encode(to: encoder) }
}
