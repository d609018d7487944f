import Foundation

/// Everything that can go wrong with a store, in one line: what failed, on which input, and what to do.
/// When a call throws, the store is exactly as it was before it.
///
/// An app tells failures apart by ``family`` — what to do next — and shows ``description``. New kinds
/// of failure join an existing family, so a `switch` over the families keeps compiling.
///
/// ```swift
/// do {
///     try store.write { try $0.deleteRows(ids: selected) }
/// } catch let error as ListStoreError where error.family == .notFound {
///     reload()  // someone deleted or moved what was drawn: draw again
/// }
/// ```
public struct ListStoreError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// What a failure asks of the caller.
    public enum Family: Hashable, Sendable {
        /// A row, section, list or index that is not in the store (anymore): read it again and redraw.
        case notFound
        /// A value the store never accepts (a title, payload, name, search or document, a repeated
        /// index path or id): correct the input.
        case invalidInput
        /// A valid request the store's contents refuse now: nothing to undo, an undo overtaken by
        /// another edit, a name already taken, an import into a store that is not empty, a cancelled import.
        case refused
        /// Another connection kept the file locked past the busy timeout: try again.
        case busy
        /// A call the store cannot take in its state: a transaction used after its closure, a call from
        /// inside the store's own closure, an edit of a store opened for reading, a suspended store.
        case misuse
        /// The file cannot be used as asked (not a ListStore file, newer, altered, replaced, a read
        /// replica, a journal or `-wal` that is not its own); it was left untouched.
        case fileUnusable
        /// The disk or the system refused to write (read-only, full, a file size limit): free space or
        /// fix permissions, then try again.
        case storage
        /// The file's contents were damaged outside ListStore: ``ListStore/repair()`` fixes what it can
        /// (the message says), else restore a backup.
        case damaged
        /// Any other SQLite failure; the message carries SQLite's code, message and statement.
        case database
    }

    /// The exact failure, for this package's command line and tests.
    package let reason: ListStoreFailure

    package init(_ reason: ListStoreFailure) { self.reason = reason }

    /// What to do next; see ``Family``.
    public var family: Family { reason.family }

    /// What failed, on which input, and what to do, in one line.
    public var description: String { reason.description }

    /// The message, for `localizedDescription` and alerts.
    public var errorDescription: String? { description }

    /// The start of a long or multi-line input, quoted, for one-line messages (``ListStoreFailure/excerpt(_:)``).
    static func excerpt(_ text: String) -> String { ListStoreFailure.excerpt(text) }
}
