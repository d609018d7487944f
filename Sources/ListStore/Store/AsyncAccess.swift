import Dispatch

/// Async variants: the same transactions, run on a background thread, so that waiting for another
/// process's write lock (up to the busy timeout) never blocks the caller's thread — the main thread, in an app.
extension ListStore {
    /// Runs `body` as one write transaction, like ``write(_:)-3oqvi``, without blocking
    /// the calling thread; returns the transaction's change set.
    @discardableResult
    public func write(_ body: @escaping @Sendable (ListTransaction) throws -> Void) async throws -> ChangeSet {
        try await onBackgroundThread { try self.write(body) }
    }

    /// Runs `body` as one write transaction without blocking the calling thread; returns what `body`
    /// returned, with the transaction's change set.
    public func writeReturning<T: Sendable>(_ body: @escaping @Sendable (ListTransaction) throws -> T) async throws -> (value: T, changes: ChangeSet) {
        try await onBackgroundThread { try self.writeReturning(body) }
    }

    /// Runs `body` with a reader inside one read transaction, without blocking the calling thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (ListReader) throws -> T) async throws -> T {
        try await onBackgroundThread { try self.read(body) }
    }

    private func onBackgroundThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }
}
