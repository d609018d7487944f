import Foundation

/// Gives a finished file its name without ever replacing what is there: the one rule behind
/// ``ListStore/backup(to:)`` and a new store's file (``ListStore/creatingFile(at:busyTimeout:_:)``).
enum FilePublishing {
    /// Why a file was not published.
    enum NotPublished: Error {
        /// Something is at the name already (it may have appeared a moment ago).
        case nameTaken
        /// A system call failed with this `errno`.
        case system(Int32)
    }

    /// Flushes `temporary` to disk, then gives it the name `path` with a hard link, which fails when the
    /// name is taken, removes the temporary name, and flushes `folder` so the name survives a power loss.
    /// On a file system without hard links the name is claimed with an empty file of our own first
    /// (`O_EXCL`), then the file is renamed over that claim.
    static func publish(_ temporary: String, as path: String, folder: String) throws(NotPublished) {
        let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .system(errno) }
        let synced = fsync(descriptor) == 0 ? 0 : errno
        close(descriptor)
        guard synced == 0 else { throw .system(synced) }
        if link(temporary, path) == 0 {
            unlink(temporary)
        } else {
            let code = errno
            if code == EEXIST { throw .nameTaken }
            guard noHardLinks(code) else { throw .system(code) }
            try publishWithoutHardLinks(temporary, as: path)
        }
        let folderDescriptor = open(folder, O_RDONLY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            _ = fsync(folderDescriptor)  // some file systems cannot flush a folder; the file itself is on disk
            close(folderDescriptor)
        }
    }

    private static func publishWithoutHardLinks(_ temporary: String, as path: String) throws(NotPublished) {
        let claim = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard claim >= 0 else { throw errno == EEXIST ? .nameTaken : .system(errno) }
        close(claim)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(path)
            throw .system(code)
        }
    }

    /// True for `link` failures that mean the file system has no hard links.
    private static func noHardLinks(_ code: Int32) -> Bool {
        code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK || code == ENOSYS
    }
}
