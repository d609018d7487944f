import Foundation
import ListStore

/// What the screen hears about commits, from any process (this one included).
enum LiveEvent: Sendable {
    /// One committed change; the screen drops ticks of deleted rows and re-reads its window.
    case changes(ChangeSet)
    /// Changes may have been missed (observation just started): re-read and check the ticks.
    case resynchronize
    /// Observation stopped for good; the text says why and what to do.
    case ended(String)
}

/// The only place `liststore ui` observes the store. The screen asks for the events that arrived since it
/// last asked (``drain()``) between keys; everything about how they are obtained stays in here.
///
/// A read-only `ListStore` of its own on the same file, so observing never holds the screen's
/// connection, and `observeWithoutSnapshots(includingOtherConnections:pollInterval:)` on it, started
/// off the screen's thread; starting with a marker reads nothing, whatever the store's size. The marker
/// (and any reset) becomes a `.resynchronize`, which also covers commits made between the screen's first read and the start of
/// the stream; then every commit arrives as its change set, read from the change log at a cost in
/// proportion to the change. The screen's own writes come back here as well, which the screen handles
/// idempotently (ids, re-read by page).
final class LiveUpdates: Sendable {
    /// How often other processes' commits are looked for.
    static let pollInterval: Duration = .milliseconds(100)

    /// Events waiting for the screen, shared with the observing task.
    private final class Queue: Sendable {
        private let events = Locked<[LiveEvent]>([])
        func append(_ event: LiveEvent) { events.withLock { $0.append(event) } }
        func drain() -> [LiveEvent] {
            events.withLock { events in
                defer { events.removeAll() }
                return events
            }
        }
    }

    private let events = Queue()
    private let task = Locked<Task<Void, Never>?>(nil)

    /// Starts observing the list named `list` (nil: the default list) of the database at `path`.
    init(path: String, list: String? = nil) {
        let started = Task.detached { [events] in
            let observed: ListStore
            do {
                let opened = try ListStore.open(at: path, mode: .readOnly)
                observed = try list.map { try opened.list(named: $0) } ?? opened
            } catch {
                events.append(.ended("live updates are off: \(CLIAdvice.message(for: error))"))
                return
            }
            guard !observed.isImmutableSnapshot else {
                events.append(.ended("live updates are off: the file can only be read as a fixed snapshot here (no -shm file), so other processes' changes cannot be seen"))
                return
            }
            // Starting with a marker, not the state: the screen reads its own pages, so a store of any size
            // is observed without being read.
            let stream = observed.observeWithoutSnapshots(includingOtherConnections: true, pollInterval: Self.pollInterval)
            do {
                for try await update in stream {
                    switch update {
                    // The start, or a change no change set describes: the screen
                    // re-reads its window by pages and checks its ticks; it keeps no copy of the store.
                    case .started, .invalidated: events.append(.resynchronize)
                    case .changes(let changes): events.append(.changes(changes))
                    }
                }
            } catch {
                events.append(.ended("live updates stopped: \(CLIAdvice.message(for: error))"))
                return
            }
            if !Task.isCancelled {
                events.append(.ended("live updates stopped: the database can no longer be read; check it with `liststore check`"))
            }
        }
        task.withLock { $0 = started }
    }

    /// The events that arrived since the last call, oldest first.
    func drain() -> [LiveEvent] {
        events.drain()
    }

    /// Stops observing.
    func stop() {
        task.withLock { $0?.cancel() }
    }
}
