import Dispatch

/// The one serial queue on which a store's background writes (``ListStore/writeInBackground(isolation:_:)``
/// and the other `…InBackground` writes, undo and redo) wait for the write lock and run: one per store,
/// shared by its list handles (``ListStore/list(named:)``), like its writer connection.
///
/// Every write of a store runs on its one writer connection, one at a time, so background writes gain
/// nothing from a thread each: with Dispatch's global queues, N writes pending while another process
/// holds the write lock held N blocked threads (one waiting in SQLite's busy handler, the others for the
/// store's lock). Here they hold one thread, and run in the order they were submitted.
///
/// Background reads do not queue here: they never wait for a writer (see ``ReaderPool``), so they run
/// concurrently on Dispatch's global queue, each on a read connection of its own.
final class BackgroundWriteQueue: Sendable {
    private let queue = DispatchQueue(label: "ListStore.backgroundWrites", qos: .userInitiated)

    /// Runs `work` on the queue, after every write submitted before it, and returns its result.
    /// Submits it before its first suspension, on the caller's actor (`isolation`): writes a caller
    /// makes one after another, on one actor (the main actor), run in that order even when it does not
    /// wait for each before making the next.
    func run<T: Sendable>(isolation: isolated (any Actor)? = #isolation, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
