import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Observers get the state, then every committed change once, in commit order — their own, another
/// connection's, and hand edits made with plain SQL — with values, valid for UIKit, and applying them
/// to the state gives the store's state after every commit.
@Suite struct ObservationTests {
    /// Waits for the next update, failing after `timeout` rather than hanging.
    static func next(_ updates: inout AsyncThrowingStream<ListUpdate, any Error>.Iterator, timeout: Duration = .seconds(60)) async throws -> ListUpdate {
        try #require(try await nextElement(&updates, timeout: timeout), "the stream ended")
    }

    static func changes(_ update: ListUpdate) throws -> ChangeSet {
        guard case .changes(let changes) = update else { throw UIKitReplay.Failure(description: "expected changes, got \(update)") }
        return changes
    }

    @Test func theStateComesFirstThenOwnChangesOnceInCommitOrder() async throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "A")
        var updates = store.observe(includingOtherConnections: false).makeAsyncIterator()
        guard case .initial(let state) = try await Self.next(&updates) else {
            Issue.record("no initial state first")
            return
        }
        #expect(state.sections.map(\.title) == ["A"])
        var expected: [ChangeSet] = []
        expected.append(try store.insertRows(["a", "b"], intoSection: 0).changes)
        _ = try store.renameSection(at: 0, to: "A")  // no change: not delivered
        expected.append(try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)]))
        var mirror = state
        for change in expected {
            let received = try Self.changes(try await Self.next(&updates))
            #expect(received == change)
            try mirror.apply(received)
        }
        #expect(mirror == (try store.snapshot()))
    }

    @Test func anotherConnectionsCommitsAndHandEditsArriveWithValues() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("observed.sqlite")
        let observed = try ListStore.open(at: path)
        try observed.insertSection(title: "Inbox")
        try observed.insertRows(["one", "two", "three"], intoSection: 0)
        let ids = try observed.snapshot().sections[0].rows.map(\.id)
        var updates = observed.observe(pollInterval: .milliseconds(20)).makeAsyncIterator()
        guard case .initial = try await Self.next(&updates) else {
            Issue.record("no initial state first")
            return
        }

        let other = try ListStore.open(at: path)
        let fromOther = try other.moveRow(from: ListIndexPath(section: 0, row: 2), to: ListIndexPath(section: 0, row: 0))
        #expect(try Self.changes(try await Self.next(&updates)) == fromOther)

        let own = try observed.insertRow("four", intoSection: 0).changes
        #expect(try Self.changes(try await Self.next(&updates)) == own)

        // A title changed by hand: an update with the new value.
        try Connection(path: path, mode: .readWrite).executeScript("UPDATE rows SET title = 'TWO' WHERE id = \(ids[1].rawValue)")
        let byHand = try Self.changes(try await Self.next(&updates))
        #expect(byHand.updatedRows == [.init(indexPath: ListIndexPath(section: 0, row: 2), row: ListRow(id: ids[1], title: "TWO"))])
        #expect(byHand.insertedRows.isEmpty && byHand.deletedRows.isEmpty && byHand.movedRows.isEmpty)

        // A row added by hand: the triggers count it in its block, and no change set describes what a
        // plain INSERT did to the blocks, so a reset.
        try Shell.run(Shell.appendRow("by hand", toSection: 1), on: path)
        guard case .reset(let state) = try await Self.next(&updates) else {
            Issue.record("a structural hand edit is not a reset")
            return
        }
        #expect(state == (try observed.snapshot()))
    }

    @Test func anOwnWriteFirstDeliversWhatOthersCommittedBeforeIt() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("interleaved.sqlite")
        let observed = try ListStore.open(at: path)
        try observed.insertSection(title: "S")
        var updates = observed.observe(pollInterval: .seconds(3600)).makeAsyncIterator()  // no polling: only the catch-up in the write
        _ = try await Self.next(&updates)
        let other = try ListStore.open(at: path)
        let theirs = try other.insertRow("theirs", intoSection: 0).changes
        let ours = try observed.insertRow("ours", intoSection: 0).changes
        #expect(try Self.changes(try await Self.next(&updates)) == theirs)
        #expect(try Self.changes(try await Self.next(&updates)) == ours)
    }

    @Test func droppingTheStreamStopsObservationAndItsPoller() async throws {
        let store = try ListStore.inMemory()
        do {
            let stream = store.observe()
            _ = stream
        }
        for _ in 0..<100 where store.hub.watchesOtherConnections { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!store.hub.watchesOtherConnections)
    }

    @Test func observingAStoreWhosePositionsWereDamagedByHandEndsWithAnError() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("damaged.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        try store.insertRows(["a", "b", "c"], intoSection: 0)
        try Shell.run(Shell.uncounted("DELETE FROM rows WHERE title = 'b'", without: "rows_counted_on_delete"), on: path)
        var updates = store.observe().makeAsyncIterator()
        await #expect(throws: ListStoreError.self) { _ = try await updates.next() }
    }

    /// Random bursts of commits by another connection (several transactions, several edits each, and now
    /// and then a title changed by hand) between two looks of the observer: every update fits UIKit's
    /// rules and, applied to the mirror, gives exactly the store's state.
    @Test func randomCommitsOfOtherConnectionsReplayOntoTheMirror() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("bursts.sqlite")
        let observed = try ListStore.open(at: path)
        let other = try ListStore.open(at: path)
        let shell = try Connection(path: path, mode: .readWrite)
        var updates = observed.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        guard case .initial(var mirror) = try await Self.next(&updates) else {
            Issue.record("no initial state")
            return
        }
        var random = SeededGenerator(seed: 909)
        var kinds = Set<String>()
        for step in 0..<600 {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                try Self.randomTransaction(other, &random)
                if Int.random(in: 0..<6, using: &random) == 0, let row = try other.snapshot().sections.flatMap(\.rows).randomElement(using: &random) {
                    try shell.run("UPDATE rows SET title = ?1 WHERE id = ?2", [.text("hand \(step)"), .integer(row.id.rawValue)])
                }
            }
            try observed.deliverChangesFromOtherConnections()
            let expected = try observed.snapshot()
            guard expected != mirror else { continue }
            let changes = try Self.changes(try await Self.next(&updates))
            do {
                try UIKitReplay.checkAll(changes, from: mirror, to: expected)
                try mirror.apply(changes)
            } catch {
                Issue.record("step \(step) (seed 909): \(error)\n\(changes)")
                return
            }
            #expect(mirror == expected, "step \(step): the mirror differs from the store")
            kinds.formUnion(ChangeSetReplayTests.kinds(changes))
        }
        #expect(kinds == ["deletedSections", "insertedSections", "movedSections", "updatedSections", "deletedRows", "insertedRows", "movedRows", "updatedRows"])
    }

    /// One write transaction of 1–4 random edits (a synchronous call, outside the async test's context).
    static func randomTransaction(_ store: ListStore, _ random: inout SeededGenerator) throws {
        let edits = Int.random(in: 1...4, using: &random)
        try store.write { tx in for _ in 0..<edits { try WriteTransactionTests.randomEdit(tx, &random) } }
    }

    @Test func anObserverFurtherBehindThanTheLogGetsAReset() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("behind.sqlite")
        let observed = try ListStore.open(at: path)
        try observed.insertSection(title: "S")
        var updates = observed.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        _ = try await Self.next(&updates)
        let other = try ListStore.open(at: path)
        for index in 0..<Int(ChangeLog.keptEntries) + 5 { try other.insertRow("r\(index)", intoSection: 0) }
        try observed.deliverChangesFromOtherConnections()
        guard case .reset(let state) = try await Self.next(&updates) else {
            Issue.record("no reset")
            return
        }
        #expect(state.rowCount == Int(ChangeLog.keptEntries) + 5)
    }

    /// Starting to observe while another connection commits, again and again: the initial state and
    /// the updates after it give the store's final state — nothing missed, nothing twice.
    @Test func startingWhileAnotherConnectionWritesMissesNothingAndRepeatsNothing() async throws {
        var roundsThatStartedMidway = 0
        for round in 0..<5 {
            let directory = try TemporaryDirectory()
            let path = directory.path("busy.sqlite")
            let observed = try ListStore.open(at: path)
            try observed.insertSection(title: "S")
            // The writer commits on and on; once it is under way (a different point each round) it says
            // so and slows down a little, so that observation starts while it is still committing —
            // whatever the machine's load, not by the clock.
            let underWay = DispatchSemaphore(value: 0)
            let startAt = 10 + 40 * round
            let writer = Thread {
                guard let other = try? ListStore.open(at: path) else {
                    underWay.signal()
                    return
                }
                for index in 0..<300 {
                    _ = try? other.insertRow("w\(index)", intoSection: 0, at: index % 3 == 0 ? 0 : nil)
                    if index % 50 == 0 { _ = try? other.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 0, row: index / 2)) }
                    if index == startAt { underWay.signal() }
                    if index > startAt { usleep(2_000) }
                }
            }
            writer.start()
            #expect(underWay.wait(timeout: .now() + 120) == .success, "round \(round): the writer did not get under way")
            var updates = observed.observe(pollInterval: .milliseconds(5)).makeAsyncIterator()
            guard case .initial(var mirror) = try await Self.next(&updates) else {
                Issue.record("no initial state")
                return
            }
            if (1..<300).contains(mirror.rowCount) { roundsThatStartedMidway += 1 }
            for _ in 0..<3_000 where !writer.isFinished { try await Task.sleep(for: .milliseconds(10)) }
            #expect(writer.isFinished, "round \(round): the writer did not finish")
            try observed.deliverChangesFromOtherConnections()
            let final = try observed.snapshot()
            var received = 0
            while mirror != final && received < 1_000 {
                switch try await Self.next(&updates) {
                case .changes(let changes): try mirror.apply(changes)
                case .reset(let state): mirror = state
                case .initial: Issue.record("a second start")
                }
                received += 1
            }
            #expect(mirror == final, "round \(round): after \(received) updates the mirror differs from the store")
            #expect(final.rowCount == 300)
        }
        #expect(roundsThatStartedMidway > 0, "no round started observing while the writer was writing")
    }

    @Test func startingWithAMarkerReadsNothingAndThenDeliversEveryChange() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("marker.sqlite")
        let observed = try ListStore.open(at: path)
        try observed.insertSection(title: "S")
        var updates = observed.observeWithoutSnapshots(pollInterval: .seconds(3600)).makeAsyncIterator()
        guard case .started? = try await nextElement(&updates, timeout: .seconds(60)) else {
            Issue.record("the first element is not the marker")
            return
        }
        let theirs = try ListStore.open(at: path).insertRow("theirs", intoSection: 0).changes
        try observed.deliverChangesFromOtherConnections()
        #expect(try await nextElement(&updates, timeout: .seconds(60)) == .changes(theirs))
    }
}
