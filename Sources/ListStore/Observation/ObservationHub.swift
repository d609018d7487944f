import Foundation

/// The observers of one store: delivers every update to each, once and in commit order, and keeps where
/// in the change log the observers are, to notice what other connections commit.
///
/// Deliveries are serialised by the hub's delivery lock (see ``delivering(_:)``): a write holds it from
/// its catch-up with other connections, inside its transaction, until its own change set is published;
/// the poller, an observation's start and a resynchronisation hold it while they read (through a read
/// connection, which never waits for a writer) and publish. So every observer sees one sequence of
/// states, whichever thread found each change.
final class ObservationHub: Sendable {
    /// Where one observer's updates go: a state observation (``ListUpdate``) or a marker one
    /// (``ListChangeEvent``), which reads nothing for itself — each through its receiver, the bounded
    /// buffer (``ObservationBuffer``) of an observation, so giving an element never waits for, nor grows
    /// with, a slow consumer.
    struct Sink: Sendable {
        private enum Kind: Sendable {
            case state(any ObservationReceiver<ListUpdate>)
            case marker(any ObservationReceiver<ListChangeEvent>)
        }

        private let kind: Kind

        /// A state observer's sink.
        static func state(_ receiver: some ObservationReceiver<ListUpdate>) -> Sink { Sink(kind: .state(receiver)) }

        /// A marker observer's sink.
        static func marker(_ receiver: some ObservationReceiver<ListChangeEvent>) -> Sink { Sink(kind: .marker(receiver)) }

        /// A state observer's sink that is a stream's continuation, unbounded (for tests of the hub alone).
        static func state(_ continuation: AsyncThrowingStream<ListUpdate, any Error>.Continuation) -> Sink {
            .state(StreamReceiver(continuation: continuation))
        }

        /// A marker observer's sink that is a stream's continuation, unbounded (for tests of the hub alone).
        static func marker(_ continuation: AsyncThrowingStream<ListChangeEvent, any Error>.Continuation) -> Sink {
            .marker(StreamReceiver(continuation: continuation))
        }

        /// Whether it is a state observer's: a reset reads the state for it.
        var wantsState: Bool {
            if case .state = kind { return true }
            return false
        }

        /// The first element: the state (for a state observer, which must be given one) or the marker.
        func start(_ snapshot: ListSnapshot?) {
            switch kind {
            case .state(let receiver): if let snapshot { receiver.receive(.initial(snapshot)) }
            case .marker(let receiver): receiver.receive(.started)
            }
        }

        /// One delivery's change set.
        func send(_ changes: ChangeSet) {
            switch kind {
            case .state(let receiver): receiver.receive(.changes(changes))
            case .marker(let receiver): receiver.receive(.changes(changes))
            }
        }

        /// A new state (a state observer must be given one), or ``ListChangeEvent/invalidated``. For a
        /// state observer whose buffer overflowed, this state is the one its catch-up waits for.
        func reset(_ snapshot: ListSnapshot?) {
            switch kind {
            case .state(let receiver): if let snapshot { receiver.receiveState { $0 ? .initial(snapshot) : .reset(snapshot) } }
            case .marker(let receiver): receiver.receive(.invalidated)
            }
        }

        /// Ends the observer's stream, with `error` or normally (nil).
        func finish(throwing error: (any Error)?) {
            switch kind {
            case .state(let receiver): receiver.finish(throwing: error)
            case .marker(let receiver): receiver.finish(throwing: error)
            }
        }
    }

    private struct Subscriber {
        let sink: Sink
        /// The list it observes (one hub serves every list of the file: one poller whatever their number).
        let list: Int64
        /// How often this observer wants other connections' commits looked for; nil: only when the store
        /// writes (just before its own change set) or ``ListStore/deliverChangesFromOtherConnections()`` runs.
        let pollInterval: Duration?
    }

    /// How far the observers have seen: the last change-log entry delivered, the largest ids given out
    /// then (entries after it can only insert larger ones), the schema's version (a schema changed since
    /// may have lost the triggers that log hand edits), and the writer connection's `PRAGMA
    /// data_version` at that point when the writer found it (it changes only when another connection
    /// commits, so a write whose connection still shows it skips reading the log).
    struct Position: Sendable {
        var logSequence: Int64
        var ceilings: IDCeilings
        var schemaVersion: Int64
        var writerDataVersion: Int?
        /// The change log's counter (``LogHead/counterRow``) when the observers were at `logSequence`.
        var counterRow: Int64?

        /// Whether the change log read as `head` continues the one this position is in: its counter
        /// neither made again (by hand: its numbers start over) nor moved back.
        func isContinued(by head: LogHead) -> Bool {
            guard head.lastSequence >= logSequence else { return false }
            // Before the first entry there is no counter: the first one that appears is the log's own.
            return counterRow == nil ? true : head.counterRow == counterRow
        }
    }

    private struct State {
        var subscribers: [UUID: Subscriber] = [:]
        var position: Position?
        /// Observers whose stream ended before their start finished: never subscribed.
        var ended: Set<UUID> = []
        /// The running poller's token; a poller whose token is not this one stops.
        var poller: UUID?
        /// Polling is paused (the store is suspended): no poller runs or starts until ``resumePolling()``.
        var pollingPaused = false
    }

    private let state = Locked(State())
    private let delivery = DeliveryLock()
    /// Wakes the poller to look at the intervals again (an observer with a shorter one arrived).
    private let wake = DispatchSemaphore(value: 0)

    /// Whether anyone wants other connections' commits polled for.
    var watchesOtherConnections: Bool {
        state.withLock { $0.subscribers.values.contains { $0.pollInterval != nil } }
    }

    /// Whether a poller runs (or is about to start): someone polls and polling is not paused.
    var isPolling: Bool { state.withLock { $0.poller != nil } }

    /// Whether anyone observes at all.
    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// Where the observers are in the change log; nil while nobody observes.
    var position: Position? { state.withLock { $0.position } }

    /// Runs `body` holding the delivery lock: what it reads and publishes is in order with every other
    /// delivery. Never call it with the lock held (it is not re-entrant), nor while waiting for SQLite's
    /// write lock: take it only once the write transaction has begun.
    func delivering<T>(_ body: () throws -> T) rethrows -> T {
        delivery.lock()
        defer { delivery.unlock() }
        return try body()
    }

    /// ``delivering(_:)`` split in two, for a write: taken inside its transaction, released after its
    /// change set is published (on the same thread).
    func beginDelivery() { delivery.lock() }
    func endDelivery() { delivery.unlock() }

    func setPosition(_ position: Position) {
        state.withLock { state in
            guard !state.subscribers.isEmpty else { return }
            state.position = position
        }
    }

    /// Moves the position past the store's own commit, which the observers were just given (a commit of
    /// the writer connection leaves its `data_version` as it was).
    func advance(toLogSequence sequence: Int64) {
        state.withLock { state in
            guard var position = state.position else { return }
            position.logSequence = max(position.logSequence, sequence)
            state.position = position
        }
    }

    /// Adds an observer whose first element it was just given; `position` is where that element is in
    /// the change log (the position every observer is at: the caller holds the delivery lock and caught
    /// the others up to it). Returns a token when a poller must start; an existing poller is woken to
    /// look at the intervals again.
    func subscribe(_ id: UUID, _ sink: Sink, list: Int64, pollInterval: Duration?, at position: Position) -> UUID? {
        let token = state.withLock { state -> UUID? in
            if state.ended.remove(id) != nil { return nil }
            state.subscribers[id] = Subscriber(sink: sink, list: list, pollInterval: pollInterval)
            if state.position == nil { state.position = position }
            guard pollInterval != nil, state.poller == nil, !state.pollingPaused else { return nil }
            let token = UUID()
            state.poller = token
            return token
        }
        wake.signal()
        return token
    }

    /// Removes an observer (its stream ended); one whose start has not finished is never subscribed.
    func unsubscribe(_ id: UUID) {
        state.withLock { state in
            if state.subscribers.removeValue(forKey: id) == nil { state.ended.insert(id) }
            if state.subscribers.isEmpty { state.position = nil }
            if !state.subscribers.values.contains(where: { $0.pollInterval != nil }) { state.poller = nil }
        }
        wake.signal()
    }

    /// Forgets the observer `id` whose start failed (its stream ended before it was ever subscribed).
    func discard(_ id: UUID) {
        state.withLock { _ = $0.ended.remove(id) }
    }

    /// Whether the observer `id` is subscribed now.
    func isSubscribed(_ id: UUID) -> Bool { state.withLock { $0.subscribers[id] != nil } }

    /// Sends each list's change set to that list's observers (an observer of a list not in `changes`, or
    /// whose change set is empty, is not woken). Called holding the delivery lock, so calls are in commit order.
    func publish(_ changes: [Int64: ChangeSet]) {
        guard changes.values.contains(where: { !$0.isEmpty }) else { return }
        for subscriber in state.withLock({ Array($0.subscribers.values) }) {
            guard let listChanges = changes[subscriber.list], !listChanges.isEmpty else { continue }
            subscriber.sink.send(listChanges)
        }
    }

    /// The lists that have observers now.
    var observedLists: Set<Int64> { state.withLock { Set($0.subscribers.values.map(\.list)) } }

    /// Tells every observer (or only `id`) that the store changed in a way no change set describes (or
    /// that it asked to resynchronise): ``ListUpdate/reset(_:)`` with the state `read` gives to state
    /// observers — read only if there is one — and ``ListChangeEvent/invalidated`` to marker observers.
    /// Called holding the delivery lock.
    /// `lists` limits it to those lists' observers (nil: every list); `read` reads one list's state.
    func publishReset(to id: UUID? = nil, lists: Set<Int64>? = nil, read: (Int64) throws -> ListSnapshot) throws {
        let subscribers = state.withLock { state in
            id.map { state.subscribers[$0].map { [$0] } ?? [] } ?? Array(state.subscribers.values)
        }.filter { lists?.contains($0.list) ?? true }
        var snapshots: [Int64: ListSnapshot] = [:]
        for subscriber in subscribers {
            if subscriber.sink.wantsState, snapshots[subscriber.list] == nil { snapshots[subscriber.list] = try read(subscriber.list) }
        }
        for subscriber in subscribers { subscriber.sink.reset(snapshots[subscriber.list]) }
    }

    /// The observers of `lists` (nil: of every list), with the list each observes.
    func observers(of lists: Set<Int64>?) -> [(id: UUID, list: Int64)] {
        state.withLock { state in
            state.subscribers.compactMap { id, subscriber in lists?.contains(subscriber.list) ?? true ? (id, subscriber.list) : nil }
        }
    }

    /// Ends the stream of the observer `id` with `error` (its resynchronisation failed).
    func finish(_ id: UUID, throwing error: any Error) {
        let sink = state.withLock { state -> Sink? in
            let removed = state.subscribers.removeValue(forKey: id)
            if state.subscribers.isEmpty { state.position = nil }
            if !state.subscribers.values.contains(where: { $0.pollInterval != nil }) { state.poller = nil }
            return removed?.sink
        }
        sink?.finish(throwing: error)
    }

    /// Ends the streams of the observers of `lists` (lists deleted since), each with `error(list)`, after
    /// the change sets that deleted their sections: they would otherwise watch, forever, an empty list
    /// that no longer exists.
    func finish(observersOf lists: Set<Int64>, throwing error: (Int64) -> any Error) {
        guard !lists.isEmpty else { return }
        let ended = state.withLock { state -> [(sink: Sink, list: Int64)] in
            let ending = state.subscribers.filter { lists.contains($0.value.list) }
            for id in ending.keys { state.subscribers[id] = nil }
            if state.subscribers.isEmpty { state.position = nil }
            if !state.subscribers.values.contains(where: { $0.pollInterval != nil }) { state.poller = nil }
            return ending.values.map { ($0.sink, $0.list) }
        }
        for (sink, list) in ended { sink.finish(throwing: error(list)) }
    }

    /// Ends the streams of the observers that poll for other connections' commits with `error`: they can
    /// no longer be told what changed (the store became unreadable, its file was replaced, or its positions
    /// were damaged by hand).
    func finishWatchers(throwing error: any Error) {
        let watchers = state.withLock { state in
            let watching = state.subscribers.filter { $0.value.pollInterval != nil }
            for id in watching.keys { state.subscribers[id] = nil }
            if state.subscribers.isEmpty { state.position = nil }
            state.poller = nil
            return watching.values.map(\.sink)
        }
        for sink in watchers { sink.finish(throwing: error) }
    }

    // MARK: Pausing (the store suspended)

    /// Stops the poller (a poll under way finishes) and starts none until ``resumePolling()``; the
    /// observers stay subscribed, at their position.
    func pausePolling() {
        state.withLock { state in
            state.pollingPaused = true
            state.poller = nil
        }
        wake.signal()
    }

    /// Polling may start again: returns a token when a poller must start (someone polls). The writer
    /// connection's `data_version` the position noted is forgotten: the store's connections are new, and
    /// a new connection's numbers say nothing of what others committed meanwhile.
    func resumePolling() -> UUID? {
        state.withLock { state in
            state.pollingPaused = false
            state.position?.writerDataVersion = nil
            guard state.poller == nil, state.subscribers.values.contains(where: { $0.pollInterval != nil }) else { return nil }
            let token = UUID()
            state.poller = token
            return token
        }
    }

    // MARK: Polling

    /// The shortest interval an observer asked for, while `token` is the running poller's; nil when it must stop.
    private func pollInterval(for token: UUID) -> Duration? {
        state.withLock { state in
            guard state.poller == token else { return nil }
            return state.subscribers.values.compactMap(\.pollInterval).min()
        }
    }

    /// Starts the poller `token` (from ``subscribe(_:_:pollInterval:at:)``): a thread of its own, so
    /// noticing other processes' commits never waits for a busy task pool. It calls `poll` every
    /// shortest requested interval — an observer asking for a shorter one is served from then on —
    /// until nobody polls any more or `poll` returns false. `pollingAtOnce`: the first poll runs at once,
    /// not after an interval (on resuming, to catch up with what others committed meanwhile).
    func startPoller(_ token: UUID, pollingAtOnce: Bool = false, poll: @escaping @Sendable () -> Bool) {
        let thread = Thread { [self] in
            let clock = ContinuousClock()
            var last: ContinuousClock.Instant? = pollingAtOnce ? nil : clock.now
            while let interval = pollInterval(for: token) {
                let now = clock.now
                if let last, now < last + interval {
                    let due = last + interval
                    let (seconds, attoseconds) = (due - now).components
                    _ = wake.wait(timeout: .now() + Double(seconds) + Double(attoseconds) / 1e18)
                    continue
                }
                last = now
                guard poll() else { return }
            }
        }
        thread.name = "ListStore change poller"
        thread.start()
    }
}

/// The hub's delivery lock: an `NSLock`, which may be taken and released in two separate calls.
private final class DeliveryLock: @unchecked Sendable {
    private let base = NSLock()
    func lock() { base.lock() }
    func unlock() { base.unlock() }
}
