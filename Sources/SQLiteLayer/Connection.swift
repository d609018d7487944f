import CSQLite
import Foundation

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe by itself: wrap it in a lock (ListStore uses a lock) to share it.
/// Closing happens when the last reference goes away.
package final class Connection {
    /// How a database file is opened.
    package enum Mode: Sendable {
        /// Read and write; create the file when it does not exist.
        case readWriteCreate
        /// Read and write an existing file; fail when it does not exist.
        case readWrite
        /// Read only; any write fails with `SQLITE_READONLY`.
        case readOnly
        /// Read only, without locks or a `-shm` file: for a file nobody is writing that sits where
        /// this process cannot create files (SQLite's `immutable=1`).
        case readOnlyImmutable
    }

    /// The path this connection was opened with (`:memory:` for an in-memory database).
    package let path: String
    let handle: OpaquePointer
    private var statementCache: [String: Statement] = [:]
    /// The statements of ``cached(fixed:)``, by the address of their SQL text.
    private var fixedStatements: [UInt: Statement] = [:]
    /// The `-wal` file the connection has open, as first seen (see ``recordWALFile()``).
    var walFile: (path: String, id: FileID)?
    /// The main file's device and inode, as first asked for (see ``mainFile()``).
    var mainFileID: FileID?
    /// What a layer above remembers of the file as this connection last read it, with the
    /// ``readStamp()`` it was read under: valid while the stamp is unchanged.
    package var memo: (stamp: ReadStamp, value: AnyObject)?
    /// What a layer above remembers between this connection's own write transactions; the layer checks
    /// that it still holds (e.g. that no other connection committed since: `PRAGMA data_version`).
    package var writeMemo: AnyObject?
    /// What a layer above keeps for the one transaction under way (``transaction(_:_:)`` forgets it as each begins and ends).
    package var transactionMemo: AnyObject?
    /// Stops the connection's work from another thread (``Interruption``).
    package let interruption: Interruption
    /// The busy handler's state (``setBusyTimeout(milliseconds:)``), kept as long as the connection.
    private var busyWait: BusyWait?
    /// Whether closing may checkpoint (``setCheckpointOnClose(_:)``); SQLite's default is yes.
    private var checkpointsOnClose = true

    /// Identifies the state of the file this connection reads: equal stamps, both taken inside read
    /// transactions, mean that nothing was committed in between — by another connection or by this one
    /// (the pager's data version, `SQLITE_FCNTL_DATA_VERSION`, which changes with every commit seen or
    /// made; and the connection's total changes, which every INSERT, UPDATE and DELETE increases, even
    /// one later rolled back).
    package struct ReadStamp: Equatable, Sendable {
        let dataVersion: UInt32
        let changes: Int64
    }

    /// Whether the connection is inside a transaction that has written (or holds the write lock).
    package var isWriting: Bool { sqlite3_txn_state(handle, "main") == SQLITE_TXN_WRITE }

    /// The stamp of the state this connection now reads, or nil unless it holds a read transaction
    /// that has started reading and has written nothing (in a write transaction the state changes with
    /// every statement). A read transaction is held inside `BEGIN … ROLLBACK` once a statement has read,
    /// and, in autocommit, while a statement that returned a row is not yet reset: the stamp then
    /// describes what that statement reads. No statement runs: a file control and a counter.
    package func readStamp() -> ReadStamp? {
        guard sqlite3_txn_state(handle, "main") == SQLITE_TXN_READ else { return nil }
        var version: UInt32 = 0
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
        return ReadStamp(dataVersion: version, changes: sqlite3_total_changes64(handle))
    }

    /// Opens `path` with extended result codes. Nothing is written to the file by opening it.
    ///
    /// `path` is always a plain file name (see ``fileName(for:)``): `file:x.sqlite` is a file of that
    /// name, never a URI, so every command reads and writes the same file. Only `:memory:` is special.
    package init(path: String, mode: Mode) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readOnlyImmutable: flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
        }
        let name = mode == .readOnlyImmutable ? Self.immutableURI(path) : Self.fileName(for: path)
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(name, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            let extended = opened.map { sqlite3_extended_errcode($0) } ?? code
            sqlite3_close_v2(opened)
            throw SQLiteError(extendedCode: extended, message: "cannot open \(path): \(message)")
        }
        self.path = path
        self.handle = opened
        self.interruption = Interruption(opened)
        sqlite3_extended_result_codes(opened, 1)
        StatementRecorder.attach(opened, path: path)
    }

    /// The name to give SQLite for the file at `path`, so that it is read as a plain file name even
    /// where SQLite interprets names beginning with `file:` as URIs (`SQLITE_USE_URI`, or
    /// `SQLITE_CONFIG_URI`): a relative path gets a leading `./`. `:memory:` stays SQLite's
    /// in-memory database. Use it for every file name handed to SQLite, `VACUUM INTO` included.
    package static func fileName(for path: String) -> String {
        if path == ":memory:" || path.hasPrefix("/") || path.hasPrefix("./") { return path }
        return "./" + path
    }

    /// `file:///ABSOLUTE/PATH?immutable=1`, with the characters URIs reserve escaped. The path is made
    /// absolute, so that nothing in it can be read as a URI authority or as `:memory:`.
    private static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var escaped = ""
        for byte in absolute.utf8 {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x20, 0x7F...:
                escaped += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            default:
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return "file://" + escaped + "?immutable=1"
    }

    deinit {
        fixedStatements.removeAll()
        statementCache.removeAll()
        // SQLite keeps an interrupt that found no statement running, and would stop the checkpoint on close
        // with it; a statement started with none running clears it.
        if interruption.closing() { sqlite3_exec(handle, "SELECT 1", nil, nil, nil) }
        if checkpointsOnClose { _ = csqlite_db_config_flag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0) }
        sqlite3_close_v2(handle)
    }

    /// Waits up to `milliseconds` for another connection's lock before failing with `SQLITE_BUSY`,
    /// trying again every millisecond (``BusyWait``).
    package func setBusyTimeout(milliseconds: Int32) {
        let wait = BusyWait(milliseconds: milliseconds, interruption: interruption)
        busyWait = wait
        BusyWait.install(wait, on: handle)
    }

    /// Hardens the connection against files from elsewhere (SQLite's "Defense Against the Dark Arts"):
    /// defensive mode (no writable schema, no corrupting pragmas) and no untrusted schema functions.
    package func enableDefensiveMode() throws {
        try check(csqlite_db_config_flag(handle, SQLITE_DBCONFIG_DEFENSIVE, 1), sql: "sqlite3_db_config(SQLITE_DBCONFIG_DEFENSIVE)")
        try check(csqlite_db_config_flag(handle, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0), sql: "sqlite3_db_config(SQLITE_DBCONFIG_TRUSTED_SCHEMA)")
    }

    /// Turns off the file's triggers for this connection (`SQLITE_DBCONFIG_ENABLE_TRIGGER`): its writes
    /// then do exactly what its statements say, and the triggers serve other programs' writes only.
    /// Foreign-key actions (`ON DELETE CASCADE`) still run.
    package func disableTriggers() throws {
        try check(csqlite_db_config_flag(handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0), sql: "sqlite3_db_config(SQLITE_DBCONFIG_ENABLE_TRIGGER)")
    }

    /// Whether closing the last connection to the file may checkpoint the WAL into the main file (and
    /// then remove the `-wal` and `-shm` files). SQLite does so by default; a connection that must not
    /// change the main file's bytes — one that only reads, or has not yet recognised the file — turns
    /// it off (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`), leaving committed frames in the `-wal` file.
    ///
    /// Turning it off takes effect at once. Turning it on takes effect when the connection closes:
    /// changing a connection's flags makes SQLite expire every statement it has prepared, and each would
    /// be compiled again on its next use (a store turns it on after its first commit, which made the
    /// second write after opening cost three times a usual one).
    package func setCheckpointOnClose(_ enabled: Bool) throws {
        checkpointsOnClose = enabled
        guard !enabled else { return }
        try check(csqlite_db_config_flag(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1), sql: "sqlite3_db_config(SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE)")
    }

    /// A prepared statement for `sql`, reused across calls. Use for fixed SQL text.
    package func cached(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] { return statement }
        let statement = try Statement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// The statement ``cached(_:)`` gives for `sql`, found by the address of the literal's text instead
    /// of by hashing and comparing it: for the statements of the hottest reads, called for every one.
    package func cached(fixed sql: StaticString) throws -> Statement {
        guard sql.hasPointerRepresentation else { return try cached(sql.description) }
        let key = UInt(bitPattern: sql.utf8Start)
        if let statement = fixedStatements[key] { return statement }
        let statement = try cached(sql.description)
        fixedStatements[key] = statement
        return statement
    }

    /// How many times SQLite has compiled this connection's cached statements again since they were
    /// prepared (`SQLITE_STMTSTATUS_REPREPARE`): each time a change of the schema or of the connection's
    /// flags expired them. Edits in a steady state compile nothing again.
    package var recompilations: Int {
        statementCache.values.reduce(0) { $0 + Int(sqlite3_stmt_status($1.handle, SQLITE_STMTSTATUS_REPREPARE, 0)) }
    }

    /// How many steps SQLite's virtual machine has run for this connection's cached statements since they
    /// were prepared (`SQLITE_STMTSTATUS_VM_STEP`): for tests that prove an edit's work does not grow with
    /// the file (one step per row a statement visits, about). Statements run once, uncached (`run`,
    /// `scalarInt`), are not counted.
    package var virtualMachineSteps: Int {
        var handles = Set(statementCache.values.map(\.handle))
        handles.formUnion(fixedStatements.values.map(\.handle))
        return handles.reduce(0) { $0 + Int(sqlite3_stmt_status($1, SQLITE_STMTSTATUS_VM_STEP, 0)) }
    }

    /// A fresh prepared statement for `sql`, not cached.
    package func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql)
    }

    /// Runs one cached statement with `values` bound, discarding results.
    package func run(_ sql: String, _ values: [SQLiteValue] = []) throws {
        try cached(sql).bind(values).run()
    }

    /// Runs one cached statement and returns its first column of its first row as an integer, or nil.
    package func scalarInt(_ sql: String, _ values: [SQLiteValue] = []) throws -> Int? {
        try cached(sql).bind(values).first { $0.isNull(0) ? nil : $0.int(0) } ?? nil
    }

    /// Runs one cached statement and returns its first column of its first row as text, or nil.
    package func scalarText(_ sql: String, _ values: [SQLiteValue] = []) throws -> String? {
        try cached(sql).bind(values).first { $0.optionalText(0) } ?? nil
    }

    /// Runs a script of several statements (such as a migration). No values can be bound.
    package func executeScript(_ sql: String) throws {
        StatementRecorder.record(sql: sql, parameterCount: 0, path: path)
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql, systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Rows inserted, updated or deleted by every INSERT, UPDATE and DELETE this connection has completed
    /// since it opened (`sqlite3_total_changes64`), triggers' writes included.
    package var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// The rowid of the most recent successful INSERT on this connection.
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// True outside an explicit transaction.
    package var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// True when the connection was opened read-only or the file cannot be written.
    package var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    func error(code: Int32, sql: String?) -> SQLiteError {
        let extended = sqlite3_extended_errcode(handle)
        // sqlite3_errmsg describes the most recent failure, which is this one when the codes agree.
        let message = (extended & 0xFF) == (code & 0xFF) ? String(cString: sqlite3_errmsg(handle)) : String(cString: sqlite3_errstr(code))
        return SQLiteError(
            extendedCode: (extended & 0xFF) == (code & 0xFF) ? extended : code, message: message, sql: sql,
            systemErrno: sqlite3_system_errno(handle))
    }

    private func check(_ code: Int32, sql: String) throws {
        guard code == SQLITE_OK else { throw error(code: code, sql: sql) }
    }
}
