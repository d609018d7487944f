import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// An observation that starts with a marker reads nothing for a reset either: it gets `.invalidated`,
/// while observations that start with the state still get the new state.
@Suite struct MarkerResetTests {
    /// The hub reads the state for a reset only when an observer that wants it is there.
    @Test(arguments: [false, true])
    func aResetReadsTheStateOnlyForObserversThatStartedWithIt(withStateObserver: Bool) async throws {
        let hub = ObservationHub()
        let position = ObservationHub.Position(logSequence: 0, ceilings: IDCeilings(rows: 0, sections: 0), schemaVersion: 0, writerDataVersion: nil)
        let (marker, markerContinuation) = AsyncThrowingStream<ListChangeEvent, any Error>.makeStream()
        _ = hub.subscribe(UUID(), .marker(markerContinuation), list: 1, pollInterval: nil, at: position)
        let (full, fullContinuation) = AsyncThrowingStream<ListUpdate, any Error>.makeStream()
        if withStateObserver { _ = hub.subscribe(UUID(), .state(fullContinuation), list: 1, pollInterval: nil, at: position) }
        var reads = 0
        let state = ListSnapshot(sections: [])
        try hub.publishReset { _ in
            reads += 1
            return state
        }
        markerContinuation.finish()
        fullContinuation.finish()
        #expect(reads == (withStateObserver ? 1 : 0))
        var markerUpdates: [ListChangeEvent] = []
        for try await event in marker { markerUpdates.append(event) }
        #expect(markerUpdates == [.invalidated])
        #expect(try await Self.collect(full) == (withStateObserver ? [.reset(state)] : []))
    }

    /// Every element of a stream already finished.
    static func collect(_ stream: AsyncThrowingStream<ListUpdate, any Error>) async throws -> [ListUpdate] {
        var updates: [ListUpdate] = []
        for try await update in stream { updates.append(update) }
        return updates
    }

    /// A hand insert (no change set describes it) seen by a marker observer and a state observer of the
    /// same store; without the hand edit both just get the change set of a ListStore write.
    @Test(arguments: [false, true])
    func aMarkerObserverGetsAResetWithoutStateAndAStateObserverTheState(handEdit: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let store = try ListStore.open(at: path)
        _ = try store.insertSection(title: "S")
        _ = try store.insertRows(["a", "b"], intoSection: 0)
        var marker = store.observeWithoutSnapshots(pollInterval: .seconds(3600)).makeAsyncIterator()
        var full = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        #expect(try await nextElement(&marker, timeout: .seconds(60)) == .started)
        guard case .initial = try await ObservationTests.next(&full) else {
            Issue.record("no initial state")
            return
        }
        if handEdit {
            try ChangeLogTamperingTests.shell(path, Shell.appendRow("by hand", toSection: 1))
            try store.deliverChangesFromOtherConnections()
            #expect(try await nextElement(&marker, timeout: .seconds(60)) == .invalidated)
            guard case .reset(let state) = try await ObservationTests.next(&full) else {
                Issue.record("no reset")
                return
            }
            #expect(state.sections.map { $0.rows.map(\.title) } == [["a", "b", "by hand"]])
        } else {
            _ = try store.insertRow("c", intoSection: 0)
            guard case .changes? = try await nextElement(&marker, timeout: .seconds(60)), case .changes = try await ObservationTests.next(&full) else {
                Issue.record("no change set")
                return
            }
        }
    }
}
