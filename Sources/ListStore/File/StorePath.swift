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
        let full = fullPath(resolvingLinks(path))
        guard full.utf8.count <= longestFullPath else {
            throw ListStoreError.unusablePath(
                path: path,
                reason: "its full path\(full == path ? "" : " (\(full))") is \(full.utf8.count) bytes long, and SQLite opens "
                    + "only files whose full path, symbolic links resolved, is at most \(longestFullPath) bytes (its limit of 512 for a path, less 8 for "
                    + "the name of the -journal beside the file); move the file to a folder with a shorter path")
        }
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ELOOP { throw ListStoreError.unusablePath(path: path, reason: "its symbolic links form a loop (or more than 40 follow one another)") }
            return  // nothing there (yet): SQLite creates a regular file
        }
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

    /// The longest full path, in bytes, of a file SQLite's unix VFS opens: its `mxPathname` is 512, and
    /// it refuses a file whose full path leaves no room for the 8 bytes of `-journal` (`sqlite3PagerOpen`).
    static let longestFullPath = 504

    /// The file a path names once symbolic links in its last component are followed, as SQLite follows
    /// them: its `-wal`, `-shm` and `-journal` sit beside that file, not beside the link. A path that is
    /// not a link (or a loop of links) is returned as it is.
    static func resolvingLinks(_ path: String) -> String {
        guard path != inMemory else { return path }
        var current = path
        for _ in 0..<40 {  // the kernel's own limit on links followed (ELOOP)
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK,
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current)
            else { return current }
            current = target.hasPrefix("/") ? target : folder(of: current) + "/" + target
        }
        return path
    }

    /// `path` made absolute the way SQLite does (its folder with links resolved, then the file name),
    /// to measure it against ``longestFullPath``.
    static func fullPath(_ path: String) -> String {
        let folderPart = folder(of: path)
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard let resolved = realpath(folderPart, nil) else {
            return path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        }
        defer { free(resolved) }
        let folder = String(cString: resolved)
        return (folder == "/" ? "" : folder) + "/" + name
    }

    /// The folder part of `path` ("." for a bare file name, "/" for a file at the root).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// The size of the file at `path` in bytes; nil when there is none.
    static func size(_ path: String) -> Int? {
        var status = stat()
        guard path != inMemory, stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
    }
}
