import Foundation
import SQLiteLayer

/// Observing a store: the state, then every change, each once, in commit order.
extension ListStore {
    /// The state of the store, then every change committed after it, in commit order — nothing missed,
    /// nothing twice, whatever other processes commit meanwhile: the first element is
    /// ``ListUpdate/initial(_:)``, read atomically with the start of the observation; then
    /// ``ListUpdate/changes(_:)`` for each commit (with the values a table view draws), or
    /// ``ListUpdate/reset(_:)`` when the store was changed in a way no change set describes.
    ///
    /// With `includingOtherConnections` (the default), commits by other connections — another process,
    /// another `ListStore` on the same file, the `sqlite3` shell — are noticed by checking SQLite's
    /// `PRAGMA data_version` every `pollInterval` and reading what they did from the change log, at a
    /// cost in proportion to what changed; several commits within one interval arrive as one change
    /// set. One poller thread serves all observers of a store, and none runs while nobody watches
    /// other connections. The store's own commits arrive at once, whatever the interval, and observing
    /// adds nothing to the cost of a write but a look at the change log's position.
    ///
    /// The stream ends when its task is cancelled or it is dropped; it ends with an error when the store
    /// cannot be read or observed (``isImmutableSnapshot``, a damaged file, positions damaged by hand, the
    /// file at its path replaced or deleted — noticed at the next poll: ``ListStoreError/fileReplaced(path:reason:)``),
    /// rather than going quiet.
    /// With `startingWith: .marker` the first element is ``ListUpdate/started`` and nothing is read: for
    /// views of large stores that read their own pages.
    public func observe(
        includingOtherConnections: Bool = true,
        pollInterval: Duration = .milliseconds(100),
        startingWith start: ObservationStart = .state
    ) -> AsyncThrowingStream<ListUpdate, any Error> {
        let id = UUID()
        let (stream, continuation) = AsyncThrowingStream<ListUpdate, any Error>.makeStream(bufferingPolicy: .unbounded)
        let poller: StopFlag?
        do {
            if includingOtherConnections && isImmutableSnapshot {
                throw ListStoreError.cannotObserve(
                    path: path,
                    reason:
                        "it is read as an immutable snapshot (SQLite cannot create its -shm file in that folder and no -wal file exists), so other connections' commits are never seen"
                )
            }
            poller = try withLockedConnection { db in
                // Deliver what others committed so far to the observers there are, so that everyone,
                // this one included, is at the same point when it starts.
                try self.catchUpWithOtherConnections(db)
                let (snapshot, position) = try db.readTransaction {
                    try SectionOrder.verify(db)
                    return (
                        start == .state ? try ListReader.snapshot(db, checked: true) : nil,
                        try Self.position(db)
                    )
                }
                continuation.yield(snapshot.map(ListUpdate.initial) ?? .started)
                return self.hub.subscribe(
                    id, continuation, watchesOtherConnections: includingOtherConnections, wantsState: start == .state,
                    at: position)
            }
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        continuation.onTermination = { [hub] _ in hub.unsubscribe(id) }
        if let poller { startPoller(poller, every: pollInterval) }
        return stream
    }

    /// Checks now, rather than at the next poll, for commits by other connections and delivers them.
    /// Throws ``ListStoreError/fileReplaced(path:reason:)`` when the file at the store's path (or its
    /// `-wal`) is no longer the one the store opened: what it now holds can never be seen from here.
    public func deliverChangesFromOtherConnections() throws {
        guard hub.watchesOtherConnections else { return }
        try withLockedConnection { db in
            do {
                try db.verifyFilesInPlace()
            } catch let error as FileMovedError {
                filesMoved(error.file, db)
                throw error
            }
            try self.catchUpWithOtherConnections(db)
        }
    }

    /// A thread of its own, so noticing other processes' commits never waits for a busy task pool.
    private func startPoller(_ stopped: StopFlag, every pollInterval: Duration) {
        let interval = Double(pollInterval.components.seconds) + Double(pollInterval.components.attoseconds) / 1e18
        let poller = Thread { [weak self] in
            while !stopped.isSet {
                Thread.sleep(forTimeInterval: interval)
                guard let self, !stopped.isSet else { return }
                do {
                    try self.deliverChangesFromOtherConnections()
                } catch ListStoreError.busy {
                    // A writer held its lock past the busy timeout: the next poll catches up.
                } catch ListStoreError.reentrantCall {
                    // Never from this thread; kept apart so it can never end the observation.
                } catch {
                    self.hub.finishWatchers(throwing: error)
                    return
                }
            }
        }
        poller.name = "ListStore change poller"
        poller.start()
    }

    /// If other connections committed since the observers' position, delivers what they did and moves
    /// the position. Runs with the store's lock held, inside a transaction or not.
    func catchUpWithOtherConnections(_ db: Connection) throws {
        guard let position = hub.position else { return }
        let version = try Self.dataVersion(db)
        guard version != position.dataVersion else { return }
        // A change set, or nil: nothing to tell, or a reset already published (inside the read, so that
        // its state, read only for observers that want it, is the one at this position).
        let read = { () throws -> (update: ListUpdate?, head: LogHead) in
            let head = try LogHead.read(db)
            if head.schemaVersion != position.schemaVersion {
                // The triggers that log hand edits may be gone: go on only if the schema is still ours.
                if let difference = try Schema.differences(in: db, version: try Migrator.version(of: db)).first {
                    throw ListStoreError.cannotObserve(
                        path: self.path,
                        reason:
                            "its schema was changed outside ListStore (\(difference)), so hand edits may no longer be logged; undo that change in the sqlite3 shell or restore a backup"
                    )
                }
            } else if let changes = try ChangeLog.changes(after: position.logSequence, ceilings: position.ceilings, head: head, db) {
                return (changes.isEmpty ? nil : .changes(changes), head)
            }
            do {
                try SectionOrder.verify(db)
                try self.hub.publishReset(fromOtherConnections: true) { try ListReader.snapshot(db, checked: true) }
                return (nil, head)
            } catch let error as ListStoreError {
                switch error {
                case .positionsDamaged, .sectionOrderDamaged: throw ListStoreError.cannotObserve(path: self.path, reason: "\(error)")
                default: throw error
                }
            }
        }
        let (update, head) = try db.isAutocommit ? db.readTransaction(read) : read()
        if let update { hub.publish(update, fromOtherConnections: true) }
        hub.setPosition(
            ObservationHub.Position(
                logSequence: head.lastSequence, dataVersion: version, ceilings: head.ceilings,
                schemaVersion: head.schemaVersion))
    }

    /// Where the store is now, for an observer that starts here.
    static func position(_ db: Connection) throws -> ObservationHub.Position {
        let head = try LogHead.read(db)
        return ObservationHub.Position(
            logSequence: head.lastSequence, dataVersion: try dataVersion(db), ceilings: head.ceilings,
            schemaVersion: head.schemaVersion)
    }

    static func dataVersion(_ db: Connection) throws -> Int {
        try db.scalarInt("PRAGMA data_version") ?? 0
    }
}
