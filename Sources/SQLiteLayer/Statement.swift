import CSQLite

/// A prepared statement. Obtain one from `Connection.cached(_:)` (reused) or `Connection.prepare(_:)`.
///
/// Not thread-safe: it belongs to its connection, which is used by one thread at a time.
package final class Statement {
    /// The SQL text this statement was prepared from.
    package let sql: String
    @usableFromInline let handle: OpaquePointer
    private unowned let connection: Connection
    /// The connection's (``Interruption``), held here: a statement may be stepped after its `Connection`
    /// object is gone (SQLite keeps the connection open until its last statement is finalized).
    private let interruption: Interruption

    init(connection: Connection, sql: String) throws {
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard code == SQLITE_OK, let prepared else {
            sqlite3_finalize(prepared)
            throw connection.error(code: code, sql: sql)
        }
        self.sql = sql
        self.handle = prepared
        self.connection = connection
        self.interruption = connection.interruption
        StatementRecorder.record(sql: sql, parameterCount: sqlite3_bind_parameter_count(prepared), path: connection.path)
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears earlier bindings and state, then binds `values` to parameters 1…n.
    @discardableResult
    package func bind(_ values: [SQLiteValue]) throws -> Statement {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
        return self
    }

    /// Resets the statement, keeping its bindings: for one whose every parameter the caller binds
    /// again (``bind(_:at:)``), without the array and the clearing of ``bind(_:)``.
    @inlinable package func reset() -> Statement {
        sqlite3_reset(handle)
        return self
    }

    /// Binds one value to the 1-based parameter `index`.
    package func bind(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .integer(let number):
            code = sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            code = sqlite3_bind_double(handle, index, number)
        case .text(var text):
            code = text.withUTF8 { bytes in
                // An empty buffer may have no base address, which SQLite would bind as NULL.
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text64(handle, index, $0, sqlite3_uint64(bytes.count), csqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob64(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(raw.count), csqlite_transient())
            }
        case .null:
            code = sqlite3_bind_null(handle, index)
        }
        guard code == SQLITE_OK else { throw connection.error(code: code, sql: sql) }
    }

    /// Advances to the next result row; returns false when the statement has finished. Inlinable, as
    /// are the column accessors, so that a read's loop over its rows runs without a call per column.
    /// A statement does not start on an interrupted connection (``Interruption``).
    @inlinable package func step() throws -> Bool {
        if sqlite3_stmt_busy(handle) == 0 { try refuseIfInterrupted() }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw failure(code)
    }

    /// Throws `SQLITE_INTERRUPT` when the connection was interrupted: called before the statement starts.
    @usableFromInline func refuseIfInterrupted() throws {
        if interruption.wasInterrupted {
            throw SQLiteError(extendedCode: SQLITE_INTERRUPT, message: "interrupted: the store is being suspended", sql: sql)
        }
    }

    /// The error of a failed step (the statement is reset).
    @usableFromInline func failure(_ code: Int32) -> SQLiteError {
        let failure = connection.error(code: code, sql: sql)
        sqlite3_reset(handle)
        return failure
    }

    /// Runs the statement to completion, discarding any result rows.
    package func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Calls `body` for every result row, then resets the statement.
    @inlinable package func forEachRow(_ body: (Statement) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while try step() { try body(self) }
    }

    /// Calls `body` for result rows until it returns false or the rows run out, then resets the statement.
    @inlinable package func forEachRowWhile(_ body: (Statement) throws -> Bool) throws {
        defer { sqlite3_reset(handle) }
        while try step() {
            guard try body(self) else { return }
        }
    }

    /// Maps every result row through `transform`. Inlinable, as are ``first(_:)`` and the loops, so
    /// that the caller's module specializes them: a generic call per row costs a type-metadata look-up.
    @inlinable package func map<T>(_ transform: (Statement) throws -> T) throws -> [T] {
        var results: [T] = []
        try forEachRow { results.append(try transform($0)) }
        return results
    }

    /// The first result row, mapped through `transform`, or nil when there is none.
    @inlinable package func first<T>(_ transform: (Statement) throws -> T) throws -> T? {
        defer { sqlite3_reset(handle) }
        return try step() ? transform(self) : nil
    }

    /// Whether column `index` (0-based) of the current row is NULL.
    @inlinable package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` of the current row as an integer (NULL reads as 0).
    @inlinable package func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` of the current row as an `Int` (NULL reads as 0).
    @inlinable package func int(_ index: Int32) -> Int { Int(sqlite3_column_int64(handle, index)) }

    /// Column `index` of the current row as a floating-point number (NULL reads as 0).
    package func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Column `index` of the current row as text (NULL reads as "").
    @inlinable package func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` of the current row as text, or nil when it is NULL.
    @inlinable package func optionalText(_ index: Int32) -> String? { isNull(index) ? nil : text(index) }

    /// Column `index` of the current row as bytes (a BLOB's; text as its UTF-8), or nil when it is NULL.
    package func blob(_ index: Int32) -> [UInt8]? {
        if isNull(index) { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
