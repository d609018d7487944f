import SQLiteLayer

/// Catching a store's observers up with what other connections (other stores, other processes, hand
/// edits) committed: the change log read since the observers' position, each list's change set or a
/// fresh state delivered, the position moved. What ``ListStore`` needs of it, below the façade.
struct CatchingUp {
    /// The hub that feeds the store's observers.
    let hub: ObservationHub
    /// The store's path, for errors.
    let path: String
    /// The list every file has: left out when looking for observed lists deleted since.
    let defaultListID: Int64

    /// If other connections committed since the observers' position, delivers what they did and moves
    /// the position. Runs holding the hub's delivery lock, inside a transaction or not; `isWriter` when
    /// `db` is the writer connection (whose `data_version` then spares reading the log when nobody else
    /// committed).
    func withOtherConnections(_ db: Connection, isWriter: Bool) throws {
        guard let position = hub.position else { return }
        let version = isWriter ? try Self.dataVersion(db) : nil
        if let version, version == position.writerDataVersion { return }
        // Each list's change set, or nil: nothing to tell, or a reset already published (inside the read,
        // so that its state, read only for observers that want it, is the one at this position).
        let read = { () throws -> (update: [Int64: ChangeSet]?, head: LogHead, reset: Bool, deleted: Set<Int64>) in
            let head = try LogHead.read(db)
            if head.schemaVersion != position.schemaVersion {
                // The triggers that log hand edits may be gone: go on only if the schema is still ours.
                if let difference = try Schema.differences(in: db, version: try Migrator.version(of: db)).first {
                    throw ListStoreError.cannotObserve(
                        path: path,
                        reason:
                            "its schema was changed outside ListStore (\(difference)), so hand edits may no longer be logged; undo that change in the sqlite3 shell or restore a backup"
                    )
                }
            } else if position.isContinued(by: head),
                let logged = try ChangeLog.changes(after: position.logSequence, ceilings: position.ceilings, head: head, db)
            {
                // Lists a structure entry names read afresh; the others get their change sets (none for a
                // list nothing changed in: its observers are not woken).
                if !logged.resets.isEmpty { try publishVerifiedReset(lists: logged.resets, db) }
                let changed = logged.lists.filter { !$0.value.isEmpty }
                let quiet = changed.isEmpty && logged.resets.isEmpty
                return (changed.isEmpty ? nil : changed, head, !logged.resets.isEmpty, quiet ? [] : try deletedObservedLists(db))
            }
            try publishVerifiedReset(lists: nil, db)
            return (nil, head, true, try deletedObservedLists(db))
        }
        let (update, head, reset, deleted) = try db.isAutocommit ? db.readTransaction(read) : read()
        if let update { hub.publish(update) }
        finishObservers(ofDeletedLists: deleted)
        let unchanged = update == nil && !reset && head.lastSequence == position.logSequence && head.schemaVersion == position.schemaVersion
        hub.setPosition(
            ObservationHub.Position(
                logSequence: head.lastSequence, ceilings: head.ceilings, schemaVersion: head.schemaVersion,
                writerDataVersion: version ?? (unchanged ? position.writerDataVersion : nil), counterRow: head.counterRow))
    }

    /// The observed lists that `db` no longer has (deleted since, here, by another process or by hand):
    /// their observers get the change that deleted their sections, then ``finishObservers(ofDeletedLists:)``.
    func deletedObservedLists(_ db: Connection) throws -> Set<Int64> {
        let observed = hub.observedLists.subtracting([defaultListID])
        guard !observed.isEmpty else { return [] }
        return observed.subtracting(try db.cached("SELECT id FROM lists").map { $0.int64(0) })
    }

    /// Ends the observations of `lists` with ``ListStoreError/listDeleted(listID:)``.
    func finishObservers(ofDeletedLists lists: Set<Int64>) {
        hub.finish(observersOf: lists) { ListStoreError.listDeleted(listID: $0) }
    }

    /// Gives the observers of `lists` (nil: of every list) a fresh state, each observed list's section
    /// order and positions checked first: damage no state can show ends their observation instead.
    private func publishVerifiedReset(lists: Set<Int64>?, _ db: Connection) throws {
        do {
            for list in (lists ?? hub.observedLists).intersection(hub.observedLists) { try SectionOrder.verify(db, list: list) }
            try hub.publishReset(lists: lists) { try ListReader.snapshot(db, list: $0, checked: true) }
        } catch let error as ListStoreError {
            switch error.reason {
            case .positionsDamaged, .sectionOrderDamaged, .sectionCountDamaged: throw ListStoreError.cannotObserve(path: path, reason: "\(error)")
            default: throw error
            }
        }
    }

    /// Where the store is now, for an observer that starts here.
    static func position(_ db: Connection) throws -> ObservationHub.Position {
        let head = try LogHead.read(db)
        return ObservationHub.Position(
            logSequence: head.lastSequence, ceilings: head.ceilings, schemaVersion: head.schemaVersion, writerDataVersion: nil,
            counterRow: head.counterRow)
    }

    static func dataVersion(_ db: Connection) throws -> Int {
        try db.scalarInt("PRAGMA data_version") ?? 0
    }
}
