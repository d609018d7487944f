import Foundation
import SQLiteLayer

/// Why SQLite cannot open or write the files it keeps beside a database (`-wal`, `-shm`), which it
/// reports only as "unable to open database file" or "attempt to write a readonly database".
///
/// Looked for after such a failure, in the folder of the file itself (symbolic links resolved, as
/// SQLite resolves them): a `-wal` or `-shm` that is a symbolic link (SQLite refuses those), one owned
/// by another user who read or wrote the database as themselves, or a `-wal` that SQLite cannot read
/// because the folder does not let it create the `-shm` it needs.
enum CompanionFiles {
    /// The error that names the cause of `error` for the database `path` (the file `file`), or nil
    /// when none of the causes above applies.
    static func explain(_ error: SQLiteError, path: String, file: String) -> ListStoreError? {
        guard file != StorePath.inMemory, error.isCannotOpen || error.isReadOnly else { return nil }
        let wal = file + "-wal"
        let shm = file + "-shm"
        for companion in [wal, shm] where isSymbolicLink(companion) {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: companion)).map { " (to \($0))" } ?? ""
            return .companionFile(
                path: path,
                reason: "\(companion) is a symbolic link\(target), and SQLite refuses to open its -wal or -shm "
                    + "through a link; if the link points to this database's own \(suffix(of: companion)) moved elsewhere, move that file back in place "
                    + "of the link, otherwise remove the link")
        }
        let me = geteuid()
        for companion in [wal, shm] {
            var status = stat()
            guard stat(companion, &status) == 0, status.st_uid != me, access(companion, W_OK) != 0 else { continue }
            return .companionFile(
                path: path,
                reason: "\(companion) belongs to \(user(status.st_uid)), who opened the database as themselves, "
                    + "and \(user(me)) cannot write it; when no one is using the database, have that user (or root) open it for writing once "
                    + "(which folds the -wal into the file and removes both) or remove \(wal) and \(shm) if they are empty; to share the "
                    + "database between users, give the file group write permission for a group they share (SQLite gives its -wal "
                    + "and -shm the file's permissions)")
        }
        if FileManager.default.fileExists(atPath: wal), !FileManager.default.fileExists(atPath: shm) {
            let folder = StorePath.folder(of: file)
            if access(folder, W_OK) != 0 {
                return .companionFile(
                    path: path,
                    reason: "\(wal) holds changes not yet in the file (left by a writer that did not close, "
                        + "or one still connected), and SQLite cannot read them without creating \(shm), which the folder \(folder) does "
                        + "not allow; make the folder writable (or run as a user who can write it) and try again, or copy the file "
                        + "together with its -wal to a writable folder and open the copy")
            }
        }
        return nil
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    private static func suffix(of companion: String) -> String { companion.hasSuffix("-wal") ? "-wal" : "-shm" }

    /// "user alice (uid 1000)", or "uid 1000" when the user has no name.
    private static func user(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "user \(String(cString: name)) (uid \(uid))"
    }
}
