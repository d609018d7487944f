import Foundation
import SQLiteLayer

extension ListStore {
    /// Writes a consistent copy of the store to a new file at exactly `path`, with `VACUUM INTO` (never
    /// a plain file copy, which could catch a half-written transaction), even while others write. The copy
    /// gets a file identity of its own, so the original's `-wal` is refused beside it when it is restored.
    ///
    /// `path` is a plain file name, never an SQLite URI or `:memory:` (`file:x?mode=memory` is a file of
    /// that name). The copy is written to a hidden temporary file beside `path`, flushed to disk, and
    /// only then given its name, in a way that never replaces anything: the file appears whole or not at
    /// all, and on any failure (a full disk, the file size limit, a missing folder) nothing is left
    /// behind. Throws a ``ListStoreError/Family/refused`` error (backup target exists) when something is at `path` (a backup
    /// never overwrites), and a ``ListStoreError/Family/fileUnusable`` error (backup failed) for a path that is
    /// empty, in a missing folder, or names one of the database's own files (the database, its `-wal`,
    /// `-shm` or `-journal`, under any spelling or through a link), and when the copy cannot be written.
    public func backup(to path: String) throws {
        let target = try BackupTarget(path, database: self.path)
        let temporary = try target.createTemporary()
        do {
            try withLockedConnection { db in
                // A store opened for reading refuses writes with query_only, which would refuse VACUUM INTO
                // too, although it writes only the new file.
                let queryOnly = try db.scalarInt("PRAGMA query_only") == 1
                if queryOnly { try db.run("PRAGMA query_only = OFF") }
                defer { if queryOnly { try? db.run("PRAGMA query_only = ON") } }
                try db.run("VACUUM INTO ?1", [.text(Connection.fileName(for: temporary))])
            }
            try WALOwnership.giveNewIdentity(toCopyAt: temporary)
            try target.publish(temporary)
        } catch {
            BackupTarget.remove(temporary)
            throw target.explaining(error)
        }
    }
}

/// Where ``ListStore/backup(to:)`` writes, checked before anything is written, and how the finished
/// copy gets its name.
struct BackupTarget {
    let path: String
    /// The folder part of `path` as written ("." for a bare name).
    let folder: String

    /// Refuses what cannot be a new backup file: an empty name, a NUL, a missing folder, the database's
    /// own files, and anything already at `path` (a dangling symbolic link included).
    init(_ path: String, database: String) throws {
        self.path = path
        func refuse(_ reason: String, _ remedy: String) -> ListStoreError {
            ListStoreError.backupFailed(path: path, reason: reason, remedy: remedy)
        }
        guard !path.isEmpty else { throw refuse("no file name was given", "pass the path of a new file") }
        guard !path.utf8.contains(0) else { throw refuse("it contains a NUL character", "pass the path of a new file") }
        let (folder, name) = Self.split(path)
        self.folder = folder
        guard !name.isEmpty, name != ".", name != ".." else {
            throw refuse("it names a folder, not a file", "pass a file path such as \(path.hasSuffix("/") ? path : path + "/")backup.sqlite")
        }
        var info = stat()
        guard stat(folder, &info) == 0 else { throw refuse("the folder \(folder) does not exist", "create it first") }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw refuse("\(folder) is not a folder", "pass a path inside a folder") }
        if let own = Self.databaseFile(named: path, database: database) {
            throw refuse("it is the database's own file (\(own))", "choose a path outside the database's files")
        }
        guard lstat(path, &info) != 0 else { throw ListStoreError.backupTargetExists(path: path) }
    }

    /// Creates the empty, hidden temporary file beside the target that `VACUUM INTO` fills (it accepts
    /// an empty file): a name no one else has (`O_EXCL`), so nothing in the folder is ever overwritten.
    func createTemporary() throws -> String {
        let temporary = (folder == "/" ? "" : folder) + "/.liststore-backup-\(UUID().uuidString).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(errno, creating: true) }
        close(descriptor)
        return temporary
    }

    /// Flushes the finished copy to disk and gives it the target's name without replacing anything that
    /// appeared there meanwhile (``FilePublishing``).
    func publish(_ temporary: String) throws {
        do {
            try FilePublishing.publish(temporary, as: path, folder: folder)
        } catch .nameTaken {
            throw ListStoreError.backupTargetExists(path: path)
        } catch .system(let code) {
            throw failure(code)
        }
    }

    /// `error` with this target named: a full disk or the file size limit as ``StorageLimit`` says them.
    func explaining(_ error: any Error) -> any Error {
        switch (error as? ListStoreError)?.reason {
        case .full?: return limitFailure(.diskFull)
        case .fileSizeLimit?: return limitFailure(.fileSizeLimit)
        default: return error
        }
    }

    private func limitFailure(_ limit: StorageLimit) -> ListStoreError {
        .backupFailed(path: path, reason: limit.reason, remedy: limit.remedy)
    }

    /// The error for a system call on the target or its temporary file that failed with `code`.
    private func failure(_ code: Int32, creating: Bool = false) -> ListStoreError {
        if let limit = StorageLimit(errno: code) { return limitFailure(limit) }
        let text = String(cString: strerror(code))
        if creating, code == EACCES || code == EPERM || code == EROFS {
            return .backupFailed(path: path, reason: "the folder \(folder) cannot be written (\(text))", remedy: "check its permissions or choose another folder")
        }
        return .backupFailed(path: path, reason: text, remedy: "check the path and the disk, then try again")
    }

    /// Removes a temporary copy and whatever SQLite may have left beside it.
    static func remove(_ temporary: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
    }

    /// Folder and file name of `path` as written ("." for a bare name, "/" at the root).
    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// The database file (or `-wal`, `-shm`, `-journal`) that `path` names, by any spelling — `./`,
    /// `..`, a linked folder, a symbolic or hard link — or nil when it names none of them.
    static func databaseFile(named path: String, database: String) -> String? {
        guard database != StorePath.inMemory else { return nil }
        let suffixes = ["", "-wal", "-shm", "-journal"]
        let wanted = canonical(path)
        // SQLite puts the -wal and -shm files beside the file a symbolic link points to.
        let databases = [database, resolved(database) ?? database]
        var info = stat()
        let identity = stat(path, &info) == 0 ? [UInt64(info.st_dev), UInt64(info.st_ino)] : nil
        for base in databases {
            for suffix in suffixes {
                let file = base + suffix
                if let wanted, wanted == canonical(file) { return file }
                var other = stat()
                if let identity, stat(file, &other) == 0, identity == [UInt64(other.st_dev), UInt64(other.st_ino)] { return file }
            }
        }
        return nil
    }

    /// `path` with its folder resolved (links, `.`, `..`) and its own name kept: it need not exist.
    private static func canonical(_ path: String) -> String? {
        let (folder, name) = split(path)
        guard let real = resolved(folder) else { return nil }
        return (real == "/" ? "" : real) + "/" + name
    }

    /// `realpath(3)`: the absolute path with every link, `.` and `..` resolved; nil when it does not exist.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
