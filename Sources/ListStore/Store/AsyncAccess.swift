import Dispatch

/// Async variants: the same transactions, run on a background thread, so that waiting for another
/// process's write lock (up to the busy timeout) never blocks the caller's thread — the main thread, in an app.
///
/// They have names of their own (`…InBackground`) rather than overloading
/// ``write(actionName:tracksChanges:_:)`` and ``read(_:)``: in an `async` function Swift always prefers an async
/// overload of the same name, so `try store.write { … }` there would not compile without `await` (and
/// could not run the transaction on the caller's thread, which may be what the caller wants — no
/// suspension point inside an actor's critical section). With distinct names both forms compile
/// everywhere and say which one runs.
///
/// The writes (undo and redo included) queue on the store's one serial queue (``BackgroundWriteQueue``):
/// however many wait for another process's write lock, they hold one thread, and run in the order they
/// were called — on one actor, even from tasks that do not wait for each other (`isolation`, which
/// callers leave to its default, is the caller's actor, where the write is queued before the call first
/// suspends). Reads run concurrently: they never wait for a writer.
extension ListStore {
    /// Runs `body` as one write transaction, like ``write(actionName:tracksChanges:_:)``, on a background
    /// thread: waiting for the write lock never blocks the calling thread. Returns what `body` returned,
    /// with the transaction's change set.
    @discardableResult
    public func writeInBackground<T: Sendable>(
        actionName: String? = nil, tracksChanges: Bool = true, isolation: isolated (any Actor)? = #isolation,
        _ body: @escaping @Sendable (ListTransaction) throws -> T
    ) async throws -> (value: T, changes: ChangeSet) {
        try await queuedWrite { try self.write(actionName: actionName, tracksChanges: tracksChanges, body) }
    }

    /// Runs `body` with a reader inside one read transaction, like ``read(_:)``, on a background thread:
    /// for a read too long to make on the main thread (a large snapshot). Reads in background run
    /// concurrently with each other and with background writes.
    public func readInBackground<T: Sendable>(_ body: @escaping @Sendable (ListReader) throws -> T) async throws -> T {
        try suspension.refuseIfSuspended(path)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try self.read(body) }) }
        }
    }

    /// ``undo(by:)`` on a background thread: takes back `author`'s (nil: this store's ``author``'s) last
    /// transaction not yet undone, without blocking the calling thread while another process holds the
    /// write lock. Returns the undo's change set; throws what ``undo(by:)`` throws.
    @discardableResult
    public func undoInBackground(by author: String? = nil, isolation: isolated (any Actor)? = #isolation) async throws -> ChangeSet {
        try await queuedWrite { try self.undo(by: author) }
    }

    /// ``redo(by:)`` on a background thread: re-applies what `author` (nil: this store's ``author``)
    /// undid last, without blocking the calling thread. Returns the redo's change set.
    @discardableResult
    public func redoInBackground(by author: String? = nil, isolation: isolated (any Actor)? = #isolation) async throws -> ChangeSet {
        try await queuedWrite { try self.redo(by: author) }
    }

    /// `work` on the store's serial queue of background writes, or ``ListStoreError/Family/misuse``
    /// (suspended) at once, without queueing, while the store is suspended.
    private func queuedWrite<T: Sendable>(isolation: isolated (any Actor)? = #isolation, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try suspension.refuseIfSuspended(path)
        return try await backgroundWrites.run(isolation: isolation, work)
    }
}
