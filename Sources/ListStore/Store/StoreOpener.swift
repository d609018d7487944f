import Foundation
import SQLiteLayer

/// What opening a store produced.
struct OpenedStore {
    let connection: Connection
    /// The file is a ListStore file of an older version; the migration runs inside the first write's
    /// transaction (or before the first read), so a failed first edit leaves the file as it was.
    let migrationPending: Bool
    /// The file is read as an immutable snapshot (no locks, no `-shm`): commits by others are not seen.
    let isImmutableSnapshot: Bool
    /// The file is not recognised yet: the first transaction recognises it, before anything else
    /// (see ``ListStore/Recognition/inFirstTransaction``).
    var recognitionPending = false
    /// Opened for inspection at this older schema version, which it keeps (nothing is migrated): reads
    /// that need tables of the current schema refuse it with ``ListStoreError/needsMigration(path:fileVersion:supportedVersion:)``.
    var inspectedOlderVersion: Int?

    /// Whether the first read must go through the writer connection: the file is not recognised or
    /// not migrated yet (read connections see the file as it is).
    var readsNeedTheWriter: Bool { migrationPending || recognitionPending }
}

/// Opens a file as a ListStore: recognises it before writing anything, then configures it.
///
/// Reading modes open the file with `SQLITE_OPEN_READONLY`, so SQLite itself can change nothing in it:
/// no checkpoint of WAL frames when the last connection closes, no rollback of a hot journal (that
/// fails with ``ListStoreError/hotJournal(path:)``). Such a connection may leave SQLite's `-wal` and
/// `-shm` files beside the file; the next writer removes them when it closes. A writing open first
/// recognises an existing file through such a read-only connection, and its own connection checkpoints
/// on close only once it has committed something.
///
/// With ``ListStore/Recognition/inFirstTransaction`` the recognition waits for the store's first transaction and
/// runs inside it: a write's `BEGIN IMMEDIATE` (which also migrates an older file) or a read's
/// transaction. One command is then one transaction, and the file it recognised is the file it changes.
struct StoreOpener: Sendable {
    /// The database's path, as given: what the store's ``ListStore/path`` and messages say.
    let path: String
    let mode: ListStore.AccessMode
    let busyTimeout: Int32
    /// The file `path` names, symbolic links followed once, as SQLite follows them: its size, header,
    /// `-wal` and `-txid` are looked at here, not the link's.
    let filePath: String
    /// The file the connection opens: `path`, or the temporary file a new store is built in before it
    /// gets its name (see ``ListStore/creatingFile(at:busyTimeout:_:)``).
    let connectionPath: String
    let recognition: ListStore.Recognition
    /// When blocks and pages of rows split and merge (tests use small sizes to force them).
    var rowBlockSizes = RowBlockSizes.standard
    /// Who this store's transactions are by, in the undo history (``ListStore/author``); nil: the
    /// default author, looked up only when asked for (a command line names its author, and never pays
    /// for the process's name).
    var author: String?
    /// How many of its author's transactions the history keeps (``ListStore/historyLimit``).
    var historyLimit = ListStore.defaultHistoryLimit
    /// Whether opening for writing creates a missing file (a store that reopens its file, ``reopen()``, does not).
    var createsMissingFile = true

    init(path: String, mode: ListStore.AccessMode, busyTimeout: Int32, recognition: ListStore.Recognition = .atOpen, buildingIn temporary: String? = nil) {
        self.path = path
        self.mode = mode
        self.busyTimeout = busyTimeout
        self.recognition = recognition
        self.connectionPath = temporary ?? path
        self.filePath = temporary ?? StorePath.resolvingLinks(path)
    }

    func open() throws -> OpenedStore {
        try translatingErrors {
            try StorePath.check(connectionPath)
            try WALOwnership.check(connectionPath, busyTimeout: busyTimeout)
            let opened = mode == .readWrite ? try openForWriting() : try openForReading()
            // The first read opened the -wal file: which one it is, to notice it being replaced later.
            // (Without a read yet, the first write transaction notes it.)
            opened.connection.recordWALFile()
            return opened
        }
    }

    /// Opens the file again, for a store that closed its connections (``ListStore/resume()``): recognised
    /// exactly as ``open()`` recognises it, but never created — a file deleted meanwhile throws
    /// ``ListStoreError/fileReplaced(path:reason:)`` and nothing is made at its path.
    func reopen() throws -> OpenedStore {
        guard FileManager.default.fileExists(atPath: filePath) else {
            throw ListStoreError.fileReplaced(path: path, reason: "it was deleted while the store was suspended")
        }
        var opener = self
        opener.createsMissingFile = false
        return try opener.open()
    }

    /// Runs `body`, turning SQLite failures into ``ListStoreError``s; one caused by the files beside
    /// the database (see ``CompanionFiles``) names that cause.
    func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SQLiteError {
            throw CompanionFiles.explain(error, path: path, file: filePath) ?? ListStoreError(error)
        } catch let error as FileMovedError {
            throw ListStoreError(error)
        }
    }

    // MARK: Reading

    private func openForReading() throws -> OpenedStore {
        if recognition == .inFirstTransaction, path != StorePath.inMemory, canMakeSharedMemoryFile, !journalFileExists {
            let connection = try connect(.readOnly)
            try connection.run("PRAGMA query_only = ON")
            return OpenedStore(connection: connection, migrationPending: false, isImmutableSnapshot: false, recognitionPending: true)
        }
        do {
            return try openForReading(as: .readOnly)
        } catch let error as SQLiteError where (error.isReadOnly || error.isCannotOpen) && !error.isHotJournal && !walFileExists {
            // SQLite cannot read a WAL file without a -shm file it can create. With no -wal file, no
            // writer is connected, so the file can be read as it is, without locks.
            return try openForReading(as: .readOnlyImmutable)
        }
    }

    private func openForReading(as connectionMode: Connection.Mode) throws -> OpenedStore {
        let connection = try connect(connectionMode)
        let version = try examine(connection)
        try connection.run("PRAGMA query_only = ON")
        if mode == .readOnly && version < Schema.migrator.latestVersion {
            throw ListStoreError.needsMigration(path: path, fileVersion: version, supportedVersion: Schema.migrator.latestVersion)
        }
        var opened = OpenedStore(connection: connection, migrationPending: false, isImmutableSnapshot: connectionMode == .readOnlyImmutable)
        if mode == .inspect && version > 0 && version < Schema.migrator.latestVersion { opened.inspectedOlderVersion = version }
        return opened
    }

    // MARK: Writing

    private func openForWriting() throws -> OpenedStore {
        if path != StorePath.inMemory, FileManager.default.fileExists(atPath: filePath + "-txid") {
            // `litestream restore -f` keeps this beside a copy it follows, and overwrites the copy with
            // the primary's changes: an edit made here would be lost without a word.
            throw ListStoreError.readReplica(path: path)
        }
        try recogniseBeforeWriting()
        if recognition == .inFirstTransaction {
            // An existing file only (a missing one is not created): recognised by the first transaction.
            // (`synchronous` is set after the first commit: setting it reads the schema, which must wait
            // for the recognition, and cannot be done inside a transaction.)
            let connection = try connect(.readWrite)
            return OpenedStore(connection: connection, migrationPending: false, isImmutableSnapshot: false, recognitionPending: true)
        }
        let connection = try connect(createsMissingFile ? .readWriteCreate : .readWrite)
        let version = try retryingWhileBusy { try examine(connection) }
        if version == 0 {
            // A new, empty file: created here, so that opening gives a usable file. Several processes
            // may be creating it at once; the migration re-checks the file under the write lock.
            try switchToWAL(connection)
            try Schema.migrator.migrate(connection, validate: { try recognise($0) })
        }
        if path != StorePath.inMemory { try connection.run("PRAGMA synchronous = NORMAL") }
        return OpenedStore(
            connection: connection, migrationPending: version > 0 && version < Schema.migrator.latestVersion,
            isImmutableSnapshot: false)
    }

    /// Recognises an existing, non-empty file through a read-only connection before a connection that
    /// may write touches it, when a `-journal` file lies beside it: the writing connection's first read
    /// would roll back a hot journal before it could tell whose file it is. Without one, the writing
    /// connection's own first read changes nothing in the file (it does not checkpoint on close until it
    /// has committed), so the file is recognised once, there.
    private func recogniseBeforeWriting() throws {
        guard path != StorePath.inMemory, let size = StorePath.size(filePath), size > 0, journalFileExists else { return }
        do {
            _ = try examine(try connect(.readOnly))
        } catch let error as SQLiteError where error.isHotJournal {
            // Rolling back an interrupted write is a writer's job — but only on a file that is ours.
            guard FileHeader(path: filePath)?.applicationID == Int(Schema.applicationID) else { throw ListStoreError.hotJournal(path: path) }
        } catch let error as SQLiteError where error.isReadOnly || error.isCannotOpen {
            // No -shm file can be made here: the writing connection says what is wrong. (A lock held past
            // the busy timeout is thrown as it is: the writing connection would only wait as long again.)
        }
    }

    /// After a store's first commit: a file someone switched to another journal mode goes back to WAL,
    /// and a store that recognised its file in that commit's transaction sets `synchronous` now. Best
    /// effort: the file stays readable and safe either way.
    func settleAfterFirstCommit(_ connection: Connection) {
        if recognition == .inFirstTransaction, path != StorePath.inMemory { try? connection.run("PRAGMA synchronous = NORMAL") }
        try? switchToWAL(connection)
    }

    /// Switches a new file to WAL journaling. SQLite answers `SQLITE_BUSY` without calling the busy
    /// handler when another process is switching the same file at that moment, so this waits itself.
    func switchToWAL(_ connection: Connection) throws {
        guard path != StorePath.inMemory else { return }
        try retryingWhileBusy {
            guard try connection.scalarText("PRAGMA journal_mode")?.lowercased() != "wal" else { return }
            let mode = try connection.scalarText("PRAGMA journal_mode = WAL")?.lowercased()
            // SQLite keeps the old mode, without an error, when it cannot change it now.
            if mode != "wal" { throw SQLiteError(extendedCode: 5, message: "could not switch \(path) to WAL journaling yet (journal mode is \(mode ?? "unknown"))") }
            connection.recordWALFile()
        }
    }

    /// Runs `body`, again and again while it fails with `SQLITE_BUSY`, until the busy timeout has passed.
    func retryingWhileBusy<T>(_ body: () throws -> T) throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(busyTimeout))
        var pause = 1
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.isBusy && clock.now < deadline {
                usleep(useconds_t(pause * 1_000))
                pause = min(pause * 2, 50)
            }
        }
    }

    // MARK: Recognising

    /// A connection in `connectionMode`, hardened, that does not checkpoint on close.
    func connect(_ connectionMode: Connection.Mode) throws -> Connection {
        let connection = try Connection(path: connectionPath, mode: connectionMode)
        connection.setBusyTimeout(milliseconds: busyTimeout)
        try connection.setCheckpointOnClose(false)
        try connection.enableDefensiveMode()
        // ListStore keeps the row counts itself (Positions/); the triggers count other programs' writes.
        try connection.disableTriggers()
        try connection.run("PRAGMA foreign_keys = ON")
        return connection
    }

    /// Checks the file through `connection` (size, recognition, a probe of its pages) and returns its
    /// schema version. Only reads.
    private func examine(_ connection: Connection) throws -> Int {
        do {
            if mode != .inspect { try checkFileSize(connection) }
            let version = try recognise(connection)
            if mode != .inspect && version > 0 { try probe(connection) }
            return version
        } catch let error as SQLiteError where error.isHotJournal {
            throw mode == .readWrite ? error : ListStoreError.hotJournal(path: path)
        }
    }

    /// Throws unless the file is empty (new) or a ListStore file this build can read, with exactly the
    /// schema its version should have; returns its version. Only reads, in one read transaction (or the
    /// caller's transaction), so another process creating the file at that moment cannot be seen half
    /// done. (`inspect` mode accepts an altered schema.)
    @discardableResult
    func recognise(_ connection: Connection) throws -> Int {
        connection.isAutocommit ? try connection.readTransaction { try recogniseInTransaction(connection) } : try recogniseInTransaction(connection)
    }

    private func recogniseInTransaction(_ connection: Connection) throws -> Int {
        let applicationID: Int
        let version: Int
        let objectCount: Int
        do {
            // One statement: the application id, the schema version and how many schema objects there are.
            (applicationID, version, objectCount) =
                try connection.cached(
                    "SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_schema)"
                ).bind([]).first { ($0.int(0), $0.int(1), $0.int(2)) } ?? (0, 0, 0)
        } catch let error as SQLiteError where error.isCorruptOrNotADatabase {
            throw unreadable(error)
        }
        if applicationID == 0 && version == 0 && objectCount == 0 { return 0 }  // a new, empty file
        guard applicationID == Int(Schema.applicationID) else {
            let reason =
                FileHeader(path: filePath)?.applicationID == Int(Schema.applicationID) && walFileExists
                ? "the file itself is marked as ListStore's, but its -wal file holds another database's pages (application_id \(applicationID), \(objectCount) schema objects); move \(filePath)-wal away if it does not belong to it"
                : applicationID == 0
                    ? "a SQLite database of another application: it has \(objectCount) schema objects and no ListStore application_id"
                    : "a SQLite database of another application: its application_id is \(applicationID)"
            throw ListStoreError.notAListStore(path: path, reason: reason)
        }
        if version > Schema.migrator.latestVersion {
            throw ListStoreError.newerSchema(path: path, fileVersion: version, supportedVersion: Schema.migrator.latestVersion)
        }
        if mode != .inspect, let difference = try Schema.differences(in: connection, version: version).first {
            throw ListStoreError.schemaAltered(path: path, detail: difference)
        }
        return version
    }

    /// A file SQLite cannot read as a database: damaged, when its header says it is ours; otherwise
    /// not a ListStore file. (Also for a store's first write transaction, whose `BEGIN IMMEDIATE` reads
    /// the header before the recognition inside it runs.)
    func unreadable(_ error: SQLiteError) -> ListStoreError {
        if FileHeader(path: filePath)?.applicationID == Int(Schema.applicationID) {
            return ListStoreError.corrupt("\(path): \(error.message)")
        }
        return ListStoreError.notAListStore(path: path, reason: "not a SQLite database, or a damaged one: \(error.message)")
    }

    private var walFileExists: Bool { FileManager.default.fileExists(atPath: filePath + "-wal") }
    private var journalFileExists: Bool { FileManager.default.fileExists(atPath: filePath + "-journal") }

    /// Whether SQLite can open a `-shm` file beside the file for writing (make one, or write the one
    /// there), which it needs to read a file in WAL mode; where it cannot, reading falls back to an
    /// immutable read, which is decided while opening.
    private var canMakeSharedMemoryFile: Bool {
        let shm = filePath + "-shm"
        if FileManager.default.fileExists(atPath: shm) { return access(shm, R_OK | W_OK) == 0 }
        return access(StorePath.folder(of: filePath), W_OK | X_OK) == 0
    }

    // MARK: Recognising in the first transaction

    /// Recognises the file inside the write transaction the caller has open (`BEGIN IMMEDIATE`: the
    /// write lock is held, nothing is written yet) and migrates an older (or new, empty) file in that
    /// same transaction, so that the edit and the migration commit or roll back together. Returns true
    /// when it migrated.
    func recogniseWithinWrite(_ connection: Connection) throws -> Bool {
        let version = try examine(connection)
        guard version < Schema.migrator.latestVersion else { return false }
        try Schema.migrator.migrateWithinTransaction(connection)
        return true
    }

    /// Recognises the file inside the read transaction the caller has open. Returns true when a store
    /// opened for writing must migrate it before reading; a reading store refuses an older file.
    func recogniseWithinRead(_ connection: Connection) throws -> Bool {
        let version = try examine(connection)
        guard version < Schema.migrator.latestVersion else { return false }
        if mode == .readOnly {
            throw ListStoreError.needsMigration(path: path, fileVersion: version, supportedVersion: Schema.migrator.latestVersion)
        }
        return mode == .readWrite
    }

    /// A ListStore file shorter than its header says was truncated. Checked only when no -wal file
    /// holds newer pages, and only for files that carry ListStore's application id.
    private func checkFileSize(_ connection: Connection) throws {
        guard path != StorePath.inMemory, !walFileExists,
            let header = FileHeader(of: connection), header.applicationID == Int(Schema.applicationID),
            let expected = header.declaredSize,
            let fileSize = StorePath.size(filePath)
        else { return }
        if fileSize < expected {
            throw ListStoreError.corrupt("\(path) is \(fileSize) bytes but its header says \(expected): it was truncated")
        }
    }

    /// Reads the root and edge pages of the tables and indexes, so a damaged file fails here,
    /// before anything is written, rather than halfway through an edit.
    private func probe(_ connection: Connection) throws {
        do {
            _ = try connection.scalarInt(
                """
                SELECT (SELECT count(*) FROM sections) + coalesce((SELECT max(id) FROM rows), 0) + coalesce((SELECT min(id) FROM rows), 0)
                     + coalesce((SELECT max(position) FROM rows WHERE section_id = (SELECT min(id) FROM sections)), 0)
                """)
        } catch let error as SQLiteError where error.isCorruptOrNotADatabase {
            throw ListStoreError.corrupt("\(path): \(error.message)")
        }
    }
}
