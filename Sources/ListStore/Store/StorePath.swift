import Foundation

/// What a database path may name: a regular file (or a symbolic link to one), a path where a new file
/// can be created, or `:memory:`. Checked before SQLite sees the path, because SQLite would happily
/// "open" `/dev/null` or a FIFO and then create `/dev/null-journal` beside it.
enum StorePath {
    /// SQLite's name for an in-memory database, which the library accepts on purpose.
    static let inMemory = ":memory:"

    /// Throws ``ListStoreError/unusablePath(path:reason:)`` unless `path` can hold a database file.
    static func check(_ path: String) throws {
        guard path != inMemory else { return }
        guard !path.isEmpty else { throw ListStoreError.unusablePath(path: path, reason: "no file name was given") }
        guard !path.utf8.contains(0) else { throw ListStoreError.unusablePath(path: path, reason: "it contains a NUL character") }
        var status = stat()
        guard stat(path, &status) == 0 else { return }  // nothing there (yet): SQLite creates a regular file
        let reason: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: reason = "it is a folder"
        case S_IFCHR: reason = "it is a character device"
        case S_IFBLK: reason = "it is a block device"
        case S_IFIFO: reason = "it is a FIFO (named pipe)"
        case S_IFSOCK: reason = "it is a socket"
        default: reason = "it is not a regular file"
        }
        throw ListStoreError.unusablePath(path: path, reason: reason)
    }

    /// The size of the file at `path` in bytes; nil when there is none.
    static func size(_ path: String) -> Int? {
        var status = stat()
        guard path != inMemory, stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }
}
