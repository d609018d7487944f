import Foundation

/// What ``ListStore/observe(includingOtherConnections:pollInterval:)`` returns (elements of ``ListUpdate``:
/// the state, then every change) and what ``ListStore/observeWithoutSnapshots(includingOtherConnections:pollInterval:)``
/// returns (elements of ``ListChangeEvent``: a marker, then every change, for views that read their own
/// pages): an `AsyncSequence` that can be asked to start again from the current state.
///
/// ```swift
/// let observation = store.observe()
/// for try await update in observation {
///     // …
///     // after `mirror.apply(changes)` threw: the next element is a fresh state
///     observation.resynchronize()
/// }
/// ```
public struct ListObservation<Element: Sendable>: AsyncSequence, Sendable {
    /// The iterator of the underlying `AsyncThrowingStream` (it reads the observer's bounded buffer).
    public typealias AsyncIterator = AsyncThrowingStream<Element, any Error>.Iterator

    let stream: AsyncThrowingStream<Element, any Error>
    /// The observer's bounded buffer (``ObservationBuffer``), which the stream reads.
    let buffer: ObservationBuffer<Element>
    let store: ListStore
    let id: UUID

    /// An iterator over the elements. Iterate once: the elements are delivered once.
    public func makeAsyncIterator() -> AsyncIterator { stream.makeAsyncIterator() }

    /// How many elements wait unread (a pending catch-up counting as one): at most
    /// ``ObservationBuffer/defaultCapacity``, however long the consumer stops reading.
    var pendingCount: Int { buffer.pendingCount }

    /// Asks for a fresh start, in order with every other element (this call returns at once): a
    /// ``ListUpdate/reset(_:)`` with the state read on a background thread, or for an observation
    /// without snapshots ``ListChangeEvent/invalidated`` (re-read what you show when it arrives). The one
    /// call an app needs after applying a change set failed (``ListSnapshot/apply(_:)`` threw because its
    /// mirror had gone wrong). Does nothing when the stream has ended.
    public func resynchronize() { store.resynchronize(id) }
}
