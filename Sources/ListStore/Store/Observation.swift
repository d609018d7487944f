import Foundation
import SQLiteLayer

/// Observing a store: the state, then every change, each once, in commit order.
extension ListStore {
    /// The state of the store, then every change committed after it, in commit order — nothing missed,
    /// nothing twice, whatever other processes commit meanwhile: the first element is
    /// ``ListUpdate/initial(_:)``; then ``ListUpdate/changes(_:)`` for each commit (with the values a
    /// table view draws), or ``ListUpdate/reset(_:)`` with a new state when the store was changed in a way
    /// no change set describes, or when you asked for one with ``ListObservation/resynchronize()``.
    ///
    /// Returns at once: the initial state is read on a background thread, through a read connection
    /// (which never waits for a writer), in the same read transaction that fixes where the stream
    /// continues from.
    ///
    /// With `includingOtherConnections` (the default), commits by other connections — another process,
    /// another `ListStore` on the same file, the `sqlite3` shell — are looked for every `pollInterval`
    /// and read from the change log, at a cost in proportion to what changed; several commits within one
    /// interval arrive as one change set. One poller thread serves all observers of a store, at the
    /// shortest interval any of them asked for, and none runs while nobody asked for one. Without it,
    /// nothing polls for this observer, but it still never drifts: what other connections committed
    /// arrives before this store's next change set (a write looks under its lock), or when
    /// ``deliverChangesFromOtherConnections()`` is called. The store's own commits arrive at once, whatever
    /// the interval.
    ///
    /// At most 64 updates wait for a consumer that does not read: one more replaces them with one that
    /// brings it to the latest state when it reads again — a ``ListUpdate/reset(_:)`` read then, on a
    /// background thread (see <doc:Observing#A-loop-that-stops-reading>).
    ///
    /// The stream ends when its task is cancelled or it is dropped; it ends with an error when the store
    /// cannot be read or observed (an immutable snapshot, a damaged file, positions damaged by hand, the
    /// file at its path replaced or deleted — noticed at the next poll: a ``ListStoreError/Family/fileUnusable`` error (file replaced)),
    /// rather than going quiet.
    public func observe(includingOtherConnections: Bool = true, pollInterval: Duration = .milliseconds(100)) -> ListObservation<ListUpdate> {
        observeState(includingOtherConnections: includingOtherConnections, pollInterval: pollInterval, scanningInitialState: nil)
    }

    /// For `liststore watch --json`: ``observe(includingOtherConnections:pollInterval:)`` without holding
    /// the initial state in memory. `initialState` is called on the start's background thread, inside the
    /// read transaction that fixes where the stream continues from, with a function that scans that state and returns its version
    /// (as ``scan(_:)`` does: sections and rows in display order, in constant memory; positions damaged by
    /// hand end it with ``ListStoreError/positionsDamaged(section:)``, as the state would). The stream then
    /// has no ``ListUpdate/initial(_:)``: its elements are the changes and resets after that state. An
    /// error `initialState` throws ends the stream.
    package func observe(
        includingOtherConnections: Bool = true, pollInterval: Duration = .milliseconds(100),
        scanningInitialState initialState: @escaping @Sendable (_ scan: ((ScannedItem) throws -> Void) throws -> ListVersion) throws -> Void
    ) -> ListObservation<ListUpdate> {
        observeState(includingOtherConnections: includingOtherConnections, pollInterval: pollInterval, scanningInitialState: initialState)
    }

    /// A state observation, started with the whole state (`initialState` nil) or with a scan of it.
    private func observeState(
        includingOtherConnections: Bool, pollInterval: Duration,
        scanningInitialState initialState: (@Sendable (_ scan: ((ScannedItem) throws -> Void) throws -> ListVersion) throws -> Void)?
    ) -> ListObservation<ListUpdate> {
        let id = UUID()
        let buffer = ObservationBuffer<ListUpdate>(
            collapse: { oldest in
                if case .initial = oldest { return .state(first: true) }
                return .state(first: false)
            },
            onTermination: { [hub] in hub.unsubscribe(id) })
        // A buffer that overflowed asks for its fresh state when its consumer reads again.
        let stream = buffer.makeStream { [self] in resynchronize(id) }
        start(id, .state(buffer), pollInterval: includingOtherConnections ? pollInterval : nil, scanningInitialState: initialState)
        return ListObservation(stream: stream, buffer: buffer, store: self, id: id)
    }

    /// Like ``observe(includingOtherConnections:pollInterval:)``, but reads nothing for the observer: the
    /// first element is ``ListChangeEvent/started``, and where a state observer would get a new state it
    /// gets ``ListChangeEvent/invalidated``. For views of large stores that read their own pages. At most
    /// 64 events wait for a consumer that does not read: one more replaces them with
    /// ``ListChangeEvent/invalidated``.
    public func observeWithoutSnapshots(includingOtherConnections: Bool = true, pollInterval: Duration = .milliseconds(100)) -> ListObservation<ListChangeEvent> {
        let id = UUID()
        let buffer = ObservationBuffer<ListChangeEvent>(
            collapse: { oldest in .element(oldest == .started ? .started : .invalidated) },
            onTermination: { [hub] in hub.unsubscribe(id) })
        // Its catch-up is an element of its own: nothing is ever read for it.
        let stream = buffer.makeStream {}
        start(id, .marker(buffer), pollInterval: includingOtherConnections ? pollInterval : nil)
        return ListObservation(stream: stream, buffer: buffer, store: self, id: id)
    }

    /// Starts an observation on a background thread: catches every observer up to one read transaction
    /// of a read connection, gives the new one its first element from that transaction, and subscribes it
    /// at that position — all holding the hub's delivery lock, so nothing is missed or given twice.
    private func start(
        _ id: UUID, _ sink: ObservationHub.Sink, pollInterval: Duration?,
        scanningInitialState initialState: (@Sendable (_ scan: ((ScannedItem) throws -> Void) throws -> ListVersion) throws -> Void)? = nil
    ) {
        if pollInterval != nil && isImmutableSnapshot {
            sink.finish(
                throwing: ListStoreError.cannotObserve(
                    path: path,
                    reason:
                        "it is read as an immutable snapshot (SQLite cannot create its -shm file in that folder and no -wal file exists), so other connections' commits are never seen"
                ))
            hub.discard(id)
            return
        }
        // Holds the store weakly until it starts: a store released meanwhile is closed at once. A list
        // handle's observation lives as long as the store it came from (the handle itself may go).
        let listID = listID
        DispatchQueue.global(qos: .userInitiated).async { [weak root] in
            guard let root else {
                sink.finish(throwing: nil)  // the hub went with the store
                return
            }
            root.begin(id, sink, list: listID, pollInterval: pollInterval, scanningInitialState: initialState)
        }
    }

    /// ``start(_:_:pollInterval:scanningInitialState:)`` on its background thread, on the root store.
    private func begin(
        _ id: UUID, _ sink: ObservationHub.Sink, list listID: Int64, pollInterval: Duration?,
        scanningInitialState initialState: (@Sendable (_ scan: ((ScannedItem) throws -> Void) throws -> ListVersion) throws -> Void)?
    ) {
        do {
            let token = try readingToDeliver { db, isWriter in
                try db.readTransaction {
                    // Deliver what others committed so far to the observers there are, so that
                    // everyone, this one included, is at the same point when it starts.
                    try catchUpWithOtherConnections(db, isWriter: isWriter)
                    try SectionOrder.verify(db, list: listID)
                    let snapshot: ListSnapshot?
                    if let initialState {
                        try initialState { visit in
                            try Self.scanDense(db, list: listID, visit)
                            return try StateVersion.read(db)
                        }
                        snapshot = nil
                    } else {
                        snapshot = sink.wantsState ? try ListReader.snapshot(db, list: listID, checked: true) : nil
                    }
                    let position = try Self.position(db)
                    // Subscribed before its first element is given, so that whatever its consumer does on
                    // receiving it (write, ask for other connections' changes) reaches it after that element.
                    let token = hub.subscribe(id, sink, list: listID, pollInterval: pollInterval, at: position)
                    sink.start(snapshot)
                    return token
                }
            }
            if let token { startPoller(token) }
        } catch {
            sink.finish(throwing: error)
            hub.discard(id)
        }
    }

    /// ``scanAll(_:_:)``, throwing where a checked snapshot would: ``ListStoreError/positionsDamaged(section:)``
    /// for a row not at its index or a section whose recorded count is not its number of rows,
    /// ``ListStoreError/sectionOrderDamaged(sectionCount:lowest:highest:)`` for a section not at the next index.
    private static func scanDense(_ db: Connection, list: Int64, _ visit: (ScannedItem) throws -> Void) throws {
        var section: (index: Int, recorded: Int, rows: Int)?
        func finishSection() throws {
            if let section, section.rows != section.recorded { throw ListStoreError.positionsDamaged(section: section.index) }
        }
        try scanAll(db, list: list) { item in
            switch item {
            case .section(let index, _, _, let rowCount):
                try finishSection()
                // A gap below the highest position (which the recorded count can hide): no index names it.
                guard index == (section.map { $0.index + 1 } ?? 0) else { throw try SectionOrder.damage(db, list: list) }
                section = (index, rowCount, 0)
            case .row(let path, _):
                guard var current = section, path.row == current.rows else { throw ListStoreError.positionsDamaged(section: path.section) }
                current.rows += 1
                section = current
            }
            try visit(item)
        }
        try finishSection()
    }

    /// Gives the observer `id` a fresh state (``ListUpdate/reset(_:)``, or ``ListChangeEvent/invalidated``)
    /// in its stream, in order with every other update, read on a background thread.
    func resynchronize(_ id: UUID) {
        resynchronize(id, list: listID)
    }

    private func resynchronize(_ id: UUID, list listID: Int64) {
        DispatchQueue.global(qos: .userInitiated).async { [weak root] in
            root?.resynchronizeNow(id, list: listID)
        }
    }

    private func resynchronizeNow(_ id: UUID, list listID: Int64) {
        // Asked while the store is suspended: the observer gets its fresh state on resuming (its stream goes on).
        guard !suspension.deferResynchronization(id, list: listID) else { return }
        do {
            try readingToDeliver { db, isWriter in
                guard hub.isSubscribed(id) else { return }  // not started yet (its start brings a state), or ended
                try db.readTransaction {
                    try catchUpWithOtherConnections(db, isWriter: isWriter)
                    try SectionOrder.verify(db, list: listID)
                    try hub.publishReset(to: id) { try ListReader.snapshot(db, list: $0, checked: true) }
                }
            }
        } catch _ where isSuspended {
            resynchronize(id, list: listID)  // suspended meanwhile: deferred as above, or read again if resumed since
        } catch {
            hub.finish(id, throwing: error)
        }
    }

    /// After the store resumed (``resume()``): the poller `token` (if someone polls) starts and polls at
    /// once, so that observers catch up with what other connections committed meanwhile; the observers
    /// that asked for a fresh state meanwhile get it.
    func resumeObservation(poller token: UUID?, resynchronizing deferred: [UUID: Int64]) {
        if let token { startPoller(token, pollingAtOnce: true) }
        for (id, list) in deferred { resynchronize(id, list: list) }
    }

    /// Checks now, rather than at the next poll, for commits by other connections and delivers them (to
    /// every observer, polling or not). Reads through a read connection: it waits for no writer, only for
    /// a delivery under way (this store's write delivering its change set, the poller). Throws
    /// a ``ListStoreError/Family/fileUnusable`` error (file replaced) when the file at the store's path (or its `-wal`) is
    /// no longer the one the store opened: what it now holds can never be seen from here.
    public func deliverChangesFromOtherConnections() throws {
        guard hub.hasSubscribers else { return }
        var moved = false
        defer { if moved { readerFoundFilesMoved() } }
        try readingToDeliver { db, isWriter in
            do {
                try db.verifyFilesInPlace()
            } catch let error as FileMovedError {
                moved = true
                throw error
            }
            try catchUpWithOtherConnections(db, isWriter: isWriter)
        }
    }

    /// Starts the poller the hub asked for: it delivers other connections' commits until nobody polls.
    private func startPoller(_ token: UUID, pollingAtOnce: Bool = false) {
        hub.startPoller(token, pollingAtOnce: pollingAtOnce) { [weak root] in
            guard let self = root else { return false }  // a list handle's poller lives as long as its store
            do {
                try self.deliverChangesFromOtherConnections()
            } catch let error as ListStoreError where error.family == .busy {
                // A lock held past the busy timeout (a WAL recovery, say): the next poll catches up.
            } catch _ where self.isSuspended {
                // Suspended since this poller looked: it stops (``resume()`` starts another), the observers go on.
            } catch let error as ListStoreError where error == .reentrantCall {
                // Never from this thread; kept apart so it can never end the observation.
            } catch {
                self.hub.finishWatchers(throwing: error)
                return false
            }
            return true
        }
    }

    /// Delivers what other connections committed since the observers' position (see ``CatchingUp``).
    func catchUpWithOtherConnections(_ db: Connection, isWriter: Bool) throws {
        try catchingUp.withOtherConnections(db, isWriter: isWriter)
    }

    /// The observed lists that `db` no longer has (see ``CatchingUp/deletedObservedLists(_:)``).
    func deletedObservedLists(_ db: Connection) throws -> Set<Int64> {
        try catchingUp.deletedObservedLists(db)
    }

    /// Ends the observations of `lists` with ``ListStoreError/listDeleted(listID:)``.
    func finishObservers(ofDeletedLists lists: Set<Int64>) {
        catchingUp.finishObservers(ofDeletedLists: lists)
    }

    /// What catching up with other connections needs of this store.
    private var catchingUp: CatchingUp { CatchingUp(hub: hub, path: path, defaultListID: Self.defaultListID) }

    /// Where the store is now, for an observer that starts here.
    static func position(_ db: Connection) throws -> ObservationHub.Position {
        try CatchingUp.position(db)
    }
}
