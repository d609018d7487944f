import Foundation
import SQLiteLayer

/// The read connections of a store, apart from its one writer connection, as GRDB's `DatabasePool`
/// keeps them: the file is in WAL mode, so each read transaction sees the last committed state without
/// waiting for any writer — this store's, waiting for another process's lock, or another process's.
///
/// Up to ``limit`` connections, opened when first needed and kept until the store is released or
/// suspended (``suspend()``, which closes every one); each is used by one thread at a time. A read
/// waits only when all of them are in use by other reads. (A read finding no idle one takes the writer
/// connection instead when no thread uses it: see ``ListStore/reading(_:)``.) Every
/// connection is opened read-only (`PRAGMA query_only` too, and no checkpoint when it closes), so
/// reading never changes the file's bytes, and is checked to hold the very files the store opened and
/// recognised: one opened after another file was renamed over the path, or another `-wal` put beside
/// it, is refused with ``ListStoreError/fileReplaced(path:reason:)`` instead of reading that file.
final class ReaderPool: Sendable {
    /// How many read connections a store opens at most.
    static let limit = 4

    /// A connection lent to one thread at a time: it is reachable only through `pool` (under its lock)
    /// or by the one read that took it, which is what the unchecked `Sendable` states.
    private struct Reader: @unchecked Sendable {
        let connection: Connection
    }

    /// The idle connections and how a new one is opened, under one lock.
    private struct Pool: Sendable {
        var idle: [Reader] = []
        /// Opens a configured, checked read-only connection.
        var open: @Sendable () throws -> Connection
        /// Every connection is closed (``suspend()``): reads are refused until ``resume(opener:holding:immutable:)``.
        var suspended = false
        /// The connections lent to reads now, by which ``suspend()`` interrupts them.
        var lent: [ObjectIdentifier: Interruption] = [:]
    }

    private let pool: Locked<Pool>
    /// Counts the connections free to take (opened or not yet opened).
    private let free = DispatchSemaphore(value: ReaderPool.limit)
    /// The store's path, for ``ListStoreError/suspended(path:)``.
    private let path: String

    /// A pool of read connections to the file `opener` opened, each checked to hold exactly `files`
    /// (those of the store's first connection, which recognised the file).
    init(opener: StoreOpener, holding files: Connection.OpenedFiles, immutable: Bool) {
        self.path = opener.path
        self.pool = Locked(Pool(open: Self.opening(opener, holding: files, immutable: immutable)))
    }

    private static func opening(_ opener: StoreOpener, holding files: Connection.OpenedFiles, immutable: Bool) -> @Sendable () throws -> Connection {
        { try opener.openReader(immutable: immutable, holding: files) }
    }

    /// Runs `body` with a read connection of its own: an idle one, or a new one while fewer than
    /// ``limit`` are open; otherwise waits for one to be put back. Throws ``ListStoreError/suspended(path:)``
    /// while the pool is suspended.
    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        free.wait()
        defer { free.signal() }
        let (idle, open) = try pool.withLock { pool in
            guard !pool.suspended else { throw ListStoreError.suspended(path: path) }
            return (pool.idle.popLast(), pool.open)
        }
        let reader = try idle ?? Reader(connection: try open())
        return try lending(reader, body)
    }

    /// Runs `body` with `reader`, noted as lent until it returns, then puts it back among the idle ones.
    /// A read ``suspend()`` interrupted throws ``ListStoreError/suspended(path:)``.
    private func lending<T>(_ reader: Reader, _ body: (Connection) throws -> T) throws -> T {
        let key = ObjectIdentifier(reader.connection)
        try pool.withLock { pool in
            guard !pool.suspended else { throw ListStoreError.suspended(path: path) }
            pool.lent[key] = reader.connection.interruption
        }
        defer {
            pool.withLock { pool in
                pool.lent[key] = nil
                pool.idle.append(reader)
            }
        }
        do { return try body(reader.connection) } catch {
            throw reader.connection.interruption.wasInterrupted ? ListStoreError.suspended(path: path) : error
        }
    }

    /// Runs `body` with an idle connection already open, if there is one now; nil at once otherwise.
    /// Throws ``ListStoreError/suspended(path:)`` while the pool is suspended.
    func withIdleReader<T>(_ body: (Connection) throws -> T) throws -> T? {
        guard free.wait(timeout: .now()) == .success else { return nil }
        defer { free.signal() }
        let idle = try pool.withLock { pool in
            guard !pool.suspended else { throw ListStoreError.suspended(path: path) }
            return pool.idle.popLast()
        }
        guard let reader = idle else { return nil }
        return .some(try lending(reader, body))
    }

    /// Closes the idle connections (every one, when no read runs): before the writer closes, so that it
    /// is the last connection and may checkpoint the `-wal` into the file.
    func closeIdle() {
        pool.withLock { pool in pool.idle.removeAll() }
    }

    /// Refuses every read from now on with ``ListStoreError/suspended(path:)``, waits for the reads
    /// running now to end (each holds its connection until then: the wait is theirs), and closes every
    /// connection, so that none is left on the file.
    func suspend() {
        for interruption in pool.withLock({ pool in
            pool.suspended = true
            return Array(pool.lent.values)
        }) { interruption.interrupt() }
        for _ in 0..<Self.limit { free.wait() }
        let closing = pool.withLock { pool in
            defer { pool.idle = [] }
            return pool.idle
        }
        for _ in 0..<Self.limit { free.signal() }
        _ = closing  // the last references: the connections close here
    }

    /// Accepts reads again after ``suspend()``; new connections are checked to hold `files` (those of
    /// the writer connection the store opened on resuming).
    func resume(opener: StoreOpener, holding files: Connection.OpenedFiles, immutable: Bool) {
        pool.withLock { pool in
            pool.open = Self.opening(opener, holding: files, immutable: immutable)
            pool.suspended = false
        }
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
