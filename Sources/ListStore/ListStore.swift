import Synchronization
import SQLiteLayer

/// A durable store of sectioned, ordered lists — the data behind a table view — in one SQLite file.
///
/// Sections hold rows; both are addressed by zero-based index (``ListIndexPath``) and carry stable ids.
/// Every mutation is one `BEGIN IMMEDIATE` transaction that validates its input against the current
/// file (another process may have written since the caller last read), is all-or-nothing, and returns
/// a ``ChangeSet`` saying exactly what changed. The store is safe to share between threads; several
/// processes can use the same file at once.
public final class ListStore: Sendable {
    /// Where the store lives: a file path, or `:memory:`.
    public let path: String
    /// How the store was opened; only `.readWrite` stores accept mutations.
    public let mode: AccessMode
    /// Guards `connection`: one thread at a time uses it.
    private let lock = Mutex(())
    /// Only touched while holding `lock`, which is what makes sharing the store safe.
    nonisolated(unsafe) private let connection: Connection
    /// Observers of committed changes.
    let broadcaster = ChangeBroadcaster()

    private init(path: String, mode: AccessMode, connection: Connection) {
        self.path = path
        self.mode = mode
        self.connection = connection
    }

    /// The schema version this build writes (`PRAGMA user_version` of a fully migrated file).
    public static var schemaVersion: Int { Schema.migrator.latestVersion }

    /// How a store is opened.
    public enum AccessMode: Sendable {
        /// Read and write; a missing file is created and every file is migrated to the current schema.
        case readWrite
        /// Read only; a missing file is an error and nothing is ever written.
        case readOnly
        /// Read only, for diagnosis: also opens a file whose schema was altered or whose pages are
        /// damaged, so that ``ListStore/checkInvariants()`` can report what is wrong with it.
        case inspect
    }

    /// Opens the store at `path`, creating and migrating it when needed.
    ///
    /// The file is recognised before anything is written to it: another application's SQLite file,
    /// a file that is not SQLite, or a file from a newer ListStore throws and is left byte-for-byte untouched.
    /// - Parameter busyTimeout: how long a write waits for another process's lock, in milliseconds.
    public static func open(at path: String, mode: AccessMode = .readWrite, busyTimeout: Int32 = 5_000) throws -> ListStore {
        let connection = try StoreOpener(path: path, mode: mode, busyTimeout: busyTimeout).open()
        return ListStore(path: path, mode: mode, connection: connection)
    }

    /// A new, empty store that lives in memory until it is released; for previews and tests.
    public static func inMemory() throws -> ListStore {
        try open(at: ":memory:")
    }

    /// Runs a mutation: `body` inside one `BEGIN IMMEDIATE` transaction, all-or-nothing, then the change
    /// set it returns goes to the observers. SQLite errors become ``ListStoreError``s.
    func mutate(_ body: (Connection) throws -> ChangeSet) throws -> ChangeSet {
        guard mode == .readWrite else { throw ListStoreError.openedForReading(path: path) }
        return try lock.withLock { _ in
            try Self.translatingErrors {
                let watching = broadcaster.watchesOtherConnections
                var committedState: (snapshot: ListSnapshot, dataVersion: Int)?
                let changes = try connection.transaction(.immediate) {
                    // Under the write lock: report what others committed before this change, and read the
                    // state this change commits, the baseline for the next comparison once it is committed.
                    if watching { try catchUpWithOtherConnections(connection) }
                    let changes = try body(connection)
                    if watching && !changes.isEmpty { committedState = try readBaseline(connection) }
                    return changes
                }
                if let committedState { broadcaster.setBaseline(committedState.snapshot, dataVersion: committedState.dataVersion) }
                broadcaster.publish(changes)
                return changes
            }
        }
    }

    /// Runs `body` inside one read transaction, so every statement sees the same committed state.
    func withReadTransaction<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
        try lock.withLock { _ in
            try Self.translatingErrors { try connection.readTransaction { try body(connection) } }
        }
    }

    /// Runs `body` with the connection and the store's lock, outside any transaction.
    func withLockedConnection<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
        try lock.withLock { _ in try Self.translatingErrors { try body(connection) } }
    }

    static func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SQLiteError { throw ListStoreError(error) }
    }
}
