import Foundation

/// One observer's unread elements, bounded: at most ``capacity`` wait for its consumer. When the store
/// delivers one more to a full buffer, the buffer drops what it holds and keeps, in its place, one
/// catch-up that brings the consumer to the latest state (``CatchUp``); what is delivered after that,
/// until the consumer takes the catch-up, is dropped too, since the catch-up covers it. So a consumer
/// that stops reading costs at most ``capacity`` elements, and one that reads again, later, applies a
/// short sequence that ends at exactly the store's state — never a change set that does not follow the
/// one before it.
///
/// The store's threads give it elements (``receive(_:)``, ``receiveState(_:)``, ``finish(throwing:)``)
/// without waiting for the consumer, and never read a state for it: a catch-up that needs one asks for
/// it (`requestState` of ``next(requestingState:)``) only when the consumer next reads.
final class ObservationBuffer<Item: Sendable>: ObservationReceiver {
    /// What stands for the elements a full buffer dropped.
    enum CatchUp: Sendable {
        /// This element, given as it is (a marker observation's ``ListChangeEvent/invalidated``, or its
        /// ``ListChangeEvent/started`` when that was among those dropped): nothing is read for it.
        case element(Item)
        /// A fresh state, read when the consumer next asks for an element and given through
        /// ``receiveState(_:)``; `first`: as the stream's first element (its initial state was among those dropped).
        case state(first: Bool)
    }

    /// The most elements a buffer holds unread by default: 64, each at most one delivery's change set
    /// (or a state) — a consumer reading at all keeps far fewer, and one that stopped costs no more.
    static var defaultCapacity: Int { 64 }

    /// How a buffer's stream ended: normally (nil) or with an error.
    private struct Ending {
        var error: (any Error)?
        /// Whether the consumer was given the end already (after it, every read gives nil).
        var delivered = false
    }

    private struct State {
        var pending: [Item] = []
        var catchUp: CatchUp?
        /// Whether the state a ``CatchUp/state(first:)`` needs was asked for (and has not arrived yet).
        var stateRequested = false
        var ending: Ending?
        /// The consumer waiting for an element (only while nothing is pending).
        var waiter: CheckedContinuation<Item?, any Error>?
        /// Whether `onTermination` ran: nothing more is accepted.
        var terminated = false
    }

    /// The most elements held unread; one more replaces them with a catch-up.
    let capacity: Int
    private let state = Locked(State())
    private let collapse: @Sendable (_ oldest: Item) -> CatchUp
    private let onTermination: @Sendable () -> Void

    /// A buffer holding at most `capacity` elements. `collapse` names the catch-up that replaces a full
    /// buffer, given the oldest element it held (a first element stays first). `onTermination` runs
    /// once, when the stream ends (finished by the store, or its consumer cancelled or gone).
    init(
        capacity: Int = defaultCapacity, collapse: @escaping @Sendable (_ oldest: Item) -> CatchUp,
        onTermination: @escaping @Sendable () -> Void
    ) {
        self.capacity = max(1, capacity)
        self.collapse = collapse
        self.onTermination = onTermination
    }

    /// How many elements wait for the consumer, a catch-up counting as one: never more than ``capacity``.
    var pendingCount: Int { state.withLock { $0.pending.count + ($0.catchUp == nil ? 0 : 1) } }

    /// Delivers `element` after those before it — dropped when a catch-up is pending (it covers it) or
    /// the stream ended; a full buffer is replaced by a catch-up.
    func receive(_ element: Item) {
        let waiter = state.withLock { state in state.terminated || state.catchUp != nil ? nil : enqueue(element, &state) }
        waiter?.resume(returning: element)
    }

    /// Delivers a fresh state, `make(first)`: it replaces a pending ``CatchUp/state(first:)`` (its state
    /// is at least as new as the one the catch-up stands for), or comes after the elements before it.
    func receiveState(_ make: (_ first: Bool) -> Item) {
        let (waiter, element) = state.withLock { state -> (CheckedContinuation<Item?, any Error>?, Item?) in
            guard !state.terminated else { return (nil, nil) }
            switch state.catchUp {
            case .state(let first):
                state.catchUp = nil
                state.stateRequested = false
                let element = make(first)
                return (enqueue(element, &state), element)
            case .element:
                return (nil, nil)  // the catch-up element covers it
            case nil:
                let element = make(false)
                return (enqueue(element, &state), element)
            }
        }
        if let waiter, let element { waiter.resume(returning: element) }
    }

    /// Ends the stream with `error` (nil: normally) after the elements pending, a catch-up element
    /// included; a pending state is dropped (nothing can be read for an ended observation).
    func finish(throwing error: (any Error)?) {
        let ended = state.withLock { state -> (waiter: CheckedContinuation<Item?, any Error>?, give: Item?)? in
            guard !state.terminated else { return nil }
            state.terminated = true
            state.ending = Ending(error: error)
            if case .state = state.catchUp { state.catchUp = nil }
            guard let waiter = state.waiter else { return (nil, nil) }
            state.waiter = nil
            if case .element(let element) = state.catchUp {
                state.catchUp = nil
                return (waiter, element)
            }
            state.ending?.delivered = true
            return (waiter, nil)
        }
        guard let ended else { return }
        onTermination()
        if let waiter = ended.waiter {
            if let element = ended.give {
                waiter.resume(returning: element)
            } else if let error {
                waiter.resume(throwing: error)
            } else {
                waiter.resume(returning: nil)
            }
        }
    }

    /// Ends the stream at once, for a consumer that is gone or cancelled: what is pending is dropped.
    func cancel() {
        let ended = state.withLock { state -> (waiter: CheckedContinuation<Item?, any Error>?, run: Bool) in
            state.pending.removeAll()
            state.catchUp = nil
            if state.ending == nil { state.ending = Ending(error: nil) }
            state.ending?.delivered = true
            let waiter = state.waiter
            state.waiter = nil
            let run = !state.terminated
            state.terminated = true
            return (waiter, run)
        }
        if ended.run { onTermination() }
        ended.waiter?.resume(returning: nil)
    }

    /// The next element, waiting for one; nil once the stream ended. A pending ``CatchUp/state(first:)``
    /// calls `requestState` (once), which must lead to ``receiveState(_:)`` or ``finish(throwing:)``.
    /// Cancelling the calling task ends the stream. One consumer at a time: a second one waiting at once
    /// is given nil.
    func next(requestingState requestState: @Sendable () -> Void) async throws -> Item? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Item?, any Error>) in
                let (result, request) = state.withLock { state -> (Result<Item?, any Error>?, Bool) in
                    if !state.pending.isEmpty { return (.success(state.pending.removeFirst()), false) }
                    if case .element(let element) = state.catchUp {
                        state.catchUp = nil
                        return (.success(element), false)
                    }
                    if let ending = state.ending {
                        guard !ending.delivered else { return (.success(nil), false) }
                        state.ending?.delivered = true
                        return (ending.error.map { .failure($0) } ?? .success(nil), false)
                    }
                    guard state.waiter == nil else { return (.success(nil), false) }
                    state.waiter = continuation
                    guard case .state = state.catchUp, !state.stateRequested else { return (nil, false) }
                    state.stateRequested = true
                    return (nil, true)
                }
                if let result { continuation.resume(with: result) }
                if request { requestState() }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The stream its consumer reads this buffer through (as `AsyncThrowingStream`'s own iterator, so the
    /// observations' public types stay what they were); `requestState` as in ``next(requestingState:)``.
    /// When the stream and its iterators are gone, the buffer is cancelled.
    func makeStream(requestingState requestState: @escaping @Sendable () -> Void) -> AsyncThrowingStream<Item, any Error> {
        let reader = Reader(self, requestState)
        return AsyncThrowingStream(unfolding: { try await reader.next() })
    }

    /// The consumer's side of a buffer, held by its stream alone: released with it, it cancels the buffer.
    private final class Reader: Sendable {
        let buffer: ObservationBuffer
        let requestState: @Sendable () -> Void

        init(_ buffer: ObservationBuffer, _ requestState: @escaping @Sendable () -> Void) {
            self.buffer = buffer
            self.requestState = requestState
        }

        deinit { buffer.cancel() }

        func next() async throws -> Item? { try await buffer.next(requestingState: requestState) }
    }

    /// Appends `element` to what `state` holds, or gives it to the waiting consumer (returned, to be
    /// resumed outside the lock); a full buffer is replaced by a catch-up instead.
    private func enqueue(_ element: Item, _ state: inout State) -> CheckedContinuation<Item?, any Error>? {
        if let waiter = state.waiter {
            state.waiter = nil
            return waiter
        }
        if state.pending.count < capacity {
            state.pending.append(element)
        } else {
            state.catchUp = collapse(state.pending[0])
            state.pending.removeAll()
        }
        return nil
    }
}
