import Dispatch

/// Async variants: the same transactions, run on a background thread, so that waiting for another
/// process's write lock (up to the busy timeout) never blocks the caller's thread — the main thread, in an app.
///
/// They have names of their own (`…InBackground`) rather than overloading ``write(_:)-3oqvi``,
/// ``writeReturning(_:)`` and ``read(_:)``: in an `async` function Swift always prefers an async
/// overload of the same name, so `try store.write { … }` there would not compile without `await` (and
/// could not run the transaction on the caller's thread, which may be what the caller wants — no
/// suspension point inside an actor's critical section). With distinct names both forms compile
/// everywhere and say which one runs.
extension ListStore {
    /// Runs `body` as one write transaction, like ``write(_:)-3oqvi``, on a background thread: waiting for
    /// the write lock never blocks the calling thread. Returns the transaction's change set.
    @discardableResult
    public func writeInBackground(_ body: @escaping @Sendable (ListTransaction) throws -> Void) async throws -> ChangeSet {
        try await onBackgroundThread { try self.write(body) }
    }

    /// Runs `body` as one write transaction, like ``writeReturning(_:)``, on a background thread; returns
    /// what `body` returned, with the transaction's change set.
    public func writeReturningInBackground<T: Sendable>(_ body: @escaping @Sendable (ListTransaction) throws -> T) async throws -> (value: T, changes: ChangeSet) {
        try await onBackgroundThread { try self.writeReturning(body) }
    }

    /// Runs `body` with a reader inside one read transaction, like ``read(_:)``, on a background thread:
    /// for a read too long to make on the main thread (a large snapshot).
    public func readInBackground<T: Sendable>(_ body: @escaping @Sendable (ListReader) throws -> T) async throws -> T {
        try await onBackgroundThread { try self.read(body) }
    }

    /// Runs `body` as one write transaction on index paths as drawn at `version`, like
    /// ``write(asOf:_:)``, on a background thread: a swipe's delete never blocks the main thread while
    /// another process holds the write lock. Returns the transaction's change set.
    @discardableResult
    public func writeInBackground(asOf version: ListVersion, _ body: @escaping @Sendable (AsOfTransaction) throws -> Void) async throws -> ChangeSet {
        try await onBackgroundThread { try self.write(asOf: version, body) }
    }

    /// ``writeReturning(asOf:_:)`` on a background thread: what `body` returned, with the change set.
    public func writeReturningInBackground<T: Sendable>(
        asOf version: ListVersion, _ body: @escaping @Sendable (AsOfTransaction) throws -> T
    ) async throws -> (value: T, changes: ChangeSet) {
        try await onBackgroundThread { try self.writeReturning(asOf: version, body) }
    }

    private func onBackgroundThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
