import Foundation

/// The observers of one store: delivers every update to each, once and in commit order, and keeps where
/// in the change log the observers are, to notice what other connections commit. One poller thread per
/// store, while someone watches other connections.
final class ObservationHub: Sendable {
    typealias Continuation = AsyncThrowingStream<ListUpdate, any Error>.Continuation

    private struct Subscriber {
        let continuation: Continuation
        let watchesOtherConnections: Bool
        /// Started with the state (`.state`): its resets carry the state too.
        let wantsState: Bool
    }

    /// How far the observers have seen: the last change-log entry delivered, the `PRAGMA
    /// data_version` at that moment (it changes when another connection commits), the largest ids
    /// given out then (entries after it can only insert larger ones) and the schema's version (a
    /// schema changed since may have lost the triggers that log hand edits).
    struct Position: Sendable {
        var logSequence: Int64
        var dataVersion: Int
        var ceilings: IDCeilings
        var schemaVersion: Int64
    }

    private struct State {
        var subscribers: [UUID: Subscriber] = [:]
        var position: Position?
        var poller: StopFlag?
    }

    private let state = Locked(State())

    /// Whether anyone watches other connections' commits.
    var watchesOtherConnections: Bool {
        state.withLock { $0.subscribers.values.contains { $0.watchesOtherConnections } }
    }

    /// Whether anyone observes at all.
    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// Where the watchers of other connections are in the change log; nil while nobody watches.
    var position: Position? { state.withLock { $0.position } }

    func setPosition(_ position: Position) {
        state.withLock { state in
            guard state.subscribers.values.contains(where: \.watchesOtherConnections) else { return }
            state.position = position
        }
    }

    /// Moves the position past the store's own commit, which the observers were just given.
    func advance(toLogSequence sequence: Int64) {
        state.withLock { state in
            guard var position = state.position else { return }
            position.logSequence = max(position.logSequence, sequence)
            state.position = position
        }
    }

    /// Adds an observer whose first update (the initial state) it was already given; `position` is
    /// where that state is in the change log. Returns a new poller's stop flag when one must start.
    func subscribe(
        _ id: UUID, _ continuation: Continuation, watchesOtherConnections: Bool, wantsState: Bool,
        at position: Position
    ) -> StopFlag? {
        state.withLock { state in
            state.subscribers[id] = Subscriber(
                continuation: continuation, watchesOtherConnections: watchesOtherConnections,
                wantsState: wantsState)
            guard watchesOtherConnections else { return nil }
            if state.position == nil { state.position = position }
            guard state.poller == nil else { return nil }
            let poller = StopFlag()
            state.poller = poller
            return poller
        }
    }

    func unsubscribe(_ id: UUID) {
        state.withLock { state in
            state.subscribers[id] = nil
            if !state.subscribers.values.contains(where: \.watchesOtherConnections) {
                state.position = nil
                state.poller?.set()
                state.poller = nil
            }
        }
    }

    /// Sends `update` to every observer — or, for updates from other connections, to those that watch
    /// them. Called with the store's lock held, so calls are in commit order.
    func publish(_ update: ListUpdate, fromOtherConnections: Bool = false) {
        if case .changes(let changes) = update, changes.isEmpty { return }
        let continuations = state.withLock { state in
            state.subscribers.values.filter { !fromOtherConnections || $0.watchesOtherConnections }.map(\.continuation)
        }
        for continuation in continuations { continuation.yield(update) }
    }

    /// Tells every observer (or, for other connections' changes, those that watch them) that the store
    /// changed in a way no change set describes: ``ListUpdate/reset(_:)`` with the state `read` gives to
    /// those that started with the state — read only if there is one — and ``ListUpdate/invalidated`` to
    /// the others. Called with the store's lock held.
    func publishReset(fromOtherConnections: Bool = false, read: () throws -> ListSnapshot) throws {
        let targets = state.withLock { state in
            state.subscribers.values.filter { !fromOtherConnections || $0.watchesOtherConnections }
        }
        let snapshot = targets.contains(where: \.wantsState) ? try read() : nil
        for target in targets {
            target.continuation.yield(target.wantsState ? snapshot.map(ListUpdate.reset) ?? .invalidated : .invalidated)
        }
    }

    /// Ends the streams of the observers of other connections with `error`: they can no longer be
    /// told what changed (the store became unreadable, or its positions were damaged by hand).
    func finishWatchers(throwing error: any Error) {
        let watchers = state.withLock { state in
            let watching = state.subscribers.filter { $0.value.watchesOtherConnections }
            for id in watching.keys { state.subscribers[id] = nil }
            state.position = nil
            state.poller?.set()
            state.poller = nil
            return watching.values.map(\.continuation)
        }
        for continuation in watchers { continuation.finish(throwing: error) }
    }
}

/// A one-way switch shared between a poller thread and the hub that owns it.
final class StopFlag: Sendable {
    private let value = Locked(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
