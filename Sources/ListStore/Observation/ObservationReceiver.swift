/// What the observation hub gives one observer's elements to: its bounded buffer
/// (``ObservationBuffer``, what ``ListStore/observe(includingOtherConnections:pollInterval:)`` and
/// ``ListStore/observeChanges(includingOtherConnections:pollInterval:)`` use), or a stream's continuation
/// as it is (unbounded: for tests of the hub alone).
protocol ObservationReceiver<Element>: Sendable {
    /// The stream's element: ``ListUpdate`` or ``ListChangeEvent``.
    associatedtype Element

    /// Takes the next element, in order after those before it.
    func receive(_ element: sending Element)

    /// Takes a fresh state, `make(first)`: `first` when it stands for the stream's first element.
    func receiveState(_ make: (_ first: Bool) -> Element)

    /// Ends the stream, with `error` or normally (nil), after the elements taken.
    func finish(throwing error: (any Error)?)
}

extension AsyncThrowingStream.Continuation: ObservationReceiver where Failure == any Error {
    /// Buffers `element` as the continuation's policy says.
    func receive(_ element: sending Element) { yield(element) }

    /// Buffers `make(false)`: a continuation keeps every element, so a state never stands for the first one.
    func receiveState(_ make: (_ first: Bool) -> Element) { yield(make(false)) }
}
