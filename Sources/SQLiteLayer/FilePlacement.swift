import CSQLite
import Foundation

/// Whether the connection's files are still where it opened them: the path may since name another file
/// (a backup renamed over it) or none (deleted), and the `-wal` file beside it may have been deleted or
/// replaced. A commit made then would go into a file nobody will read again — or, worse, into a `-wal`
/// file that now sits beside a different main file, which SQLite would read as part of it.
extension Connection {
    /// Which of the connection's files the path no longer names.
    package enum MovedFile: Sendable, Hashable {
        /// The path names another file than the database file the connection holds open (it was renamed
        /// over, or replaced), or none (it was deleted or renamed away).
        case database(deleted: Bool)
        /// The `-wal` file beside the path is not the one the connection reads and writes (deleted, or
        /// replaced by another).
        case wal(deleted: Bool)

        /// What happened, for messages.
        package var reason: String {
            switch self {
            case .database(deleted: true): return "nothing is at that path any more: it was deleted or moved away"
            case .database(deleted: false): return "the path now names another file, renamed or copied over it"
            case .wal(deleted: true): return "its -wal file, which holds its latest changes, was deleted or moved away"
            case .wal(deleted: false): return "its -wal file was replaced by another"
            }
        }
    }

    /// Device and inode of a file: what names the same file, whatever its path.
    struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64

        init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(truncatingIfNeeded: status.st_dev)
            inode = UInt64(truncatingIfNeeded: status.st_ino)
        }
    }

    /// Notes which `-wal` file the connection has open, if any, so that ``movedFile()`` can tell when the
    /// path's `-wal` is another. Call it right after the connection first read the file (which opens the
    /// `-wal`); ``movedFile()`` also notes it the first time it finds the `-wal` open.
    package func recordWALFile() {
        guard let name = csqlite_open_wal_name(handle) else { return }
        let path = String(cString: name)
        walFile = FileID(path: path).map { (path, $0) }
    }

    /// The connection's file that its path no longer names, or nil when both are in place (or the
    /// database is in memory). Cheap: one file control and one `stat`, so every write transaction calls it.
    ///
    /// The main file is checked by SQLite (`SQLITE_FCNTL_HAS_MOVED`: the inode it holds open against a
    /// `stat` of the path); the `-wal` file by device and inode against those it had when first seen open.
    package func movedFile() -> MovedFile? {
        if csqlite_main_file_has_moved(handle) != 0 {
            return .database(deleted: FileID(path: path) == nil)
        }
        return movedWALFile()
    }

    /// ``MovedFile/wal(deleted:)`` when the `-wal` file at the path is not the one the connection has open.
    package func movedWALFile() -> MovedFile? {
        guard let (walPath, recorded) = walFile else {
            recordWALFile()
            return nil
        }
        let current = FileID(path: walPath)
        return current == recorded ? nil : .wal(deleted: current == nil)
    }

    /// The device and inode of the database file the connection holds open, or nil for a database in
    /// memory or when the path no longer names that file. Looked up once: the file a connection holds
    /// open never changes, and every write transaction checks that the path still names it
    /// (``verifyFilesInPlace()``).
    package func mainFile() -> (device: UInt64, inode: UInt64)? {
        if mainFileID == nil, path != ":memory:", csqlite_main_file_has_moved(handle) == 0 { mainFileID = FileID(path: path) }
        return mainFileID.map { ($0.device, $0.inode) }
    }

    /// Throws ``FileMovedError`` when ``movedFile()`` finds a file moved.
    package func verifyFilesInPlace() throws {
        if let moved = movedFile() { throw FileMovedError(path: path, file: moved) }
    }
}

/// A write refused (or an observation ended) because the connection's database file or `-wal` file is
/// no longer the one at its path: nothing was committed.
package struct FileMovedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path the connection was opened with.
    package let path: String
    /// Which file moved.
    package let file: Connection.MovedFile

    /// The path and what happened to the file, in one line.
    package var description: String { "\(path): \(file.reason)" }
}
