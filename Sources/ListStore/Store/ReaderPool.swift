import Foundation
import SQLiteLayer

/// The read connections of a store, apart from its one writer connection, as GRDB's `DatabasePool`
/// keeps them: the file is in WAL mode, so each read transaction sees the last committed state without
/// waiting for any writer — this store's, waiting for another process's lock, or another process's.
///
/// Up to ``limit`` connections, opened when first needed and kept until the store is released; each is
/// used by one thread at a time. A read waits only when all of them are in use by other reads. (A read
/// finding no idle one takes the writer connection instead when no thread uses it: see
/// ``ListStore/reading(_:)``.) Every
/// connection is opened read-only (`PRAGMA query_only` too, and no checkpoint when it closes), so
/// reading never changes the file's bytes, and is checked to hold the very files the store opened and
/// recognised: one opened after another file was renamed over the path, or another `-wal` put beside
/// it, is refused with ``ListStoreError/fileReplaced(path:reason:)`` instead of reading that file.
final class ReaderPool: Sendable {
    /// How many read connections a store opens at most.
    static let limit = 4

    /// A connection lent to one thread at a time: it is reachable only through `idle` (under its lock)
    /// or by the one read that took it, which is what the unchecked `Sendable` states.
    private struct Reader: @unchecked Sendable {
        let connection: Connection
    }

    private let idle = Locked<[Reader]>([])
    /// Counts the connections free to take (opened or not yet opened).
    private let free = DispatchSemaphore(value: ReaderPool.limit)
    private let open: @Sendable () throws -> Connection

    /// A pool whose connections `open` makes (a configured, checked read-only connection).
    init(open: @escaping @Sendable () throws -> Connection) {
        self.open = open
    }

    /// Runs `body` with a read connection of its own: an idle one, or a new one while fewer than
    /// ``limit`` are open; otherwise waits for one to be put back.
    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        free.wait()
        defer { free.signal() }
        let reader = try idle.withLock { $0.popLast() } ?? Reader(connection: try open())
        defer { idle.withLock { $0.append(reader) } }
        return try body(reader.connection)
    }

    /// Runs `body` with an idle connection already open, if there is one now; nil at once otherwise.
    func withIdleReader<T>(_ body: (Connection) throws -> T) throws -> T? {
        guard free.wait(timeout: .now()) == .success else { return nil }
        defer { free.signal() }
        guard let reader = idle.withLock({ $0.popLast() }) else { return nil }
        defer { idle.withLock { $0.append(reader) } }
        return .some(try body(reader.connection))
    }

    /// Closes the idle connections (every one, when no read runs): before the writer closes, so that it
    /// is the last connection and may checkpoint the `-wal` into the file.
    func closeIdle() {
        idle.withLock { $0.removeAll() }
    }
}

extension StoreOpener {
    /// A new read connection to the file this opener opened, holding exactly `files` (those of the
    /// store's first connection, which recognised the file): read-only, with no checkpoint on close.
    func openReader(immutable: Bool, holding files: Connection.OpenedFiles) throws -> Connection {
        try translatingErrors {
            let connection = try connect(immutable ? .readOnlyImmutable : .readOnly)
            try connection.run("PRAGMA query_only = ON")
            // The first read opens the -wal file, if there is one, so that both files can be compared.
            _ = try connection.readTransaction { try connection.scalarInt("PRAGMA schema_version") }
            try connection.verifyHolding(files)
            return connection
        }
    }
}
