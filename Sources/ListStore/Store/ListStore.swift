import Foundation
import SQLiteLayer

/// A durable store of sectioned, ordered lists — the data behind a table view — in one SQLite file.
///
/// Sections hold rows; both are addressed by zero-based index (``ListIndexPath``) and carry stable ids.
/// Every mutation is one `BEGIN IMMEDIATE` transaction that validates its input against the current
/// file (another process may have written since the caller last read), is all-or-nothing, and returns
/// a ``ChangeSet`` saying exactly what changed. The store is safe to share between threads; several
/// processes can use the same file at once.
public final class ListStore: Sendable {
    /// Where the store lives: a file path, or `:memory:`.
    public let path: String
    /// How the store was opened; only `.readWrite` stores accept mutations.
    public let mode: AccessMode
    /// True when the file is read as an immutable snapshot: it sits where SQLite cannot create its
    /// `-shm` file (a read-only folder) and no `-wal` file exists, so it is read without locks and
    /// commits by other connections are never seen. ``observe(includingOtherConnections:pollInterval:)``
    /// then cannot watch other connections: its stream ends at once with ``ListStoreError/cannotObserve(path:reason:)``
    /// (observing with `includingOtherConnections: false` still works).
    package let isImmutableSnapshot: Bool
    /// The writer connection and what is known about it: one thread at a time uses them, only inside the
    /// lock. Writes, migrations and backups use it; reads use `readers` and never wait for it. Nil while
    /// the store is suspended (``suspend()``): its connection is closed.
    private let lock: Locked<ConnectionState?>
    /// The read connections (see ``ReaderPool``); nil for `:memory:`, whose one connection does everything
    /// (an in-memory database is private to its connection, and has no other writer to wait for).
    private let readers: ReaderPool?
    /// Whether the file is not yet recognised (opening left that to the first transaction) or is of an
    /// older schema version not yet migrated: the first read then goes through the writer connection
    /// (once), since read connections see the file as it is.
    private let readsNeedTheWriter: Locked<Bool>
    /// Whether the store is suspended (see ``suspend()``): shared by every list handle, like the connections.
    let suspension: Suspension
    /// How the store was opened; recognises the file again under the write lock before a migration.
    private let opener: StoreOpener
    /// Observers of committed changes, and where they are in the change log: one hub per file, shared by
    /// every list handle (``list(named:)``), so one poller serves every list and observer.
    let hub: ObservationHub
    /// The serial queue background writes wait and run on: one per store, shared by every list handle.
    let backgroundWrites: BackgroundWriteQueue
    /// The list this handle acts on: the default list (id 1) for the store ``open(at:mode:busyTimeout:)``
    /// returns, another for a handle from ``list(named:)``.
    let listID: Int64

    /// The store's writer connection and what the store knows about it, guarded by `lock`. A connection may
    /// be used by one thread at a time: this value is reachable only through `lock.withLock`, which
    /// is what the unchecked `Sendable` states (a `Connection` itself is not `Sendable`).
    private struct ConnectionState: @unchecked Sendable {
        /// The store's writer connection (in reading modes: its first read-only connection).
        let connection: Connection
        /// The file is at an older schema version; the next transaction migrates it first.
        var migrationPending: Bool
        /// Opening left recognising the file to the first transaction (``ListStore/Recognition``).
        var recognitionPending: Bool
        /// Something was committed, so closing may checkpoint the WAL into the main file.
        var hasCommitted = false

        /// The state of the connection `opened` made.
        init(_ opened: OpenedStore) {
            self.connection = opened.connection
            self.migrationPending = opened.migrationPending
            self.recognitionPending = opened.recognitionPending
        }
    }

    /// The older schema version of a file opened for inspection (``AccessMode/inspect``), which is not migrated.
    private let inspectedOlderVersion: Int?

    init(opener: StoreOpener, opened: OpenedStore) {
        self.inspectedOlderVersion = opened.inspectedOlderVersion
        self.path = opener.path
        self.mode = opener.mode
        self.opener = opener
        self.isImmutableSnapshot = opened.isImmutableSnapshot
        self.readsNeedTheWriter = Locked(opened.readsNeedTheWriter)
        if opener.path == StorePath.inMemory {
            self.readers = nil
        } else {
            // The files the first connection recognised: every read connection must hold the same ones.
            let files = opened.connection.openedFiles()
            let immutable = opened.isImmutableSnapshot
            self.readers = ReaderPool(opener: opener, holding: files, immutable: immutable)
            if opener.mode == .readWrite && !immutable {
                Self.enlargeCache(ofWriter: opened.connection)
            }
        }
        self.lock = Locked(ConnectionState(opened))
        self.hub = ObservationHub()
        self.backgroundWrites = BackgroundWriteQueue()
        self.suspension = Suspension(writer: opened.connection.interruption)
        self.listID = Self.defaultListID
        self.owner = nil
    }

    /// A handle on list `listID` sharing everything of `store`: its connections, lock, readers, hub and
    /// background write queue.
    init(sharing store: ListStore, listID: Int64) {
        self.inspectedOlderVersion = store.inspectedOlderVersion
        self.path = store.path
        self.mode = store.mode
        self.opener = store.opener
        self.isImmutableSnapshot = store.isImmutableSnapshot
        self.readsNeedTheWriter = store.readsNeedTheWriter
        self.readers = store.readers
        self.lock = store.lock
        self.hub = store.hub
        self.backgroundWrites = store.backgroundWrites
        self.suspension = store.suspension
        self.listID = listID
        self.owner = store.owner ?? store
    }

    /// The id of the default list, which every file has (schema 8 moved every older file's sections into it).
    static let defaultListID: Int64 = 1

    /// The store a list handle came from, kept alive while the handle is (nil for that store itself).
    private let owner: ListStore?
    /// The store whose lifetime is the file's: itself, or the store a list handle came from. Observations
    /// and the poller hold it (weakly), so that they outlive a handle but not the store.
    var root: ListStore { owner ?? self }

    deinit {
        // Read connections first, so that the writer is the last connection and may checkpoint on close.
        if owner == nil { readers?.closeIdle() }
    }

    /// The most page cache, in KiB, a store's writer connection keeps (SQLite's default is 2,048): a
    /// constant the writer's memory may grow by with the size of a write, up to this.
    static let writerPageCacheKiB = 16_384

    /// A large write's pages stay in the writer's cache (16 MiB, SQLite's default 2 MiB, taken only as
    /// used): 1,000 scattered deletes in a million rows touch some 2,100 pages. Best effort.
    private static func enlargeCache(ofWriter connection: Connection) {
        try? connection.run("PRAGMA cache_size = -\(writerPageCacheKiB)")
    }

    /// The schema version this build writes (`PRAGMA user_version` of a fully migrated file).
    package static var schemaVersion: Int { Schema.migrator.latestVersion }

    /// How a store is opened.
    public enum AccessMode: Sendable {
        /// Read and write; a missing file is created and every file is migrated to the current schema.
        case readWrite
        /// Read only; a missing file is an error and nothing is ever written.
        case readOnly
        /// Read only, for diagnosis: also opens a file whose schema was altered or whose pages are
        /// damaged, so that ``ListStore/checkInvariants()`` can report what is wrong with it.
        case inspect
    }

    /// Opens the store at `path`, creating it when needed: ``open(at:mode:busyTimeout:author:historyLimit:)``
    /// for a path (this package's command line and tests name files by path).
    ///
    /// `path` is a plain file name (`file:x.sqlite` is a file of that name, not a URI); only `:memory:`
    /// means an in-memory store. Folders, devices and FIFOs are refused before SQLite sees them.
    /// The file is recognised before anything is written to it: another application's SQLite file,
    /// a file that is not SQLite, or a file from a newer ListStore throws and is left byte-for-byte untouched.
    /// A new file is created and migrated here; a file of an older schema version is migrated inside the
    /// first write's transaction (or before the first read), so a failed first edit leaves it as it was.
    /// Opening takes no write lock otherwise, and reading modes never change the file's bytes.
    /// - Parameters:
    ///   - path: the file, or `:memory:` for a store that lives in memory.
    ///   - mode: ``AccessMode/readWrite`` (the default) to edit; ``AccessMode/readOnly`` or
    ///     ``AccessMode/inspect`` to only read.
    ///   - busyTimeout: how long a write waits for another process's lock, in milliseconds.
    package static func open(at path: String, mode: AccessMode = .readWrite, busyTimeout: Int32 = 5_000) throws -> ListStore {
        try open(at: path, mode: mode, busyTimeout: busyTimeout, rowBlockSizes: .standard)
    }

    /// ``open(at:mode:busyTimeout:)`` with other block sizes: tests force splits and merges with small ones.
    static func open(at path: String, mode: AccessMode = .readWrite, busyTimeout: Int32 = 5_000, rowBlockSizes: RowBlockSizes) throws -> ListStore {
        var opener = StoreOpener(path: path, mode: mode, busyTimeout: busyTimeout)
        opener.rowBlockSizes = rowBlockSizes
        return ListStore(opener: opener, opened: try opener.open())
    }

    /// The block sizes this store's edits split and merge at.
    var rowBlockSizes: RowBlockSizes { opener.rowBlockSizes }

    /// ``open(at:mode:busyTimeout:)`` with an author and a history limit (see ``open(at:mode:busyTimeout:author:historyLimit:)-(String,_,_,_,_)``).
    static func open(at path: String, mode: AccessMode, busyTimeout: Int32, author: String, historyLimit: Int, rowBlockSizes: RowBlockSizes) throws -> ListStore {
        var opener = StoreOpener(path: path, mode: mode, busyTimeout: busyTimeout)
        opener.rowBlockSizes = rowBlockSizes
        opener.author = try HistoryNames.checkedAuthor(author)
        opener.historyLimit = try HistoryNames.checkedLimit(historyLimit)
        return ListStore(opener: opener, opened: try opener.open())
    }

    /// Who this store's transactions are by in the undo history: the `author` it was opened with, else
    /// the process's name. ``ListStore/undo(by:)`` and ``ListStore/redo(by:)`` take back this author's transactions.
    public var author: String { opener.author ?? Self.defaultAuthor }

    /// How many of its author's last transactions this store keeps in the file's history (the
    /// `historyLimit` it was opened with, else ``defaultHistoryLimit``); 0 keeps none.
    package var historyLimit: Int { opener.historyLimit }

    /// A new, empty store that lives in memory until it is released; for previews and tests.
    public static func inMemory() throws -> ListStore {
        try open(at: ":memory:")
    }

    /// Runs a mutation: `body` inside one `BEGIN IMMEDIATE` transaction, all-or-nothing; records it in
    /// the change log for observers in other processes; then the change set it returns goes to this
    /// store's observers. A mutation that changed nothing is rolled back, so it leaves the file as it
    /// was. SQLite errors become ``ListStoreError``s.
    func mutate(_ body: (Connection) throws -> (changes: ChangeSet, log: ChangeLog.Entry)) throws -> ChangeSet {
        try mutateSeeingLogState { db, _ in try body(db) }
    }

    /// A mutation whose body is also told the state of the change log's state row as the transaction
    /// found it (before marking the transaction ListStore's own put it back), for ``repair()``.
    /// `repairing`: the write that brings back a default list deleted by hand, which every other write refuses.
    func mutateSeeingLogState(
        repairing: Bool = false, _ body: (Connection, LogState) throws -> (changes: ChangeSet, log: ChangeLog.Entry)
    ) throws -> ChangeSet {
        let listID = listID
        let all = try mutatingLists { db, state in
            // A handle on a list deleted since (by another handle or process) edits nothing.
            if !repairing { _ = try Self.existingName(of: listID, db) }
            let (changes, log) = try body(db, state)
            return (changes.isEmpty ? [:] : [listID: changes], log)
        }
        return all.changes[listID] ?? all.unchanged
    }

    /// A mutation of any number of lists: `body` returns each list's change set (a list it did not change
    /// left out); each list's observers get their own. Returns them, with the change set of a list the
    /// mutation left unchanged (its version the state after the commit).
    func mutatingLists(_ body: (Connection, LogState) throws -> (changes: [Int64: ChangeSet], log: ChangeLog.Entry)) throws -> (
        changes: [Int64: ChangeSet], unchanged: ChangeSet
    ) {
        guard mode == .readWrite else { throw ListStoreError.openedForReading(path: path) }
        return try locked { state in
            let connection = state.connection
            return try opener.translatingErrors {
                var write = WriteProgress(recognising: state.recognitionPending, migrating: state.migrationPending)
                defer { endDelivery(write) }
                var changes: [Int64: ChangeSet]
                do {
                    changes = try connection.transaction(.immediate) {
                        beginDelivery(&write)
                        try migrateWithinWrite(connection, &write)
                        // Under the write lock: first deliver what others committed before this change.
                        try catchUpWithOtherConnections(connection, isWriter: true)
                        let (changes, log) = try runBody(body, connection)
                        // The payload-index entries of the rows this write (or another program since) wrote.
                        try PayloadIndex.refreshStale(connection)
                        try throwIfNothingChanged(changes, log, connection, &write)
                        try finishLog(log, connection, &write)
                        return changes
                    }
                } catch is NothingChanged {
                    return ([:], write.unchangedChangeSet)
                } catch let error as FileMovedError {
                    filesMoved(error.file, connection)
                    throw error
                } catch let error as SQLiteError where write.recognising && error.isCorruptOrNotADatabase {
                    throw opener.unreadable(error)  // found as the transaction began, before the recognition inside it
                }
                markCommitted(&state)
                let unchanged = stampVersions(&changes, write)
                try publish(changes, write, connection)
                return (changes, unchanged)
            }
        }
    }

    /// What one run of ``mutatingLists(_:)`` has learnt so far, from its steps for its steps.
    private struct WriteProgress {
        /// The file is recognised within this write (``ListStore/Recognition/inFirstTransaction``).
        let recognising: Bool
        /// An older file is migrated within this write (or, after recognition, turned out to need it).
        var migrating: Bool
        /// Whether this write holds the hub's delivery lock.
        var delivering = false
        /// The change log's sequence number of this write's entry, once written.
        var logSequence: Int64?
        /// The change-log entry the body returned, once the write is to be committed.
        var entry = ChangeLog.Entry.structure(lists: nil)
        /// The state the file was left in when the write changed nothing.
        var unchangedVersion = ListVersion.unversioned
        /// The observed lists this write deleted.
        var deletedLists: Set<Int64> = []

        /// The change set of a write that changed nothing: empty, of the state the file was left in.
        var unchangedChangeSet: ChangeSet {
            var unchanged = ChangeSet()
            unchanged.version = unchangedVersion
            return unchanged
        }
    }

    /// Takes the delivery lock, from the catch-up until this commit's change set is published: taken once
    /// the write lock is held, so nobody's delivery waits while this write waits for it.
    private func beginDelivery(_ write: inout WriteProgress) {
        if !write.delivering {
            hub.beginDelivery()
            write.delivering = true
        }
    }

    /// Gives the delivery lock back, however the write ended.
    private func endDelivery(_ write: WriteProgress) {
        if write.delivering { hub.endDelivery() }
    }

    /// Recognises the file, or migrates an older one, inside the write's transaction.
    private func migrateWithinWrite(_ connection: Connection, _ write: inout WriteProgress) throws {
        // An older file is migrated in this same transaction: if the edit fails, so does the migration.
        if write.recognising {
            write.migrating = try opener.recogniseWithinWrite(connection)
        } else if write.migrating {
            try Schema.migrator.migrateWithinTransaction(connection, validate: { try opener.recognise($0) })
        }
    }

    /// Starts the change log's record of this write and runs `body` with it.
    private func runBody(
        _ body: (Connection, LogState) throws -> (changes: [Int64: ChangeSet], log: ChangeLog.Entry), _ connection: Connection
    ) throws -> (changes: [Int64: ChangeSet], log: ChangeLog.Entry) {
        let logState = try ChangeLog.beginWriting(connection)
        try WALOwnership.recordBase(connection)
        try ReplicaIdentity.claim(connection)
        let (changes, log) = try body(connection, logState)
        // SQLite may have rolled the transaction back after an error the body caught: write nothing more.
        if connection.isAutocommit { throw ListStoreError.transactionRolledBack }
        return (changes, log)
    }

    /// Throws ``NothingChanged`` (which rolls the transaction back) when the write changed nothing,
    /// noting the state the file was left in.
    private func throwIfNothingChanged(_ changes: [Int64: ChangeSet], _ log: ChangeLog.Entry, _ connection: Connection, _ write: inout WriteProgress) throws {
        if changes.values.allSatisfy(\.isEmpty), case .edits = log, !write.migrating {
            write.unchangedVersion = try StateVersion.read(connection)
            throw NothingChanged()
        }
    }

    /// Writes the change log's entry for this write, noting the lists it deleted.
    private func finishLog(_ log: ChangeLog.Entry, _ connection: Connection, _ write: inout WriteProgress) throws {
        write.entry = log
        write.deletedLists = try deletedObservedLists(connection)
        write.logSequence = try ChangeLog.finishWriting(connection, log)
    }

    /// After the commit: the file is recognised and migrated, and reads no longer need the writer.
    private func markCommitted(_ state: inout ConnectionState) {
        state.migrationPending = false
        state.recognitionPending = false
        readsNeedTheWriter.withLock { $0 = false }
        committed(&state)
    }

    /// Gives the change sets the state after the commit (``ListVersion``), and returns the change set
    /// of a list the write left unchanged, of that state.
    private func stampVersions(_ changes: inout [Int64: ChangeSet], _ write: WriteProgress) -> ChangeSet {
        var unchanged = ChangeSet()
        guard let logSequence = write.logSequence else { return unchanged }
        let version = ListVersion(rawValue: logSequence)
        if case .edits = write.entry {
            for list in changes.keys { changes[list]?.version = version }
            unchanged.version = version
        } else {
            // A structural write (an import, a list's deletion) is logged without its edits; the change
            // sets it did build still lead to the state it committed (an untracked write's empty one does not).
            for (list, listChanges) in changes where !listChanges.isEmpty { changes[list]?.version = version }
        }
        return unchanged
    }

    /// Hands the committed change sets to this store's observers.
    private func publish(_ changes: [Int64: ChangeSet], _ write: WriteProgress, _ connection: Connection) throws {
        if changes.values.allSatisfy(\.isEmpty), case .structure(let lists) = write.entry, hub.hasSubscribers {
            // Changed, but with no change set to tell (an untracked write): those lists' observers reload.
            do {
                try hub.publishReset(lists: lists) { list in
                    try connection.readTransaction { try ListReader.snapshot(connection, list: list, checked: false) }
                }
            } catch {
                // Committed, then interrupted by suspend() while it read the state these observers reload:
                // they get it when the store resumes.
                guard connection.interruption.wasInterrupted else { throw error }
                for (id, list) in hub.observers(of: lists) { _ = suspension.deferResynchronization(id, list: list) }
            }
        } else {
            hub.publish(changes)
        }
        finishObservers(ofDeletedLists: write.deletedLists)
        if let logSequence = write.logSequence { hub.advance(toLogSequence: logSequence) }
    }

    /// Rolls back a mutation that changed nothing.
    private struct NothingChanged: Error {}

    /// Runs `body` inside one read transaction on a read connection, so every statement sees the same
    /// committed state — without waiting for any writer (see ``ReaderPool``).
    func withReadTransaction<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
        guard let older = inspectedOlderVersion else { return try withCurrentSchemaReadTransaction(body) }
        // An older file under inspection lacks the current schema's tables (row_blocks since 7): a read
        // that needs them is refused as for ``AccessMode/readOnly``; the rest (its version, `check`) works.
        do { return try withCurrentSchemaReadTransaction(body) } catch let error as ListStoreError {
            guard case .database(let failure) = error.reason, failure.message.hasPrefix("no such") else { throw error }
            throw ListStoreError.needsMigration(path: path, fileVersion: older, supportedVersion: Schema.migrator.latestVersion)
        }
    }

    private func withCurrentSchemaReadTransaction<T: Sendable>(_ read: (Connection) throws -> T) throws -> T {
        // A handle on a list deleted since reads nothing (its list's sections are gone, not empty).
        let listID = listID
        return try withoutActuallyEscaping(read) { read in
            try readingCurrentSchema { db in
                if listID != Self.defaultListID {
                    _ = try Self.existingName(of: listID, db)
                    ExtentMemo.record(db) { $0.lists.insert(listID) }
                }
                return try read(db)
            }
        }
    }

    /// Runs `body` on a read connection outside any transaction, for a read of one statement that
    /// checks for itself which state it read (``MemoReads``), with the re-entrancy check every call
    /// makes; nil, without running it, while reads still need the writer connection (a file not yet
    /// recognised or migrated) or the file is an older one under inspection: the caller then reads in
    /// a transaction (``withReadTransaction(_:)``).
    func withoutTransaction<T: Sendable>(_ body: (Connection) throws -> T?) throws -> T? {
        guard inspectedOlderVersion == nil, !readsNeedTheWriter.withLock({ $0 }) else { return nil }
        return try guardingReentrancy { try reading { db, _ in db.isAutocommit ? try body(db) : nil } }
    }

    private func readingCurrentSchema<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
        try guardingReentrancy {
            // Until the file is recognised (and migrated) the writer connection reads, recognising it in
            // the same read transaction when opening left that to the first one.
            if readsNeedTheWriter.withLock({ $0 }),
                let value = try withWriter({ state -> T? in
                    try opener.translatingErrors {
                        guard state.recognitionPending || state.migrationPending else { return nil }
                        let recognising = state.recognitionPending && mode != .readWrite
                        if !recognising { try recogniseIfPending(&state) }
                        try migrateIfPending(&state)
                        let connection = state.connection
                        let value = try connection.readTransaction {
                            if recognising { _ = try opener.recogniseWithinRead(connection) }
                            return try body(connection)
                        }
                        state.recognitionPending = false
                        settled(state)
                        return value
                    }
                })
            {
                return value
            }
            return try reading { db, _ in try db.readTransaction { try body(db) } }
        }
    }

    /// Runs `body` with a read connection, outside any transaction, without waiting for any writer: an
    /// idle read connection already open; else the writer connection if no thread uses it now (so that a
    /// process that reads while nothing else runs — a CLI command — needs no second connection); else a
    /// new read connection, or the first to come free (see ``ReaderPool``). `body` is told whether it was
    /// given the writer connection. A `:memory:` store has one connection, used under its lock. No
    /// re-entrancy check and no migration: for callers that made both.
    func reading<T: Sendable>(_ body: (Connection, _ isWriter: Bool) throws -> T) throws -> T {
        guard let readers else {
            return try withWriter { state in try opener.translatingErrors { try body(state.connection, true) } }
        }
        if let value = try readers.withIdleReader({ db in try opener.translatingErrors { try body(db, false) } }) { return value }
        if let value = try withWriterIfAvailable({ state in try opener.translatingErrors { try body(state.connection, true) } }) {
            return value
        }
        return try readers.withReader { db in try opener.translatingErrors { try body(db, false) } }
    }

    /// Runs `body` with a read connection (as ``reading(_:)``) and the hub's delivery lock, for what reads
    /// and publishes updates in order with every other delivery: the poller, an observation's start, a
    /// resynchronisation. Waits for a write of this store only while it delivers its change set (its
    /// write lock is held by then), never while it waits for the write lock.
    func readingToDeliver<T: Sendable>(_ body: (Connection, _ isWriter: Bool) throws -> T) throws -> T {
        try guardingReentrancy {
            try prepareForReading()
            // The writer connection's lock (if taken) before the delivery lock, in the order a write takes them.
            return try reading { db, isWriter in try hub.delivering { try body(db, isWriter) } }
        }
    }

    /// Runs `body` with the writer connection and the store's lock, outside any transaction.
    func withLockedConnection<T: Sendable>(_ body: (Connection) throws -> T) throws -> T {
        try locked { state in
            try opener.translatingErrors {
                try recogniseIfPending(&state)
                try migrateIfPending(&state)
                return try body(state.connection)
            }
        }
    }

    /// Runs `body` holding the writer connection's lock. A call made on the same thread from inside
    /// another call's closure — a `write` or `read` closure, a `scan` or import callback — throws
    /// `reentrantCall` instead of waiting forever for the lock (or a read connection) its caller holds.
    private func locked<T>(_ body: (inout ConnectionState) throws -> T) throws -> T {
        try guardingReentrancy { try withWriter(body) }
    }

    /// Runs `body` with the writer connection's state, holding its lock; throws
    /// ``ListStoreError/suspended(path:)`` while the store is suspended (its connection closed).
    ///
    /// A call that was waiting for the lock when ``suspend()`` began is refused once it gets it; one that
    /// ``suspend()`` interrupted (``Interruption``) throws ``ListStoreError/suspended(path:)`` too, its
    /// transaction rolled back.
    private func withWriter<T>(_ body: (inout ConnectionState) throws -> T) throws -> T {
        try lock.withLock { slot in
            guard var state = slot else { throw ListStoreError.suspended(path: path) }
            try suspension.refuseIfSuspended(path)
            defer { slot = state }
            do { return try body(&state) } catch { throw refusal(after: error, on: state.connection) }
        }
    }

    /// What a call that used `connection` throws for `error`: ``ListStoreError/suspended(path:)`` once
    /// ``suspend()`` interrupted the connection (the interruption made it fail), else `error`.
    func refusal(after error: any Error, on connection: Connection) -> any Error {
        connection.interruption.wasInterrupted ? ListStoreError.suspended(path: path) : error
    }

    /// ``withWriter(_:)`` if no other thread holds the lock now; nil at once, without running `body`, if one does.
    private func withWriterIfAvailable<T>(_ body: (inout ConnectionState) throws -> T) throws -> T? {
        try lock.withLockIfAvailable { slot in
            guard var state = slot else { throw ListStoreError.suspended(path: path) }
            try suspension.refuseIfSuspended(path)
            defer { slot = state }
            do { return try body(&state) } catch { throw refusal(after: error, on: state.connection) }
        }
    }

    /// How many times the writer connection's statements were compiled again (``Connection/recompilations``),
    /// for tests: an edit after the first pays for no statement twice.
    func writerRecompilations() throws -> Int { try locked { $0.connection.recompilations } }

    /// How many virtual-machine steps the writer connection's cached statements have run
    /// (``Connection/virtualMachineSteps``), for tests: what an edit visits, in rows and index entries.
    func writerVirtualMachineSteps() throws -> Int { try locked { $0.connection.virtualMachineSteps } }

    /// The rows the writer connection has inserted, updated and deleted since it opened
    /// (``Connection/totalChanges``), for the benchmark: what an edit wrote, in rows, is the difference.
    package func writerTotalChanges() throws -> Int { try locked { $0.connection.totalChanges } }

    /// Runs `body` marked, in the thread's storage (``CallMarks``), as inside a call on this store (its
    /// lock, shared by its list handles); throws ``ListStoreError/reentrantCall`` when the thread already is,
    /// and ``ListStoreError/suspended(path:)`` at once, without waiting for anything, while the store is suspended.
    private func guardingReentrancy<T>(_ body: () throws -> T) throws -> T {
        try suspension.refuseIfSuspended(path)
        return try markingCall(body)
    }

    /// Runs `body` marked as inside a call on this store; throws ``ListStoreError/reentrantCall`` when
    /// the thread already is. Without the suspension check: for ``suspend()`` and ``resume()`` themselves.
    func markingCall<T>(_ body: () throws -> T) throws -> T {
        try CallMarks.marking(ObjectIdentifier(lock), body)
    }

    /// Before the first read of a store whose file is not yet recognised or migrated: does both through
    /// the writer connection (waiting for it this once), since read connections see the file as it is.
    private func prepareForReading() throws {
        guard readsNeedTheWriter.withLock({ $0 }) else { return }
        try withWriter { state in
            try opener.translatingErrors {
                try recogniseIfPending(&state)
                try migrateIfPending(&state)
            }
        }
    }

    /// Once the file is recognised and migrated, reads stop going through the writer connection.
    private func settled(_ state: ConnectionState) {
        if !state.recognitionPending && !state.migrationPending { readsNeedTheWriter.withLock { $0 = false } }
    }

    /// Recognises the file in a read transaction of its own, when opening left that to the first
    /// transaction and the first call is not one that can do it inside its own (a write, or a reading
    /// store's read).
    private func recogniseIfPending(_ state: inout ConnectionState) throws {
        guard state.recognitionPending else { return }
        let connection = state.connection
        state.migrationPending = try connection.readTransaction { try opener.recogniseWithinRead(connection) }
        state.recognitionPending = false
        settled(state)
    }

    /// Before the first read of a store opened for writing on an older file: migrates it, in its own
    /// transactions (a read cannot fail halfway through an edit the way a write can).
    private func migrateIfPending(_ state: inout ConnectionState) throws {
        guard state.migrationPending else { return }
        do {
            try Schema.migrator.migrate(state.connection, validate: { try opener.recognise($0) })
        } catch let error as FileMovedError {
            filesMoved(error.file, state.connection)
            throw error
        }
        state.migrationPending = false
        settled(state)
        committed(&state)
    }

    /// After the connection's first commit: the file is ours and was written, so the last connection to
    /// close may checkpoint the WAL and remove the -wal and -shm files; and a file someone switched to
    /// another journal mode goes back to WAL (best effort: it stays readable either way).
    private func committed(_ state: inout ConnectionState) {
        guard !state.hasCommitted else { return }
        state.hasCommitted = true
        try? state.connection.setCheckpointOnClose(true)
        opener.settleAfterFirstCommit(state.connection)
    }

    /// After a write (or a poll) found the connection's files moved. When only the main file moved — a
    /// file renamed over the path, or deleted — the `-wal` beside the path is still this connection's, and
    /// holds the old file's commits, which SQLite would read as part of whatever file is at the path now
    /// (and, the file having moved, never checkpoints or removes on close): they are checkpointed into the
    /// old file (the one this store recognised) and the `-wal` is truncated, best effort — another
    /// connection still reading the old file keeps them there. When the `-wal` moved, the one at the path
    /// is someone else's: closing must leave it alone.
    /// `connection` is the store's, lent by the lock its caller holds.
    func filesMoved(_ file: Connection.MovedFile, _ connection: Connection) {
        guard mode == .readWrite else { return }
        switch file {
        case .database where connection.movedWALFile() == nil:
            try? connection.run("PRAGMA wal_checkpoint(TRUNCATE)")
        case .database, .wal:
            try? connection.setCheckpointOnClose(false)
        }
    }

    /// After a read connection found the store's files moved (a poll): the writer connection, whose
    /// `-wal` holds this store's commits, does what ``filesMoved(_:_:)`` says for the files it finds moved.
    /// Called holding no lock of the store's.
    func readerFoundFilesMoved() {
        try? withWriter { state in
            if let moved = state.connection.movedFile() { filesMoved(moved, state.connection) }
        }
    }

    static func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        try ListStoreError.translating(body)
    }

    // MARK: Suspension (see ``suspend()``)

    /// Closes every connection the store has on its file: the read connections once the reads running
    /// now end, then the writer connection once the write running now ends (it checkpoints as it closes
    /// once it has committed, as when the store is released). Every call is refused from then on, until
    /// ``reopenConnections()``.
    func closeConnections() {
        suspension.interruptWriter()
        readers?.suspend()
        lock.withLock { $0 = nil }
    }

    /// Opens the connections that ``closeConnections()`` closed, recognising the file as opening does
    /// (``StoreOpener/reopen()``: never creating it). Throws, with every connection still closed, when
    /// the file is no longer one this store may use.
    func reopenConnections() throws {
        let opened = try opener.reopen()
        if let readers {
            readers.resume(opener: opener, holding: opened.connection.openedFiles(), immutable: opened.isImmutableSnapshot)
            if mode == .readWrite && !opened.isImmutableSnapshot { Self.enlargeCache(ofWriter: opened.connection) }
        }
        readsNeedTheWriter.withLock { $0 = opened.readsNeedTheWriter }
        suspension.watchWriter(opened.connection.interruption)
        lock.withLock { $0 = ConnectionState(opened) }
    }
}
