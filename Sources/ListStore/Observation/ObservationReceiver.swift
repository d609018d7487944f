/// What the observation hub gives one observer's elements to: its bounded buffer
/// (``ObservationBuffer``, what ``ListStore/observe(includingOtherConnections:pollInterval:)`` and
/// ``ListStore/observeWithoutSnapshots(includingOtherConnections:pollInterval:)`` use), or a stream's continuation
/// as it is (``StreamReceiver``: unbounded, for tests of the hub alone).
protocol ObservationReceiver<Item>: Sendable {
    /// The stream's element: ``ListUpdate`` or ``ListChangeEvent``.
    associatedtype Item

    /// Takes the next element, in order after those before it.
    func receive(_ element: sending Item)

    /// Takes a fresh state, `make(first)`: `first` when it stands for the stream's first element.
    func receiveState(_ make: (_ first: Bool) -> Item)

    /// Ends the stream, with `error` or normally (nil), after the elements taken.
    func finish(throwing error: (any Error)?)
}

/// A stream's continuation as an ``ObservationReceiver``: every element kept, as its buffering policy
/// says — for tests that give the observation hub a stream of their own.
struct StreamReceiver<Item: Sendable>: ObservationReceiver {
    /// The stream's continuation.
    let continuation: AsyncThrowingStream<Item, any Error>.Continuation

    /// Buffers `element` as the continuation's policy says.
    func receive(_ element: sending Item) { continuation.yield(element) }

    /// Buffers `make(false)`: a continuation keeps every element, so a state never stands for the first one.
    func receiveState(_ make: (_ first: Bool) -> Item) { continuation.yield(make(false)) }

    /// Finishes the stream.
    func finish(throwing error: (any Error)?) { continuation.finish(throwing: error) }
}
