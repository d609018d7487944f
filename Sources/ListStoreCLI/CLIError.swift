/// A command line that cannot be run as written (exit status 2): unknown command or option,
/// missing or extra argument, malformed `S:R` or index.
public struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the command line.
    public let message: String
    /// The usage line of the command, when one was recognised.
    public let usage: String?

    /// A usage error, optionally with the usage line to show.
    public init(_ message: String, usage: String? = nil) {
        self.message = message
        self.usage = usage
    }

    public var description: String {
        usage.map { "\(message) (usage: \($0); see --help)" } ?? "\(message) (see `liststore --help`)"
    }
}

/// An operation that could not be done for a reason outside the store itself (exit status 1):
/// a missing database, an unreadable input file, bad standard input.
public struct CommandFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// One line saying what failed and what to do.
    public let description: String
    /// A failure with this message.
    public init(_ description: String) { self.description = description }
}
