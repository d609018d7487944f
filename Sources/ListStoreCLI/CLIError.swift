/// A command line that cannot be run as written (exit status 2): unknown command or option,
/// missing or extra argument, malformed `S:R` or index.
package struct UsageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the command line.
    package let message: String
    /// The usage line of the command, when one was recognised.
    package let usage: String?

    /// A usage error, optionally with the usage line to show.
    package init(_ message: String, usage: String? = nil) {
        self.message = message
        self.usage = usage
    }

    package var description: String {
        usage.map { "\(message) (usage: \($0); see --help)" } ?? "\(message) (see `liststore --help`)"
    }
}

/// An operation that could not be done for a reason outside the store itself (exit status 1):
/// a missing database, an unreadable input file, bad standard input.
package struct CommandFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// One line saying what failed and what to do.
    package let description: String
    /// A failure with this message.
    package init(_ description: String) { self.description = description }
}
