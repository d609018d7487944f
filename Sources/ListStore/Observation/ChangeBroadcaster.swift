import Foundation
import Synchronization

/// Delivers committed change sets to observers, each once and in commit order, and keeps what is
/// needed to notice commits made by other connections (another process, the `sqlite3` shell).
final class ChangeBroadcaster: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<ChangeSet>.Continuation
        let watchesOtherConnections: Bool
    }

    private struct State {
        var subscribers: [UUID: Subscriber] = [:]
        /// The state the last delivered change set led to; kept only while someone watches other connections.
        var baseline: ListSnapshot?
        /// `PRAGMA data_version` when `baseline` was read; it changes when another connection commits.
        var dataVersion: Int?
    }

    private let state = Mutex(State())

    /// Whether any observer wants changes made by other connections (which costs a snapshot per change).
    var watchesOtherConnections: Bool {
        state.withLock { $0.subscribers.values.contains { $0.watchesOtherConnections } }
    }

    func subscribe(_ id: UUID, _ continuation: AsyncStream<ChangeSet>.Continuation, watchesOtherConnections: Bool) {
        state.withLock { $0.subscribers[id] = Subscriber(continuation: continuation, watchesOtherConnections: watchesOtherConnections) }
    }

    func unsubscribe(_ id: UUID) {
        state.withLock { state in
            state.subscribers[id] = nil
            if !state.subscribers.values.contains(where: \.watchesOtherConnections) {
                state.baseline = nil
                state.dataVersion = nil
            }
        }
    }

    /// Ends the streams of the observers that watch other connections, which can no longer be watched.
    func finishWatchers() {
        let watchers = state.withLock { state in
            let watching = state.subscribers.filter { $0.value.watchesOtherConnections }
            for id in watching.keys { state.subscribers[id] = nil }
            state.baseline = nil
            state.dataVersion = nil
            return watching.values.map(\.continuation)
        }
        for continuation in watchers { continuation.finish() }
    }

    /// Sends `changes` to every observer. Called with the store's lock held, so calls are in commit order.
    func publish(_ changes: ChangeSet) {
        guard !changes.isEmpty else { return }
        let continuations = state.withLock { $0.subscribers.values.map(\.continuation) }
        for continuation in continuations { continuation.yield(changes) }
    }

    /// The baseline to diff against, and the data version it was read at.
    var baseline: (snapshot: ListSnapshot, dataVersion: Int)? {
        state.withLock { state in state.baseline.flatMap { snapshot in state.dataVersion.map { (snapshot, $0) } } }
    }

    func setBaseline(_ snapshot: ListSnapshot, dataVersion: Int) {
        state.withLock { state in
            guard state.subscribers.values.contains(where: \.watchesOtherConnections) else { return }
            state.baseline = snapshot
            state.dataVersion = dataVersion
        }
    }
}
