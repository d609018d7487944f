import Foundation
import Synchronization
import SQLiteLayer

/// Observing a store: every committed change, once, in commit order.
extension ListStore {
    /// The change sets of every change committed from now on, in commit order, until the stream is
    /// dropped or the task iterating it is cancelled.
    ///
    /// With `otherConnections` (the default), commits made by other connections — another process, the
    /// `sqlite3` shell, another `ListStore` on the same file — are noticed by polling SQLite's
    /// `data_version` every `pollInterval` and reported as the difference between the snapshots before
    /// and after them (moves inferred). That keeps one snapshot of the store in memory while observed.
    ///
    /// The stream ends early, rather than wait for changes it could never see, when other connections
    /// cannot be watched (``isImmutableSnapshot``) or the store can no longer be read.
    public func changes(includingOtherConnections otherConnections: Bool = true,
                        pollInterval: Duration = .milliseconds(100)) -> AsyncStream<ChangeSet> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .unbounded)
        guard otherConnections else {
            broadcaster.subscribe(id, continuation, watchesOtherConnections: false)
            continuation.onTermination = { [broadcaster] _ in broadcaster.unsubscribe(id) }
            return stream
        }
        guard !isImmutableSnapshot else {
            // Read without locks or a -shm file, the file never shows other connections' commits.
            continuation.finish()
            return stream
        }
        do {
            try withLockedConnection { db in
                self.broadcaster.subscribe(id, continuation, watchesOtherConnections: true)
                if self.broadcaster.baseline == nil { try self.refreshBaseline(db) }
            }
        } catch {
            // The store cannot be read: end the stream rather than pretend to observe.
            continuation.finish()
            return stream
        }
        // A thread of its own, so noticing other processes' commits never waits for a busy task pool.
        let stopped = StopFlag()
        let interval = Double(pollInterval.components.seconds) + Double(pollInterval.components.attoseconds) / 1e18
        let poller = Thread { [weak self] in
            while !stopped.isSet {
                Thread.sleep(forTimeInterval: interval)
                guard let self, !stopped.isSet else { return }
                do {
                    try self.deliverChangesFromOtherConnections()
                } catch ListStoreError.busy {
                    // A writer held its lock past the busy timeout: the next poll catches up.
                } catch {
                    // The store can no longer be read (damaged, replaced by something else): say so by
                    // ending the streams instead of going quiet.
                    self.broadcaster.finishWatchers()
                    return
                }
            }
        }
        poller.name = "ListStore change poller"
        poller.start()
        continuation.onTermination = { [broadcaster] _ in
            stopped.set()
            broadcaster.unsubscribe(id)
        }
        return stream
    }

    /// Checks now (rather than at the next poll) for commits by other connections and delivers them.
    public func deliverChangesFromOtherConnections() throws {
        guard broadcaster.watchesOtherConnections else { return }
        try withLockedConnection { db in try self.catchUpWithOtherConnections(db) }
    }

    /// If another connection committed since the baseline, publishes the difference and moves the baseline.
    /// Runs with the store's lock held.
    func catchUpWithOtherConnections(_ db: Connection) throws {
        guard let (baseline, version) = broadcaster.baseline else { return }
        let current = try db.scalarInt("PRAGMA data_version") ?? 0
        guard current != version else { return }
        let snapshot = try db.isAutocommit ? db.readTransaction { try readSnapshot(db) } : readSnapshot(db)
        broadcaster.publish(ChangeSet.between(baseline, snapshot))
        broadcaster.setBaseline(snapshot, dataVersion: current)
    }

    /// Reads the baseline afresh. Runs with the store's lock held, outside a transaction.
    func refreshBaseline(_ db: Connection) throws {
        let (snapshot, version) = try db.readTransaction { try readBaseline(db) }
        broadcaster.setBaseline(snapshot, dataVersion: version)
    }

    /// The current snapshot and the `data_version` it belongs to; the caller provides the transaction.
    func readBaseline(_ db: Connection) throws -> (snapshot: ListSnapshot, dataVersion: Int) {
        (try readSnapshot(db), try db.scalarInt("PRAGMA data_version") ?? 0)
    }
}

/// A one-way switch shared between a poller thread and the stream that owns it.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
