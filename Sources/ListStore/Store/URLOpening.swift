import Foundation

extension ListStore {
    /// Opens the store at the file `url`, creating it when needed.
    ///
    /// The file is recognised before anything is written to it: another application's SQLite file,
    /// a file that is not SQLite, or a file from a newer ListStore throws and is left byte-for-byte untouched.
    /// A new file is created and migrated here; a file of an older schema version is migrated inside the
    /// first write's transaction (or before the first read), so a failed first edit leaves it as it was.
    /// Opening takes no write lock otherwise, and reading modes never change the file's bytes. Folders,
    /// devices and FIFOs are refused before SQLite sees them.
    /// - Parameters:
    ///   - url: the file; a file URL (an app's container location).
    ///   - mode: ``AccessMode/readWrite`` (the default) to edit; ``AccessMode/readOnly`` or
    ///     ``AccessMode/inspect`` to only read.
    ///   - busyTimeout: how long a write waits for another process's lock, in milliseconds.
    ///   - author: who this store's transactions are by in the undo history (1–200 bytes, no control
    ///     characters); nil for the process's name. ``undo(by:)`` takes back this author's last
    ///     transaction not yet undone, whoever edited since.
    ///   - historyLimit: how many of this author's last transactions the file's history keeps (0 to
    ///     100,000; 0 keeps none).
    public static func open(
        at url: URL, mode: AccessMode = .readWrite, busyTimeout: Int32 = 5_000, author: String? = nil, historyLimit: Int = 100
    ) throws -> ListStore {
        guard url.isFileURL else {
            throw ListStoreError.unusablePath(path: url.absoluteString, reason: "it is not a file URL")
        }
        let path = url.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } } ?? ""
        guard author != nil || historyLimit != defaultHistoryLimit else { return try open(at: path, mode: mode, busyTimeout: busyTimeout) }
        return try open(at: path, mode: mode, busyTimeout: busyTimeout, author: author ?? defaultAuthor, historyLimit: historyLimit)
    }
}
