import Foundation

/// What ``ListStore/observe(includingOtherConnections:pollInterval:)`` returns: an `AsyncSequence` of
/// ``ListUpdate`` — the state, then every change — that can be asked for a fresh state.
///
/// ```swift
/// let observation = store.observe()
/// for try await update in observation {
///     // …
///     // after `mirror.apply(changes)` threw: the next element is a fresh state
///     observation.resynchronize()
/// }
/// ```
public struct ListObservation: AsyncSequence, Sendable {
    /// Every element is a state or a change set: a state observer never gets a marker.
    public typealias Element = ListUpdate
    /// The iterator of the underlying `AsyncThrowingStream` (it reads the observer's bounded buffer).
    public typealias AsyncIterator = AsyncThrowingStream<ListUpdate, any Error>.Iterator

    let stream: AsyncThrowingStream<ListUpdate, any Error>
    /// The observer's bounded buffer (``ObservationBuffer``), which the stream reads.
    let buffer: ObservationBuffer<ListUpdate>
    let store: ListStore
    let id: UUID

    /// An iterator over the updates. Iterate once: the updates are delivered once.
    public func makeAsyncIterator() -> AsyncIterator { stream.makeAsyncIterator() }

    /// How many elements wait unread (a pending catch-up counting as one): at most
    /// ``ObservationBuffer/defaultCapacity``, however long the consumer stops reading.
    var pendingCount: Int { buffer.pendingCount }

    /// Asks for a fresh state: a ``ListUpdate/reset(_:)`` arrives in this stream, after every change
    /// delivered before it and before every later one, read on a background thread (this call returns
    /// at once). The one call an app needs after applying a change set failed (``ListSnapshot/apply(_:)``
    /// threw because its mirror had gone wrong): replace the mirror with that state and go on.
    /// Does nothing when the stream has ended.
    public func resynchronize() { store.resynchronize(id) }
}

/// What ``ListStore/observeChanges(includingOtherConnections:pollInterval:)`` returns: an `AsyncSequence`
/// of ``ListChangeEvent`` — a marker, then every change — for views that read their own pages.
public struct ListChangeObservation: AsyncSequence, Sendable {
    /// A marker, a change set, or an invalidation: nothing of the state is ever read for it.
    public typealias Element = ListChangeEvent
    /// The iterator of the underlying `AsyncThrowingStream` (it reads the observer's bounded buffer).
    public typealias AsyncIterator = AsyncThrowingStream<ListChangeEvent, any Error>.Iterator

    let stream: AsyncThrowingStream<ListChangeEvent, any Error>
    /// The observer's bounded buffer (``ObservationBuffer``), which the stream reads.
    let buffer: ObservationBuffer<ListChangeEvent>
    let store: ListStore
    let id: UUID

    /// An iterator over the events. Iterate once: the events are delivered once.
    public func makeAsyncIterator() -> AsyncIterator { stream.makeAsyncIterator() }

    /// How many elements wait unread (a pending ``ListChangeEvent/invalidated`` counting as one): at most
    /// ``ObservationBuffer/defaultCapacity``, however long the consumer stops reading.
    var pendingCount: Int { buffer.pendingCount }

    /// Asks for ``ListChangeEvent/invalidated`` in this stream, in order with every other event (this
    /// call returns at once): re-read what you show when it arrives. Does nothing when the stream has ended.
    public func resynchronize() { store.resynchronize(id) }
}
