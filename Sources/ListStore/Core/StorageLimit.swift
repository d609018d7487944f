import Foundation
import SQLiteLayer

/// A write that ran out of room: the disk is full, or the process's file size limit (`ulimit -f`) was
/// reached. One rule for telling them apart and for saying so, shared by the library's errors,
/// ``ListStore/backup(to:)`` and the command line's `export` and standard output: reuse it for any
/// other "disk full" message.
///
/// The command line ignores `SIGXFSZ`, so a write past the file size limit fails with `EFBIG` (and
/// SQLite reports it) instead of killing the process.
package enum StorageLimit: Hashable, Sendable {
    /// No space left on the device (`ENOSPC`), or the user's disk quota is used up (`EDQUOT`).
    case diskFull
    /// A file would grow past the process's file size limit (`EFBIG`, `ulimit -f`).
    case fileSizeLimit

    /// The limit behind a failed system call's `errno`, or nil when it is another failure.
    package init?(errno code: Int32) {
        switch code {
        case ENOSPC, EDQUOT: self = .diskFull
        case EFBIG: self = .fileSizeLimit
        default: return nil
        }
    }

    /// The limit behind an SQLite failure, or nil when it is another failure. SQLite reports a write
    /// that failed outright as an I/O error, usually with the call's `errno` (not always: after a failed
    /// `COMMIT` it is often lost), and a write cut short as `SQLITE_FULL` without one. Without an
    /// `errno`, a failed write or file growth is put down to the file size limit when one is set; a
    /// short write without one is a full disk (or SQLite's own `max_page_count`, which
    /// ``ListStoreError/full(_:)`` names too).
    init?(_ error: SQLiteError) {
        if error.isFull || error.isIOError, let limit = StorageLimit(errno: error.systemErrno) {
            self = limit
        } else if error.isFull || (Self.growthFailures.contains(error.extendedCode) && error.systemErrno == 0) {
            guard Self.processFileSizeLimit != nil else {
                if error.isFull {
                    self = .diskFull
                    return
                }
                return nil
            }
            self = .fileSizeLimit
        } else {
            return nil
        }
    }

    /// `SQLITE_IOERR_WRITE`, `SQLITE_IOERR_TRUNCATE`, `SQLITE_IOERR_SHMSIZE`: a file could not grow.
    /// (Extended result codes are macros Swift does not import.)
    private static let growthFailures: Set<Int32> = [778, 1546, 4874]

    /// What happened, e.g. "the disk is full".
    package var reason: String {
        switch self {
        case .diskFull: return "the disk is full"
        case .fileSizeLimit:
            return "the file size limit (ulimit -f)" + (Self.processFileSizeLimit.map { " of \($0) bytes" } ?? "") + " was reached"
        }
    }

    /// What to do about it.
    package var remedy: String {
        switch self {
        case .diskFull: return "free some space and try again"
        case .fileSizeLimit: return "raise the limit (ulimit -f) and try again"
        }
    }

    /// The process's file size limit in bytes, or nil when there is none.
    static var processFileSizeLimit: UInt64? {
        var limit = rlimit()
        #if canImport(Glibc)
            let resource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
        #else
            let resource = RLIMIT_FSIZE
        #endif
        // RLIM_INFINITY is all ones on Linux and 2^63 − 1 on Apple platforms.
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int64.max) else { return nil }
        return UInt64(limit.rlim_cur)
    }
}
