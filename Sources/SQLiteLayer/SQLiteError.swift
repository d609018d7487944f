import CSQLite

/// A failure reported by SQLite, with enough context to act on it:
/// the extended result code, SQLite's own message and the SQL that failed.
package struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The extended result code (e.g. `SQLITE_CONSTRAINT_UNIQUE`).
    package let extendedCode: Int32
    /// SQLite's message for this failure (`sqlite3_errmsg`).
    package let message: String
    /// The statement that failed, when the failure belongs to one.
    package let sql: String?
    /// The `errno` of the system call behind the failure (`sqlite3_system_errno`), or 0: tells a full
    /// disk (`ENOSPC`) from the file size limit (`EFBIG`) when SQLite only says "disk I/O error".
    package let systemErrno: Int32

    /// Creates an error from its parts; the SQLite layer builds these from result codes.
    package init(extendedCode: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …), without the extended bits.
    package var primaryCode: Int32 { extendedCode & 0xFF }

    /// True when another connection held a lock for longer than the busy timeout.
    package var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// True when the file is not a database, or its content is damaged.
    package var isCorruptOrNotADatabase: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    /// True when the file or its folder cannot be written.
    package var isReadOnly: Bool { primaryCode == SQLITE_READONLY }

    /// True when a read-only connection met a hot rollback journal (`SQLITE_READONLY_ROLLBACK`): an
    /// interrupted write that only a connection allowed to write may roll back into the file.
    package var isHotJournal: Bool { extendedCode == CSQLITE_READONLY_ROLLBACK }

    /// True when SQLite could not open the file or one of its companions (`-wal`, `-shm`).
    package var isCannotOpen: Bool { primaryCode == SQLITE_CANTOPEN }

    /// True when the disk (or the `max_page_count` limit) is full.
    package var isFull: Bool { primaryCode == SQLITE_FULL }

    /// True for an I/O error (`SQLITE_IOERR_*`), e.g. a write the operating system refused.
    package var isIOError: Bool { primaryCode == SQLITE_IOERR }

    /// SQLite's name-free description of the result code, e.g. "database is locked".
    package var codeDescription: String { String(cString: sqlite3_errstr(extendedCode)) }

    package var description: String {
        var text = "SQLite error \(extendedCode) (\(codeDescription)): \(message)"
        if let sql {
            let oneLine = sql.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }.joined(separator: " ")
            text += " — while running: " + (oneLine.count > 160 ? oneLine.prefix(160) + "…" : oneLine)
        }
        return text
    }
}
