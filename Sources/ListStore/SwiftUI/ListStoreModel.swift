import Foundation
import Observation

/// An app's view of a store for SwiftUI: an `@Observable` object holding the sections and rows as drawn
/// — a ``ListSnapshot`` with its version — kept current from ``ListStore/observe(includingOtherConnections:pollInterval:)``
/// while ``run(isolation:)`` runs, with edits that take SwiftUI `List`'s own arguments
/// (``moveRows(fromOffsets:toOffset:inSection:asOf:isolation:)``, ``deleteRows(atOffsets:inSection:asOf:isolation:)``).
///
/// The model lives in one isolation domain, the one its caller chooses: created and run on the main
/// actor (`.task { await model.run() }` in a view), it changes ``snapshot`` only on the main actor;
/// run from another actor, only there. It is not `Sendable`, so the compiler keeps every use in that domain.
///
/// Nothing it does on that actor waits for a lock held during I/O: the store's reads, the change log,
/// applying change sets to the mirror and the edits all run on background threads, and the actor only
/// takes each new state (the latest, when several arrive at once). On the actor it takes only locks
/// that guard memory for a moment: the streams' own, and the store's table of observers when its
/// observation ends. Needs the Observation framework:
/// macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1 (the package's deployment targets; said here too,
/// so that lowering them cannot let it be used where Observation is missing).
@available(macOS 14.0, iOS 17.0, tvOS 17.0, watchOS 10.0, visionOS 1.0, *)
@Observable
public final class ListStoreModel {
    /// Where a model is in its life.
    public enum Phase: Sendable {
        /// Not running: ``run(isolation:)`` has not been called, or it returned after ``stop()`` or
        /// the cancellation of its task.
        case stopped
        /// Running, waiting for the first state (read on a background thread).
        case starting
        /// Running: ``snapshot`` is the store's state, or what other connections' commits changed of it
        /// a poll interval ago at most.
        case showing
        /// The observation ended with this error (the store became unreadable, its file was replaced):
        /// ``snapshot`` is the last state shown. Open the store again and make a new model.
        case failed(any Error)
    }

    /// The store the model shows and edits.
    @ObservationIgnored public let store: ListStore
    /// The sections and rows as drawn, and the version they show (``ListVersion/unversioned`` and no
    /// sections until the first state arrives). Draw from it; give edits its ``ListSnapshot/version``.
    public private(set) var snapshot = ListSnapshot(sections: [])
    /// Whether the model is running, and why it stopped.
    public private(set) var phase = Phase.stopped

    @ObservationIgnored private let includingOtherConnections: Bool
    @ObservationIgnored private let pollInterval: Duration
    /// How the running ``run(isolation:)`` is told to return; nil while none runs.
    @ObservationIgnored private var running: AsyncStream<ModelFeed.Delivery>.Continuation?

    /// A model of `store`, showing nothing until ``run(isolation:)`` runs. `includingOtherConnections`
    /// and `pollInterval` are ``ListStore/observe(includingOtherConnections:pollInterval:)``'s.
    public init(store: ListStore, includingOtherConnections: Bool = true, pollInterval: Duration = .milliseconds(100)) {
        self.store = store
        self.includingOtherConnections = includingOtherConnections
        self.pollInterval = pollInterval
    }

    /// The sections as drawn (``snapshot``'s), with their rows.
    public var sections: [SectionSnapshot] { snapshot.sections }

    /// Keeps ``snapshot`` current until ``stop()`` is called or the calling task is cancelled (a view's
    /// `.task` is, when the view goes away), then returns with ``phase`` ``Phase/stopped``; returns
    /// with ``Phase/failed(_:)`` when the observation ends with an error. Each new state is set on
    /// `isolation` — the caller's actor. Returns at once when it is already running.
    ///
    /// The first state is read, and every change set applied to a mirror, on background threads; the
    /// caller's actor only takes the result, the latest when several arrived meanwhile. A mirror that
    /// a change set does not fit is replaced by a fresh state (``ListObservation/resynchronize()``).
    public func run(isolation: isolated (any Actor)? = #isolation) async {
        guard running == nil else { return }
        let (deliveries, input) = AsyncStream<ModelFeed.Delivery>.makeStream(bufferingPolicy: .bufferingNewest(1))
        running = input
        phase = .starting
        let feed = ModelFeed(store.observe(includingOtherConnections: includingOtherConnections, pollInterval: pollInterval))
        let relay = Task.detached { await feed.run(into: input) }
        var ending: Phase = .stopped
        // In this function's body, not in a closure: a closure here that does not capture `isolation`
        // would run off the caller's actor. The stream ends when the calling task is cancelled.
        for await delivery in deliveries {
            if let state = delivery.state {
                snapshot = state
                phase = .showing
            }
            if let error = delivery.error {
                ending = .failed(error)
                break
            }
        }
        relay.cancel()
        running = nil
        phase = ending
    }

    /// Makes ``run(isolation:)`` return (soon, on its actor: the observation ends, its poller stops
    /// when nobody else observes). ``snapshot`` keeps the last state shown. Does nothing when it is not
    /// running; ``run(isolation:)`` may be called again afterwards.
    public func stop() {
        running?.finish()
    }
}

/// The background half of a ``ListStoreModel``: follows an observation with a mirror of its own, so the
/// model's actor is handed whole states and never applies a change set itself.
struct ModelFeed: Sendable {
    /// A new state, or the end of the observation (with its error when it failed).
    struct Delivery: Sendable {
        var state: ListSnapshot?
        var error: (any Error)?
    }

    let observation: ListObservation<ListUpdate>

    init(_ observation: ListObservation<ListUpdate>) { self.observation = observation }

    /// Sends each state of the observation to `output` until it ends or the task is cancelled.
    func run(into output: AsyncStream<Delivery>.Continuation) async {
        var mirror: ListSnapshot?
        // After a change set did not fit, the ones before the fresh state are skipped.
        var awaitingReset = false
        do {
            for try await update in observation {
                switch update {
                case .initial(let state), .reset(let state):
                    mirror = state
                    awaitingReset = false
                case .changes(let changes):
                    guard !awaitingReset, let state = mirror else { continue }
                    do {
                        mirror = try state.applying(changes)
                    } catch {
                        awaitingReset = true
                        observation.resynchronize()
                        continue
                    }
                }
                output.yield(Delivery(state: mirror))
            }
            output.finish()
        } catch {
            // With the last state: the model keeps only the newest delivery, and this is the last one.
            output.yield(Delivery(state: mirror, error: error))
            output.finish()
        }
    }
}
