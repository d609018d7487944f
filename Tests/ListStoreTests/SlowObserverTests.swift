import Foundation
import TestSupport
import Testing

@testable import ListStore

/// An observer that stops reading costs bounded memory — at most ``ObservationBuffer/defaultCapacity``
/// elements wait for it, however many commits — and, when it reads again, catches up: a short sequence
/// that, applied in order, ends at exactly the store's state. An observer that keeps up still gets
/// every change set, once, in order.
@Suite(.tags(.slow)) struct SlowObserverTests {
    static let capacity = ObservationBuffer<ListUpdate>.defaultCapacity
    static let edits = 10_000

    /// A store in a fresh directory (removed with `directory`), with two sections of a few rows.
    static func makeStore(_ directory: TemporaryDirectory) throws -> ListStore {
        let store = try ListStore.open(at: directory.path("slow.sqlite"))
        try store.insertSection(title: "A")
        try store.insertSection(title: "B")
        _ = try store.insertRows((0..<5).map { NewRow(title: "a\($0)") }, intoSection: 0)
        _ = try store.insertRows((0..<3).map { NewRow(title: "b\($0)") }, intoSection: 1)
        return store
    }

    /// Commits `count` random edits to `store` (whose state is `state`), checking after each that
    /// `pending()` stays within the capacity; returns the state after them. Runs on a thread of its own,
    /// not the tests' few shared ones, so other tests running meanwhile are not held up.
    static func edit(
        _ store: ListStore, from state: ListSnapshot, count: Int, seed: UInt64, pending: @escaping @Sendable () -> Int
    ) async throws -> ListSnapshot {
        let (state, most) = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        var random = SeededGenerator(seed: seed)
                        var state = state
                        var most = 0
                        for _ in 0..<count {
                            let changes = try ChangeSetReplayTests.randomMutation(store, state, &random)
                            try state.apply(changes)
                            most = max(most, pending())
                        }
                        return (state, most)
                    })
            }
        }
        #expect(most <= capacity, "an observer that does not read held \(most) elements (seed \(seed))")
        return state
    }

    /// Waits (at most a minute) until `condition` holds.
    static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while !condition() {
            try #require(clock.now < deadline, "\(what) did not happen within a minute")
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aStateObserverThatStopsReadingHoldsAtMostTheCapacityThenCatchesUpWithOneFreshState() async throws {
        let directory = try TemporaryDirectory(prefix: "slow-observer")
        let store = try Self.makeStore(directory)
        let observation = store.observe(includingOtherConnections: false)
        var updates = observation.makeAsyncIterator()
        guard case .initial(var mirror) = try await ObservationTests.next(&updates) else {
            Issue.record("no initial state first")
            return
        }
        let expected = try await Self.edit(store, from: mirror, count: Self.edits, seed: 31, pending: { observation.pendingCount })
        #expect(observation.pendingCount == 1, "the overflow left more than its catch-up")
        // Reading again: the catch-up, a state read now, replaces everything the observer missed.
        var received: [ListUpdate] = []
        repeat {
            let update = try await ObservationTests.next(&updates)
            received.append(update)
            switch update {
            case .changes(let changes): try mirror.apply(changes)
            case .reset(let state): mirror = state
            case .initial: Issue.record("a second initial state")
            }
        } while observation.pendingCount > 0 && received.count <= Self.capacity + 1
        #expect(received.count == 1)
        guard case .reset = received.first else {
            Issue.record("expected a fresh state, got \(received)")
            return
        }
        #expect(mirror == expected)
        #expect(mirror == (try store.snapshot()))
        // And it goes on from there: the next commit arrives as its change set.
        let changes = try store.insertRows(["after"], intoSection: 0).changes
        #expect(try ObservationTests.changes(try await ObservationTests.next(&updates)) == changes)
        try mirror.apply(changes)
        #expect(mirror == (try store.snapshot()))
    }

    @Test func anUnreadInitialStateIsReplacedByAFreshInitialState() async throws {
        let directory = try TemporaryDirectory(prefix: "slow-observer")
        let store = try Self.makeStore(directory)
        let observation = store.observe(includingOtherConnections: false)
        try await Self.waitUntil("the start") { observation.pendingCount == 1 }  // its initial state, unread
        let expected = try await Self.edit(store, from: try store.snapshot(), count: Self.edits, seed: 32, pending: { observation.pendingCount })
        var updates = observation.makeAsyncIterator()
        // Still the first element, and still the state: the observer's contract does not change.
        guard case .initial(let state) = try await ObservationTests.next(&updates) else {
            Issue.record("no initial state first")
            return
        }
        #expect(state == expected)
        #expect(observation.pendingCount == 0)
    }

    @Test func aStateObserverKeepsEveryChangeSetUpToTheCapacity() async throws {
        let directory = try TemporaryDirectory(prefix: "slow-observer")
        let store = try Self.makeStore(directory)
        let observation = store.observe(includingOtherConnections: false)
        var updates = observation.makeAsyncIterator()
        guard case .initial(var mirror) = try await ObservationTests.next(&updates) else {
            Issue.record("no initial state first")
            return
        }
        var random = SeededGenerator(seed: 33)
        // In step: every change set, once, in order, exactly the one each write returned.
        var state = mirror
        for step in 0..<300 {
            let changes = try ChangeSetReplayTests.randomMutation(store, state, &random)
            try state.apply(changes)
            guard !changes.isEmpty else { continue }  // nothing changed: nothing delivered
            #expect(try ObservationTests.changes(try await ObservationTests.next(&updates)) == changes, "step \(step)")
            #expect(observation.pendingCount == 0)
        }
        mirror = state
        // A burst of exactly the capacity, unread: all kept, and given one by one.
        var burst: [ChangeSet] = []
        while burst.count < Self.capacity {
            let changes = try ChangeSetReplayTests.randomMutation(store, state, &random)
            try state.apply(changes)
            if !changes.isEmpty { burst.append(changes) }  // nothing changed: nothing delivered
        }
        #expect(observation.pendingCount == Self.capacity)
        for (index, changes) in burst.enumerated() {
            #expect(try ObservationTests.changes(try await ObservationTests.next(&updates)) == changes, "burst \(index)")
            try mirror.apply(changes)
        }
        #expect(observation.pendingCount == 0)
        #expect(mirror == (try store.snapshot()))
    }

    @Test func aMarkerObserverThatStopsReadingHoldsAtMostTheCapacityThenIsInvalidatedOnce() async throws {
        let directory = try TemporaryDirectory(prefix: "slow-observer")
        let store = try Self.makeStore(directory)
        let observation = store.observeWithoutSnapshots(includingOtherConnections: false)
        var events = observation.makeAsyncIterator()
        #expect(try await nextElement(&events) == .started)
        // Up to the capacity, every change set is kept, in order.
        var state = try store.snapshot()
        var random = SeededGenerator(seed: 34)
        var burst: [ChangeSet] = []
        while burst.count < Self.capacity {
            let changes = try ChangeSetReplayTests.randomMutation(store, state, &random)
            try state.apply(changes)
            if !changes.isEmpty { burst.append(changes) }  // nothing changed: nothing delivered
        }
        #expect(observation.pendingCount == Self.capacity)
        for changes in burst { #expect(try await nextElement(&events) == .changes(changes)) }
        #expect(observation.pendingCount == 0)
        // Past it, one invalidation stands for everything missed: re-reading then shows the store's state.
        _ = try await Self.edit(store, from: state, count: Self.edits, seed: 35, pending: { observation.pendingCount })
        #expect(observation.pendingCount == 1)
        #expect(try await nextElement(&events) == .invalidated)
        #expect(observation.pendingCount == 0)
        let changes = try store.insertRows(["after"], intoSection: 0).changes
        #expect(try await nextElement(&events) == .changes(changes))
    }

    @Test func anUnreadMarkerStaysFirst() async throws {
        let directory = try TemporaryDirectory(prefix: "slow-observer")
        let store = try Self.makeStore(directory)
        let observation = store.observeWithoutSnapshots(includingOtherConnections: false)
        try await Self.waitUntil("the start") { observation.pendingCount == 1 }  // its marker, unread
        _ = try await Self.edit(store, from: try store.snapshot(), count: Self.edits, seed: 36, pending: { observation.pendingCount })
        var events = observation.makeAsyncIterator()
        // The marker alone: read after it, the pages show every commit it stands for.
        #expect(try await nextElement(&events) == .started)
        #expect(observation.pendingCount == 0)
    }
}
