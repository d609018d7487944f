import Foundation
import SQLiteLayer

extension ListStore {
    /// When an opened store recognises its file (see ``open(at:mode:busyTimeout:recognition:)``).
    package enum Recognition: Sendable {
        /// While opening, in a read transaction of its own: opening throws for a file that is not ours.
        case atOpen
        /// Inside the store's first transaction, before it reads or writes anything else — a write's
        /// `BEGIN IMMEDIATE` (which also migrates an older file, in that same transaction) or a read's
        /// transaction —, so that a command that opens the store for one transaction runs exactly one.
        /// A file that is not ours makes that first call throw, and is left as it was. A missing file is
        /// not created: opening for writing needs an existing file. (Where no `-shm` file can be made
        /// beside the file, or a `-journal` lies there, reading modes still recognise while opening.)
        case inFirstTransaction
    }

    /// Opens the store at `path` like ``open(at:mode:busyTimeout:)``, recognising the file when
    /// `recognition` says: for a command that opens a store for one transaction.
    package static func open(
        at path: String, mode: AccessMode, busyTimeout: Int32 = 5_000, recognition: Recognition, author: String = ListStore.defaultAuthor
    ) throws -> ListStore {
        var opener = StoreOpener(path: path, mode: mode, busyTimeout: busyTimeout, recognition: recognition)
        opener.author = try HistoryNames.checkedAuthor(author)
        return ListStore(opener: opener, opened: try opener.open())
    }

    /// Something appeared at the path of a store being created — another process created a store
    /// there meanwhile — so the new store was not given that name: nothing was written to what is there.
    package struct FileAppeared: Error, CustomStringConvertible {
        /// The path given to ``creatingFile(at:busyTimeout:_:)``.
        package let path: String
        package var description: String { "\(path) was created by another process while this one was creating it; it was left as that process made it" }
    }

    /// Creates a new store at `path` only if `body` succeeds with it: the store is built in a hidden
    /// temporary file in the folder of the file `path` names (symbolic links followed, as SQLite follows
    /// them), migrated, given to `body`, then closed, flushed to disk and given its name in a way that
    /// never replaces anything. The file appears at `path` whole, with everything `body` committed, or
    /// not at all: when `body` throws (or the file cannot be finished) the temporary file and its `-wal`
    /// and `-shm` go and `path` was never touched — no other process can have opened a file there that
    /// is then removed. Throws ``FileAppeared`` when something is at `path` by then (another process
    /// created it meanwhile): it is left as it is, and the caller may run its work again on that file.
    ///
    /// `body` must not keep the store (or anything that holds it) beyond its return: the store is closed
    /// before its file is given its name. The store's ``path`` is `path`.
    package static func creatingFile<T>(
        at path: String, busyTimeout: Int32 = 5_000, author: String = ListStore.defaultAuthor, _ body: (ListStore) throws -> T
    ) throws -> T {
        let author = try HistoryNames.checkedAuthor(author)
        try StorePath.check(path)
        let target = StorePath.resolvingLinks(path)
        let folder = StorePath.folder(of: target)
        let temporary = try createTemporary(beside: target, in: folder, for: path)
        do {
            let value = try building(path, in: temporary, busyTimeout: busyTimeout, author: author, body)
            for suffix in ["-wal", "-shm"] { unlink(temporary + suffix) }  // the store is closed: both are empty
            do {
                try FilePublishing.publish(temporary, as: target, folder: folder)
            } catch .nameTaken {
                throw FileAppeared(path: path)
            } catch .system(let code) {
                throw creationFailure(path, code)
            }
            return value
        } catch {
            BackupTarget.remove(temporary)
            throw error
        }
    }

    /// Creates the empty, hidden temporary file a new store is built in, beside `target` under a name no
    /// one else has (`O_EXCL`). Its full path must fit SQLite's limit as the target's does
    /// (``StorePath/longestFullPath``): beside a target at that limit, its name is as long as the target's.
    private static func createTemporary(beside target: String, in folder: String, for path: String) throws -> String {
        let prefix = folder == "/" ? "/" : folder + "/"
        let nameLength = target.utf8.count - prefix.utf8.count
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for attempt in 0..<100 {
            var name = ".liststore-new-\(UUID().uuidString).tmp"
            if attempt > 0 || StorePath.fullPath(prefix + name).utf8.count > StorePath.longestFullPath, nameLength > 1 {
                name = "." + String((1..<nameLength).map { _ in letters.randomElement() ?? "x" })
            }
            let descriptor = Foundation.open(prefix + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 {
                close(descriptor)
                return prefix + name
            }
            guard errno == EEXIST else { throw creationFailure(path, errno) }
        }
        throw creationFailure(path, EEXIST)
    }

    /// Runs `body` on a new store in `temporary`, folds everything it committed into that file and
    /// closes the store.
    private static func building<T>(_ path: String, in temporary: String, busyTimeout: Int32, author: String, _ body: (ListStore) throws -> T) throws -> T {
        weak var closed: ListStore?
        let value: T
        do {
            var opener = StoreOpener(path: path, mode: .readWrite, busyTimeout: busyTimeout, buildingIn: temporary)
            opener.author = author
            let store = ListStore(opener: opener, opened: try opener.open())
            closed = store
            value = try body(store)
            try store.withLockedConnection { db in
                try opener.translatingErrors {
                    let result = try db.cached("PRAGMA wal_checkpoint(TRUNCATE)").bind([]).first { $0.int(0) }
                    if result != 0 { throw ListStoreError.busy("\(path) could not be finished: its new file is in use") }
                }
            }
        }
        guard closed == nil else { throw ListStoreError.busy("\(path) could not be finished: its new store is still in use; release it before creatingFile returns") }
        return value
    }

    /// The error for a system call on a new store's temporary file that failed with `code`.
    private static func creationFailure(_ path: String, _ code: Int32) -> ListStoreError {
        if let limit = StorageLimit(errno: code) {
            switch limit {
            case .diskFull: return .full("cannot create \(path): \(limit.reason)")
            case .fileSizeLimit: return .fileSizeLimit("cannot create \(path): \(limit.reason)")
            }
        }
        if code == EACCES || code == EPERM || code == EROFS {
            return .readOnly("cannot create \(path): the folder \(StorePath.folder(of: path)) cannot be written (\(String(cString: strerror(code))))")
        }
        return ListStoreError(SQLiteError(extendedCode: 14, message: "cannot create \(path): \(String(cString: strerror(code)))"))  // SQLITE_CANTOPEN
    }
}
