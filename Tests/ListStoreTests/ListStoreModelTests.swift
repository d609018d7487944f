import Foundation
import ListStore
import Observation
import StoreShorthands
import TestSupport
import Testing

/// `ListStoreModel`, the `@Observable` view of a store: it follows every commit (this store's and other
/// connections'), sets its state on the caller's actor, stops cleanly, and its SwiftUI adapters act on
/// the rows it drew.
@MainActor @Suite struct ListStoreModelTests {
    /// Waits, at most `timeout` (generous: other tests load the machine), until `condition` holds.
    static func waitUntil(_ what: String, timeout: Duration = .seconds(60), _ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out after \(timeout) waiting until \(what)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until `model` shows exactly what `store` holds now.
    static func waitUntilShowing(_ model: ListStoreModel, _ store: ListStore) async throws {
        let expected = try store.snapshot()
        try await waitUntil("the model shows the store") { model.snapshot == expected && model.snapshot.version == expected.version }
    }

    /// Waits, bounded, until `running` (a task running `model.run()`) has returned.
    static func waitUntilReturned(_ running: Task<Void, Never>, _ model: ListStoreModel) async throws {
        try await waitUntil("run() returned") {
            switch model.phase {
            case .stopped, .failed: return true
            case .starting, .showing: return false
            }
        }
        await running.value  // run() returns right after it says it stopped
    }

    nonisolated static func isShowing(_ model: ListStoreModel) -> Bool {
        if case .showing = model.phase { return true }
        return false
    }

    nonisolated static func isStopped(_ model: ListStoreModel) -> Bool {
        if case .stopped = model.phase { return true }
        return false
    }

    @Test func theModelShowsTheStoreThenFollowsAnotherConnectionsCommits() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("model.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        try store.insertRows(["a", "b", "c"], intoSection: 0)
        let model = ListStoreModel(store: store, pollInterval: .milliseconds(10))
        #expect(Self.isStopped(model) && model.sections.isEmpty && !model.snapshot.version.isVersioned)
        let running = Task { await model.run() }
        try await Self.waitUntilShowing(model, store)
        #expect(Self.isShowing(model))
        #expect(model.sections.map { $0.rows.map(\.title) } == [["a", "b", "c"]])
        let other = try ListStore.open(at: path)
        var random = SeededGenerator(seed: 19)
        for step in 0..<30 {
            try other.write { tx in
                let count = try tx.rowCount(inSection: 0)
                switch Int.random(in: 0..<4, using: &random) {
                case 0 where count > 1: try tx.deleteRows(at: [ListIndexPath(section: 0, row: Int.random(in: 0..<count, using: &random))])
                case 1 where count > 1:
                    try tx.moveRow(
                        from: ListIndexPath(section: 0, row: Int.random(in: 0..<count, using: &random)),
                        to: ListIndexPath(section: 0, row: Int.random(in: 0..<count, using: &random)))
                case 2: try tx.updateRow(at: ListIndexPath(section: 0, row: 0), title: "renamed \(step)")
                default: try tx.insertRow("theirs \(step)", intoSection: 0, at: Int.random(in: 0...count, using: &random))
                }
            }
            if step % 10 == 9 { try await Self.waitUntilShowing(model, store) }
        }
        try other.insertSection(title: "T")
        try await Self.waitUntilShowing(model, store)
        // The store's own commits arrive too.
        try store.insertRow("ours", intoSection: 1)
        try await Self.waitUntilShowing(model, store)
        model.stop()
        try await Self.waitUntil("the model stopped") { Self.isStopped(model) }
        try await Self.waitUntilReturned(running, model)
    }

    /// An executor running its jobs on one dispatch queue, which code can recognise itself on.
    final class QueueExecutor: SerialExecutor, @unchecked Sendable {
        let queue = DispatchQueue(label: "ListStoreModelTests host")
        static let key = DispatchSpecificKey<Bool>()
        init() { queue.setSpecific(key: Self.key, value: true) }
        static var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
        }
        func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
    }

    /// What the model's observers saw: how many changes, and how many were made off the host's queue.
    final class Record: @unchecked Sendable {
        let lock = NSLock()
        var changes = 0
        var elsewhere = 0
    }

    /// An actor of the app's own, on an executor of its own, running a model.
    actor Host {
        let executor = QueueExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        let model: ListStoreModel
        init(_ store: ListStore) { model = ListStoreModel(store: store) }
        func run() async { await model.run() }
        func stop() { model.stop() }
        func isStopped() -> Bool { ListStoreModelTests.isStopped(model) }
        func titles() -> [[String]] { model.sections.map { $0.rows.map(\.title) } }
        func shows(_ state: ListSnapshot) -> Bool { model.snapshot == state && model.snapshot.version == state.version }
        func move(_ offsets: IndexSet, to destination: Int) async throws { try await model.moveRows(fromOffsets: offsets, toOffset: destination, inSection: 0) }
        /// Notes the model's next change, and where it was made.
        func track(_ record: Record) {
            withObservationTracking {
                _ = model.snapshot
            } onChange: {
                record.lock.withLock {
                    record.changes += 1
                    if !QueueExecutor.isCurrent { record.elsewhere += 1 }
                }
            }
        }
    }

    /// Waits until `host`'s model shows what `store` holds now.
    static func waitUntilShowing(_ host: Host, _ store: ListStore) async throws {
        let expected = try store.snapshot()
        let deadline = ContinuousClock.now + .seconds(60)
        while await !host.shows(expected) {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test func aModelRunOnAnotherActorChangesThereOnlyAndEditsFromThere() async throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        try store.insertRows(["a", "b", "c"], intoSection: 0)
        let host = Host(store)
        let record = Record()
        await host.track(record)
        let running = Task { await host.run() }
        try await Self.waitUntilShowing(host, store)
        for index in 0..<5 {
            await host.track(record)
            try store.insertRow("row \(index)", intoSection: 0)
            try await Self.waitUntilShowing(host, store)
        }
        await host.track(record)
        try await host.move([0], to: 3)
        #expect(try store.snapshot().titles == [["b", "c", "a", "row 0", "row 1", "row 2", "row 3", "row 4"]])
        try await Self.waitUntilShowing(host, store)
        await host.stop()
        let deadline = ContinuousClock.now + .seconds(60)
        while await !host.isStopped(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await host.isStopped())
        await running.value
        #expect(record.lock.withLock { record.changes } == 7)
        #expect(record.lock.withLock { record.elsewhere } == 0, "the model changed off its actor")
    }

    @Test func stopCancellationAndRunningAgain() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("stop.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        let other = try ListStore.open(at: path)
        let model = ListStoreModel(store: store, pollInterval: .milliseconds(10))
        // Stopped while starting or showing: it returns, and later commits no longer reach it.
        var running = Task { await model.run() }
        try await Self.waitUntil("the model runs") { !Self.isStopped(model) }
        model.stop()
        try await Self.waitUntilReturned(running, model)
        #expect(Self.isStopped(model))
        running = Task { await model.run() }
        try await Self.waitUntil("the model runs again") { !Self.isStopped(model) }
        try await Self.waitUntilShowing(model, store)
        let shown = model.snapshot
        model.stop()
        try await Self.waitUntilReturned(running, model)
        #expect(Self.isStopped(model))
        try other.insertRow("after the stop", intoSection: 0)
        try store.insertRow("after the stop, ours", intoSection: 0)
        try await Task.sleep(for: .milliseconds(100))
        #expect(model.snapshot == shown && model.snapshot.version == shown.version)
        // Run again: it catches up with everything; a second run() meanwhile returns at once.
        running = Task { await model.run() }
        try await Self.waitUntil("the model runs again") { !Self.isStopped(model) }
        try await Self.waitUntilShowing(model, store)
        await model.run()
        #expect(Self.isShowing(model))
        // The task cancelled (a view's .task when the view goes away).
        running.cancel()
        try await Self.waitUntilReturned(running, model)
        #expect(Self.isStopped(model))
        try other.insertRow("after the cancellation", intoSection: 0)
        try await Task.sleep(for: .milliseconds(100))
        #expect(model.snapshot.rowCount == 2)
    }

    @Test func aFailedObservationSaysWhyAndKeepsTheLastState() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("replaced.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        let model = ListStoreModel(store: store, pollInterval: .milliseconds(10))
        let running = Task { await model.run() }
        try await Self.waitUntilShowing(model, store)
        try FileManager.default.removeItem(atPath: path)
        try await Self.waitUntil("the model failed") {
            if case .failed = model.phase { return true }
            return false
        }
        try await Self.waitUntilReturned(running, model)
        guard case .failed(let error) = model.phase else { return }
        #expect(error is ListStoreError, "\(error)")
        #expect(model.sections.map(\.title) == ["S"])
    }

    // MARK: The adapters

    @Test(arguments: [11 as UInt64, 12])
    func randomOnMoveArgumentsThroughTheModelAreSwiftUIsMove(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let store = try ListStore.inMemory()
        try store.write { tx in
            for (section, size) in [9, 1, 14].enumerated() {
                try tx.insertSection(title: "s\(section)")
                try tx.insertRows((0..<size).map { "r\(section).\($0)" }, intoSection: section)
            }
        }
        let model = ListStoreModel(store: store)
        let running = Task { await model.run() }
        try await Self.waitUntilShowing(model, store)
        for step in 0..<100 {
            let drawn = model.snapshot
            let section = Int.random(in: 0..<drawn.sections.count, using: &random)
            let count = drawn.sections[section].rows.count
            let offsets = OffsetEditTests.randomOffsets(below: count, &random)
            let destination = Int.random(in: 0...count, using: &random)
            try await model.moveRows(fromOffsets: offsets, toOffset: destination, inSection: section)
            var expected = drawn.titles
            expected[section] = OffsetEditTests.swiftUIMove(expected[section], fromOffsets: offsets, toOffset: destination)
            #expect(try store.snapshot().titles == expected, "seed \(seed), step \(step): \(Array(offsets)) → \(destination) in section \(section)")
            try await Self.waitUntilShowing(model, store)
        }
        // Across sections, and a swipe.
        let drawn = model.snapshot
        try await model.moveRows(fromOffsets: [0, 2], inSection: 0, toSection: 1, atOffset: 1)
        #expect(try store.snapshot().titles == OffsetEditTests.dropped(drawn.titles, [ListIndexPath(section: 0, row: 0), ListIndexPath(section: 0, row: 2)], into: 1, at: 1))
        try await Self.waitUntilShowing(model, store)
        let next = model.snapshot
        try await model.deleteRows(atOffsets: [0, 1], inSection: 1)
        #expect(try store.snapshot().titles[1] == Array(next.titles[1].dropFirst(2)))
        try await Self.waitUntilShowing(model, store)
        model.stop()
        try await Self.waitUntilReturned(running, model)
    }

    /// Another connection inserts above the rows the model drew (and between them) after the draw and
    /// before the drag lands: the drag moves the rows drawn, and the swipe deletes the rows drawn.
    /// `inserting: false` is the same scenario without the insert.
    @Test(arguments: [true, false])
    func aDragOfTheRowsDrawnMovesThemWhileAnotherConnectionInsertedAbove(inserting: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("drawn.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        try store.insertRows(["a", "b", "c", "d", "e"], intoSection: 0)
        // The model polls rarely: it has not seen the other connection's rows when the drag lands.
        let model = ListStoreModel(store: store, pollInterval: .seconds(3600))
        let running = Task { await model.run() }
        try await Self.waitUntilShowing(model, store)
        let other = try ListStore.open(at: path)
        if inserting {
            try other.insertRows(["x", "y"], intoSection: 0, at: 0)
            try other.insertRow("z", intoSection: 0, at: 4)  // x y a b z c d e
        }
        #expect(model.sections[0].rows.map(\.title) == ["a", "b", "c", "d", "e"], "drawn before the insert")
        // The user drags b and d (drawn at 1 and 3) to the top.
        try await model.moveRows(fromOffsets: [1, 3], toOffset: 0, inSection: 0)
        let moved = inserting ? ["x", "y", "b", "d", "a", "z", "c", "e"] : ["b", "d", "a", "c", "e"]
        #expect(try store.snapshot().titles == [moved])
        // The write delivered the other connection's commits before its own: the model shows it all.
        try await Self.waitUntilShowing(model, store)
        // Then swipes away what it draws at 0 and 2, while more arrive above.
        if inserting { try other.insertRow("w", intoSection: 0, at: 0) }
        let drawn = model.sections[0].rows.map(\.title)
        try await model.deleteRows(atOffsets: [0, 2], inSection: 0)
        let deleted = Set([drawn[0], drawn[2]])
        #expect(try store.snapshot().titles == [(inserting ? ["w"] : []) + moved.filter { !deleted.contains($0) }])
        try await Self.waitUntilShowing(model, store)
        model.stop()
        try await Self.waitUntilReturned(running, model)
    }

    /// SwiftUIModel.md's SwiftUI view without SwiftUI (which Linux lacks): a main-actor value holding the
    /// model, whose body hands `List` closures that start tasks with the drawn section and version.
    /// It compiles in Swift 6 mode as the view does, and the closures act.
    @MainActor struct ViewShape {
        var model: ListStoreModel

        func onMove(_ perform: @escaping (IndexSet, Int) -> Void) -> (IndexSet, Int) -> Void { perform }
        func onDelete(_ perform: @escaping (IndexSet) -> Void) -> (IndexSet) -> Void { perform }

        func body(section index: Int) -> (move: (IndexSet, Int) -> Void, delete: (IndexSet) -> Void) {
            let drawn = model.snapshot
            let move = onMove { offsets, destination in
                Task { try? await model.moveRows(fromOffsets: offsets, toOffset: destination, inSection: index, asOf: drawn.version) }
            }
            let delete = onDelete { offsets in
                Task { try? await model.deleteRows(atOffsets: offsets, inSection: index, asOf: drawn.version) }
            }
            return (move, delete)
        }
    }

    @Test func theReadmeViewsClosuresCompileAndAct() async throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "S")
        try store.insertRows(["a", "b", "c", "d"], intoSection: 0)
        let view = ViewShape(model: ListStoreModel(store: store))
        let running = Task { await view.model.run() }
        try await Self.waitUntilShowing(view.model, store)
        let drawn = view.body(section: 0)
        drawn.move([0, 1], 4)
        drawn.delete([3])  // d, drawn at 3 before the move
        try await Self.waitUntil("both edits landed") { try store.snapshot().titles == [["c", "a", "b"]] }
        view.model.stop()
        try await Self.waitUntilReturned(running, view.model)
    }

    @Test func refusalsComeBackAsTypedErrorsAndChangeNothing() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("refused.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        try store.insertRows(["a", "b", "c"], intoSection: 0)
        let model = ListStoreModel(store: store, pollInterval: .seconds(3600))
        // Before the first state: nothing was drawn.
        await #expect(throws: ListStoreError.self) { try await model.moveRows(fromOffsets: [0], toOffset: 2, inSection: 0) }
        let running = Task { await model.run() }
        try await Self.waitUntilShowing(model, store)
        let drawn = model.snapshot
        let other = try ListStore.open(at: path)
        try other.deleteRows(at: [ListIndexPath(section: 0, row: 1)])
        let before = try store.snapshot()
        await #expect(throws: ListStoreError.drawnRowDeleted(ListIndexPath(section: 0, row: 1), id: drawn.sections[0].rows[1].id, asOf: drawn.version)) {
            try await model.moveRows(fromOffsets: [0, 1], toOffset: 3, inSection: 0)
        }
        // That write delivered the other connection's commit first: the model may show it by now, so
        // what the view drew is named by its version (as a view's body captures it).
        await #expect(throws: ListStoreError.drawnRowDeleted(ListIndexPath(section: 0, row: 1), id: drawn.sections[0].rows[1].id, asOf: drawn.version)) {
            try await model.deleteRows(atOffsets: [1], inSection: 0, asOf: drawn.version)
        }
        await #expect(throws: ListStoreError.drawnRowDestinationOutOfRange(ListIndexPath(section: 0, row: 4), maxRow: 3, asOf: drawn.version)) {
            try await model.moveRows(fromOffsets: [0], toOffset: 4, inSection: 0, asOf: drawn.version)
        }
        #expect(try store.snapshot() == before)
        // The rows still there, as drawn: a to the end.
        try await model.moveRows(fromOffsets: [0], toOffset: 3, inSection: 0, asOf: drawn.version)
        #expect(try store.snapshot().titles == [["c", "a"]])
        model.stop()
        try await Self.waitUntilReturned(running, model)
    }
}
