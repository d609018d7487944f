import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// Observation that starts without blocking and never drifts: the start races commits of this store and
/// of others without a gap or a duplicate; an observer of own commits still gets what others did before
/// its next own change set; every observer's poll interval is honoured; one call resynchronises.
@Suite struct ObservationStartTests {
    /// Applies updates to `mirror` until it equals `expected`, at most `limit` of them.
    static func follow(_ updates: inout ListObservation<ListUpdate>.AsyncIterator, _ mirror: inout ListSnapshot, until expected: ListSnapshot, limit: Int = 2_000) async throws {
        var received = 0
        while mirror != expected && received < limit {
            switch try await ObservationTests.next(&updates, timeout: .seconds(30)) {
            case .changes(let changes): try mirror.apply(changes)
            case .reset(let state): mirror = state
            case .initial: Issue.record("a second start")
            }
            received += 1
        }
    }

    @Test func commitsOfThisStoreAndOfAnotherRacingTheStartAreNeitherMissedNorDoubled() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("race.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        let other = try ListStore.open(at: path)
        for round in 0..<4 {
            let started = DispatchSemaphore(value: 0)
            let writers = [store, other].enumerated().map { index, writer in
                let thread = Thread {
                    for step in 0..<60 {
                        _ = try? writer.insertRow("\(round).\(index).\(step)", intoSection: 0, at: step % 2 == 0 ? 0 : nil)
                        if step == 5 { started.signal() }
                    }
                }
                thread.start()
                return thread
            }
            #expect(started.wait(timeout: .now() + 60) == .success)
            var updates = store.observe(pollInterval: .milliseconds(5)).makeAsyncIterator()
            guard case .initial(var mirror) = try await ObservationTests.next(&updates) else {
                Issue.record("no initial state")
                return
            }
            for _ in 0..<3_000 where writers.contains(where: { !$0.isFinished }) { try await Task.sleep(for: .milliseconds(10)) }
            try store.deliverChangesFromOtherConnections()
            let final = try store.snapshot()
            try await Self.follow(&updates, &mirror, until: final)
            #expect(mirror == final, "round \(round)")
            #expect(final.rowCount == 120 * (round + 1))
        }
    }

    @Test func anObserverOfOwnCommitsGetsOtherConnectionsCommitsBeforeItsNextOwnChangeSet() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("own.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        try store.insertRows(["a", "b", "c"], intoSection: 0)
        var updates = store.observe(includingOtherConnections: false).makeAsyncIterator()
        guard case .initial(var mirror) = try await ObservationTests.next(&updates) else {
            Issue.record("no initial state")
            return
        }
        let other = try ListStore.open(at: path)
        for round in 0..<3 {
            try other.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: 2))
            try other.insertRow("theirs \(round)", intoSection: 0, at: 0)
            let own = try store.deleteRows(at: [ListIndexPath(section: 0, row: 1)])
            var sawOwn = false
            while !sawOwn {
                let update = try await ObservationTests.next(&updates, timeout: .seconds(10))
                switch update {
                case .changes(let changes):
                    try mirror.apply(changes)
                    sawOwn = changes == own
                case .reset(let state): mirror = state
                case .initial: Issue.record("a second start")
                }
            }
            #expect(mirror == (try store.snapshot()), "round \(round): the mirror drifted")
        }
        // Others' commits alone: asked for, they arrive too.
        try other.insertRow("last", intoSection: 0)
        try store.deliverChangesFromOtherConnections()
        try await Self.follow(&updates, &mirror, until: try store.snapshot(), limit: 3)
        #expect(mirror == (try store.snapshot()))
    }

    @Test func aSecondObserverWithAShorterIntervalGetsOthersCommitsWithinIt() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("intervals.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        var slow = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        guard case .initial? = try await nextElement(&slow) else { return }
        var fast = store.observe(pollInterval: .milliseconds(50)).makeAsyncIterator()
        guard case .initial? = try await nextElement(&fast) else { return }
        let other = try ListStore.open(at: path)
        for index in 0..<3 {
            let theirs = try other.insertRow("theirs \(index)", intoSection: 0).changes
            // 50 ms, with room for a loaded machine; the first observer's hour would time out.
            #expect(try await nextElement(&fast, timeout: .seconds(3)) == .changes(theirs))
            #expect(try await nextElement(&slow, timeout: .seconds(3)) == .changes(theirs))
        }
    }

    @Test func resynchronizeGivesAFreshStateInOrderInTheSameStream() async throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        let observation = store.observe()
        var updates = observation.makeAsyncIterator()
        guard case .initial(var truth) = try await ObservationTests.next(&updates) else {
            Issue.record("no initial state")
            return
        }
        // A mirror gone wrong: the next change set does not apply.
        var mirror = ListSnapshot(sections: [])
        let first = try store.insertRow("a", intoSection: 0).changes
        #expect(try await ObservationTests.next(&updates) == .changes(first))
        try truth.apply(first)
        #expect(throws: (any Error).self) { try mirror.apply(first) }
        observation.resynchronize()
        _ = try store.insertRow("b", intoSection: 0)  // before or after the reset's read: in order either way
        // The reset is the state after every change before it (`truth` there); later change sets apply to it.
        var sawReset = false
        while try !sawReset || mirror != store.snapshot() {
            switch try await ObservationTests.next(&updates) {
            case .reset(let state):
                #expect(!sawReset, "one reset")
                #expect(state == truth, "the reset is the state after the updates before it")
                sawReset = true
                mirror = state
            case .changes(let changes):
                try truth.apply(changes)
                if sawReset { try mirror.apply(changes) }
            case .initial: Issue.record("a second start")
            }
        }
        #expect(mirror == (try store.snapshot()))
    }

    @Test func resynchronizingAChangeObservationInvalidates() async throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        let observation = store.observeWithoutSnapshots()
        var events = observation.makeAsyncIterator()
        #expect(try await nextElement(&events) == .started)
        observation.resynchronize()
        #expect(try await nextElement(&events) == .invalidated)
        let changes = try store.insertRow("a", intoSection: 0).changes
        #expect(try await nextElement(&events) == .changes(changes))
    }
}

/// `watch --json`'s start: the initial state handed to a scan, in the same read transaction the stream
/// continues from, with commits racing it.
@Suite struct ScanningStartTests {
    /// The state a scan visits, as a snapshot.
    final class Collected: Sendable {
        let sections = Locked<[SectionSnapshot]>([])
        func see(_ item: ScannedItem) {
            sections.withLock { sections in
                switch item {
                case .section(_, let id, let title, _): sections.append(SectionSnapshot(id: id, title: title, rows: []))
                case .row(_, let row): sections[sections.count - 1].rows.append(row)
                }
            }
        }
    }

    @Test func theScannedStateAndTheChangesAfterItNeitherMissNorRepeatACommit() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("scan.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        let other = try ListStore.open(at: path)
        for round in 0..<3 {
            let started = DispatchSemaphore(value: 0)
            let writer = Thread {
                for step in 0..<80 {
                    _ = try? (step % 2 == 0 ? store : other).insertRow("\(round).\(step)", intoSection: 0, at: step % 3 == 0 ? 0 : nil)
                    if step == 5 { started.signal() }
                }
            }
            writer.start()
            #expect(started.wait(timeout: .now() + 60) == .success)
            let collected = Collected()
            let scanned = DispatchSemaphore(value: 0)
            var updates = store.observe(pollInterval: .milliseconds(5)) { scan in
                _ = try scan(collected.see)
                scanned.signal()
            }.makeAsyncIterator()
            #expect(scanned.wait(timeout: .now() + 60) == .success)
            var mirror = ListSnapshot(sections: collected.sections.withLock { $0 })
            for _ in 0..<3_000 where !writer.isFinished { try await Task.sleep(for: .milliseconds(10)) }
            try store.deliverChangesFromOtherConnections()
            let final = try store.snapshot()
            try await ObservationStartTests.follow(&updates, &mirror, until: final)
            #expect(mirror == final, "round \(round)")
        }
    }
}
