import Foundation
import SQLiteLayer

/// Recognises a `-wal` file that does not belong to the database beside it — another ListStore file's
/// left beside a restored backup, or a newer one beside an older copy of the same file — before anything
/// reads through it: SQLite would apply its pages to the file without a word, and reads would show a mix
/// of both files (or a "malformed" one).
///
/// Every ListStore file of schema version 4 or newer has a random identity and a note of where its change
/// log stood when the latest ListStore write began (`Migrations/0004_file_identity.sql`), in a page that
/// every logged commit writes, so a `-wal` holding such a commit holds that page. The check compares what
/// the main file holds alone (read with SQLite's `immutable=1`, which ignores the `-wal`) with what the
/// file shows through the `-wal` (a read-only connection, which never checkpoints) and with the `-wal`'s
/// first committed version of that page: a different identity, none, or a `-wal` that began after the
/// main file's change log ends, and the `-wal` is refused. A file without a `-wal` holding frames pays
/// one `stat`.
enum WALOwnership {
    /// The `sqlite_sequence` row holding the identity; no table has this name.
    static let identityRow = "liststore_file_identity"
    /// The `sqlite_sequence` row saying where the change log stood when the latest ListStore write began.
    static let baseRow = "liststore_file_base"

    /// Sets ``baseRow`` to where the change log stands now, at the start of a ListStore write (before it
    /// appends its entry). The page is written by that commit anyway, so this costs one statement.
    static func recordBase(_ db: Connection) throws {
        try db.run(
            "UPDATE sqlite_sequence SET seq = coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'liststore_log'), 0) WHERE name = ?1",
            [.text(baseRow)])
    }

    /// Gives the finished copy at `path` (a backup's temporary file, which nobody else has open) an identity
    /// of its own: a copy is another file from then on, so the original's `-wal` beside a restored copy is
    /// refused like any other file's. A copy of a file older than version 4 has no identity to change.
    ///
    /// Its change log's numbers jump ahead too, by ``historyJump`` and a random amount below it: the copy's
    /// commits after a restore are another history than the original's commits after the backup, and a
    /// version of those (``ListVersion``: a mirror drawn before the restore) must never name one of these.
    /// The copy's log then holds one `structure` entry at the jumped number: every version the original
    /// reached since the backup is older than the copy's log, so an edit as of one is refused as
    /// untranslatable instead of acting on another row.
    static func giveNewIdentity(toCopyAt path: String) throws {
        let copy = try Connection(path: path, mode: .readWrite)
        try copy.transaction(.immediate) {
            try copy.run("UPDATE sqlite_sequence SET seq = (random() & 9223372036854775807) | 1 WHERE name = ?1", [.text(identityRow)])
            let hasLog = try copy.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'liststore_log'") ?? 0
            guard hasLog > 0 else { return }
            let jump = historyJump + Int64.random(in: 0..<historyJump)
            // From the last number given out: the counter, or the last entry if the counter was set back by hand.
            let last =
                try copy.scalarInt(
                    "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'liststore_log'), 0), coalesce((SELECT max(seq) FROM liststore_log), 0))"
                ) ?? 0
            guard Int64(last) < historyLimit else { return }
            // The copy's log starts again with one entry no change set describes, at the jumped number: an
            // unbroken log (nothing for `check` to report), through which no older version translates.
            try copy.run("DELETE FROM liststore_log")
            try copy.run("INSERT INTO liststore_log (seq, kind) VALUES (?1, 'structure')", [.integer(Int64(last) + jump)])
        }
    }

    /// How far a copy's change-log numbers jump at least (2^32: more commits than a file makes).
    static let historyJump: Int64 = 1 << 32
    /// A log numbered this far already (by hand) keeps its numbers: a jump could reach 2^63 − 1.
    static let historyLimit: Int64 = 1 << 60

    /// Reads of the main file alone take no lock, so a checkpoint writing it at that moment can make one
    /// read fail or differ; a `-wal` that does not belong stays refused however often it is read.
    private static let attempts = 3

    /// Throws ``ListStoreError/walFromAnotherFile(path:reason:)`` when the `-wal` beside `path` holds
    /// another file's changes. Returns without a word when there is nothing to compare: no `-wal` with
    /// frames, a main file that is not a ListStore file of version 4 or newer, or a `-wal` that cannot be
    /// read here (the usual open then says what is wrong).
    static func check(_ path: String, busyTimeout: Int32) throws {
        guard path != StorePath.inMemory else { return }
        let wal = walPath(of: path)
        guard hasFrames(wal), FileHeader(path: path)?.applicationID == Int(Schema.applicationID) else { return }
        for attempt in 1...attempts {
            if attempt > 1 { usleep(2_000) }
            // The -wal first, the main file alone last: the main file only moves forward (checkpoints copy
            // newer pages into it), so a file that was in step with its -wal still is when read after it.
            let throughWAL = Result { try identity(of: path, mode: .readOnly, busyTimeout: busyTimeout) }
            let firstVersion = (try? throughWAL.get())?.sequenceRoot
                .flatMap { WALFrames.firstCommittedImage(ofPage: $0, walPath: wal) }.flatMap(WALFrames.sequenceRows)
            let alone: Seen
            do {
                alone = try identity(of: path, mode: .readOnlyImmutable, busyTimeout: busyTimeout)
            } catch {
                if attempt < attempts { continue } else { return }  // unreadable alone: the usual open reports it
            }
            // Not a file of version 4 or newer: nothing to compare.
            guard let fileIdentity = alone.identity else { return }
            let seen: Seen
            switch throughWAL {
            case .success(let value):
                seen = value
            case .failure(let error as SQLiteError) where error.isCorruptOrNotADatabase:
                if attempt < attempts { continue }
                throw ListStoreError.walFromAnotherFile(path: path, reason: "the file reads well alone, but read with its -wal it is damaged: \(error.message)")
            case .failure(let error as SQLiteError) where error.isBusy:
                throw error  // a lock held all through the busy timeout: the usual open would wait a second one
            case .failure:
                return  // cannot be read with its -wal here (no -shm can be made): the usual open reports it
            }
            // Another application's pages: the usual recognition names them.
            guard seen.applicationID == Int(Schema.applicationID) else { return }
            if seen.identity == fileIdentity {
                // The same file — but the main file may be an older copy of it, put back beside a -wal that
                // began after the copy was taken: the -wal's first version of the identity's page says
                // where the change log stood when the -wal began, and the main file's log must reach that.
                guard let firstVersion, firstVersion[identityRow] == fileIdentity,
                    let base = firstVersion[baseRow], alone.logSequence < base
                else { return }
                if attempt < attempts { continue }
                throw ListStoreError.walFromAnotherFile(
                    path: path,
                    reason: "the file is an older copy of the one the -wal belongs to: its change log ends at entry \(alone.logSequence), but the -wal began after entry \(base)")
            }
            if attempt < attempts { continue }
            let reason =
                seen.identity.map { "the file's identity is \(fileIdentity), the -wal's is \($0)" }
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

    /// What a connection sees of the file.
    private struct Seen {
        let applicationID: Int
        let version: Int
        /// Nil when the file has none (version 3 or older, or the row deleted by hand).
        let identity: Int64?
        /// The change log's counter (0 when nothing was ever logged).
        let logSequence: Int64
        /// The root page of `sqlite_sequence`.
        let sequenceRoot: UInt32?
    }

    /// What a connection in `mode` sees.
    private static func identity(of path: String, mode: Connection.Mode, busyTimeout: Int32) throws -> Seen {
        let connection = try Connection(path: path, mode: mode)
        connection.setBusyTimeout(milliseconds: busyTimeout)
        try connection.setCheckpointOnClose(false)
        try connection.enableDefensiveMode()
        return try connection.readTransaction {
            let applicationID = try connection.scalarInt("PRAGMA application_id") ?? 0
            let version = try Migrator.version(of: connection)
            guard version >= 4 else { return Seen(applicationID: applicationID, version: version, identity: nil, logSequence: 0, sequenceRoot: nil) }
            let sequence = { (name: String) throws -> Int64? in
                try connection.cached("SELECT seq FROM sqlite_sequence WHERE name = ?1").bind([.text(name)]).first { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
            }
            let root = try connection.scalarInt("SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_sequence'")
            return Seen(
                applicationID: applicationID, version: version, identity: try sequence(identityRow), logSequence: try sequence("liststore_log") ?? 0,
                sequenceRoot: root.flatMap { UInt32(exactly: $0) })
        }
    }
}
