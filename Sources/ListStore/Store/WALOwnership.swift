import Foundation
import SQLiteLayer

/// Recognises a `-wal` file that does not belong to the database beside it — another ListStore file's,
/// left beside a restored backup — before anything reads through it: SQLite would apply its pages to the
/// file without a word, and reads would show a mix of both files (or a "malformed" one).
///
/// Every ListStore file of schema version 4 or newer has a random identity (`Migrations/0004_file_identity.sql`)
/// in a page that every logged commit writes, so a `-wal` holding such a commit holds that page. The check
/// compares the identity the main file holds alone (read with SQLite's `immutable=1`, which ignores the
/// `-wal`) with the one the file shows through the `-wal` (a read-only connection, which never checkpoints):
/// they differ, or the `-wal` shows none, and the `-wal` is refused. A file without a `-wal` holding
/// frames pays one `stat`.
enum WALOwnership {
    /// The `sqlite_sequence` row holding the identity; no table has this name.
    static let identityRow = "liststore_file_identity"

    /// Reads of the main file alone take no lock, so a checkpoint writing it at that moment can make one
    /// read fail or differ; a `-wal` that does not belong stays refused however often it is read.
    private static let attempts = 3

    /// Throws ``ListStoreError/walFromAnotherFile(path:reason:)`` when the `-wal` beside `path` holds
    /// another file's changes. Returns without a word when there is nothing to compare: no `-wal` with
    /// frames, a main file that is not a ListStore file of version 4 or newer, or a `-wal` that cannot be
    /// read here (the usual open then says what is wrong).
    static func check(_ path: String, busyTimeout: Int32) throws {
        guard path != StorePath.inMemory, hasFrames(walPath(of: path)),
              FileHeader(path: path)?.applicationID == Int(Schema.applicationID) else { return }
        for attempt in 1...attempts {
            if attempt > 1 { usleep(2_000) }
            let fileIdentity: Int64
            do {
                // Not a file of version 4 or newer: nothing to compare.
                guard let identity = try identity(of: path, mode: .readOnlyImmutable, busyTimeout: busyTimeout).identity else { return }
                fileIdentity = identity
            } catch {
                if attempt < attempts { continue } else { return }  // unreadable alone: the usual open reports it
            }
            let seen: (applicationID: Int, version: Int, identity: Int64?)
            do {
                seen = try identity(of: path, mode: .readOnly, busyTimeout: busyTimeout)
            } catch let error as SQLiteError where error.isCorruptOrNotADatabase {
                if attempt < attempts { continue }
                throw ListStoreError.walFromAnotherFile(path: path, reason: "the file reads well alone, but read with its -wal it is damaged: \(error.message)")
            } catch {
                return  // cannot be read with its -wal here (no -shm can be made, a lock held): the usual open reports it
            }
            // Another application's pages: the usual recognition names them.
            guard seen.applicationID == Int(Schema.applicationID) else { return }
            if seen.identity == fileIdentity { return }
            if attempt < attempts { continue }
            let reason = seen.identity.map { "the file's identity is \(fileIdentity), the -wal's is \($0)" }
                ?? "the file has an identity (\(fileIdentity)), but read with its -wal it has none (schema version \(seen.version))"
            throw ListStoreError.walFromAnotherFile(path: path, reason: reason)
        }
    }

    /// The `-wal` file SQLite uses for `path`: beside the file a symbolic link points to.
    private static func walPath(of path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path + "-wal" }
        defer { free(resolved) }
        return String(cString: resolved) + "-wal"
    }

    /// A `-wal` file longer than its 32-byte header holds frames (which may still be old ones SQLite ignores).
    private static func hasFrames(_ walPath: String) -> Bool {
        (StorePath.size(walPath) ?? 0) > 32
    }

    /// What a connection in `mode` sees: the application id, schema version and identity (nil when the
    /// file has none).
    private static func identity(of path: String, mode: Connection.Mode, busyTimeout: Int32) throws -> (applicationID: Int, version: Int, identity: Int64?) {
        let connection = try Connection(path: path, mode: mode)
        connection.setBusyTimeout(milliseconds: busyTimeout)
        try connection.setCheckpointOnClose(false)
        try connection.enableDefensiveMode()
        return try connection.readTransaction {
            let applicationID = try connection.scalarInt("PRAGMA application_id") ?? 0
            let version = try Migrator.version(of: connection)
            guard version >= 4 else { return (applicationID, version, nil) }
            let identity = try connection.cached("SELECT seq FROM sqlite_sequence WHERE name = ?1").bind([.text(identityRow)]).first { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
            return (applicationID, version, identity)
        }
    }
}
