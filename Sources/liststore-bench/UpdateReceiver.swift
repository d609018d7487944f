import Dispatch
import ListStore
import StoreShorthands

/// Drains an observation stream on a task of its own, noting when each element arrived, so the
/// synchronous benchmark can wait for elements and the stream never piles up while writes are timed.
final class UpdateReceiver: Sendable {
    private struct State {
        var updates: [(update: ListUpdate, arrived: ContinuousClock.Instant)] = []
        var failure: String?
    }

    /// Shared by the receiving task and the waiting benchmark.
    private final class Inbox: Sendable {
        let state = Locked(State())
        let arrived = DispatchSemaphore(value: 0)
    }

    private let inbox = Inbox()
    private let task: Task<Void, Never>

    init(_ stream: ListObservation<ListUpdate>) {
        let inbox = inbox
        // Detached: the benchmark's main thread blocks on the semaphore, so the consumer must not need it.
        task = Task.detached {
            do {
                for try await update in stream {
                    let now = ContinuousClock.now
                    inbox.state.withLock { $0.updates.append((update, now)) }
                    inbox.arrived.signal()
                }
                inbox.state.withLock { $0.failure = $0.failure ?? "the observation stream ended" }
            } catch {
                inbox.state.withLock { $0.failure = "the observation stream failed: \(error)" }
            }
            inbox.arrived.signal()
        }
    }

    /// Elements received and not yet taken with ``next(timeout:)``.
    var pending: Int { inbox.state.withLock { $0.updates.count } }

    /// The next element and when it arrived, waiting up to `timeout` seconds for it.
    func next(timeout: Double = 60) throws -> (update: ListUpdate, arrived: ContinuousClock.Instant) {
        if inbox.arrived.wait(timeout: .now() + timeout) == .timedOut {
            throw BenchmarkFailure("no observation update within \(Int(timeout)) s")
        }
        return try inbox.state.withLock { state in
            guard !state.updates.isEmpty else { throw BenchmarkFailure(state.failure ?? "the observation stream ended") }
            return state.updates.removeFirst()
        }
    }

    /// Ends the observation (the stream's termination unsubscribes it from the store).
    func stop() { task.cancel() }
}
