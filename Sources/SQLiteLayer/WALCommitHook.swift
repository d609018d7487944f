import CSQLite

/// SQLite's WAL hook (`sqlite3_wal_hook`), for a connection that decides itself when the `-wal` file is
/// checkpointed: installing one replaces SQLite's automatic checkpoint (which is itself a WAL hook that
/// checkpoints, passively, inside the commit that takes the `-wal` past 1,000 frames).
extension Connection {
    /// A commit this connection just made, as the WAL hook sees it: after the commit, with the write
    /// lock released, on the committing thread; valid only during that call.
    package struct WALCommit {
        fileprivate let handle: OpaquePointer
        /// The frames the `-wal` file holds now (from its start: frames already checkpointed count too,
        /// until a writer starts the `-wal` again from its beginning).
        package let frames: Int

        /// A passive checkpoint on the committing connection, as SQLite's automatic one: copies what no
        /// reader still needs into the main file, never waits for a lock, never starts the `-wal` again.
        package func checkpointPassively() -> Checkpointed? {
            Checkpointed.passive(handle)
        }
    }

    /// What a passive checkpoint did, in frames of the `-wal` file.
    package struct Checkpointed: Sendable, Equatable {
        /// The frames the `-wal` file held.
        package let frames: Int
        /// The frames of those now copied into the main file (all of them when no reader holds an older state).
        package let checkpointed: Int

        /// Runs `sqlite3_wal_checkpoint_v2(PASSIVE)` on `handle`; nil when it could not run (another
        /// checkpoint held the lock, the file is not in WAL mode, an I/O error).
        fileprivate static func passive(_ handle: OpaquePointer) -> Checkpointed? {
            if case .checkpointed(let done) = outcome(handle) { return done }
            return nil
        }

        /// ``passive(_:)``, telling a checkpoint another connection's held off from a failure.
        fileprivate static func outcome(_ handle: OpaquePointer) -> PassiveCheckpoint {
            var frames: Int32 = 0
            var checkpointed: Int32 = 0
            let code = sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, &frames, &checkpointed)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { return .busy }
            guard code == SQLITE_OK, frames >= 0, checkpointed >= 0 else { return .failed }
            return .checkpointed(Checkpointed(frames: Int(frames), checkpointed: Int(checkpointed)))
        }
    }

    /// How a passive checkpoint went.
    package enum PassiveCheckpoint: Sendable, Equatable {
        /// It ran (see ``Checkpointed``).
        case checkpointed(Checkpointed)
        /// Another connection's checkpoint held SQLite's checkpoint lock: nothing to do with this connection.
        case busy
        /// It could not run: the file is not in WAL mode, an I/O error.
        case failed
    }

    /// Turns off SQLite's automatic checkpoint for this connection and calls `body` after each of its
    /// commits instead (the connection keeps `body` until it closes). `body` must not use the connection
    /// other than through the ``WALCommit`` it is given.
    package func replaceAutomaticCheckpoint(_ body: @escaping (WALCommit) -> Void) {
        let hook = Hook(body)
        walCommitHook = hook
        sqlite3_wal_hook(
            handle,
            { context, db, _, frames in
                guard let context, let db else { return SQLITE_OK }
                let hook = Unmanaged<Hook>.fromOpaque(context).takeUnretainedValue()
                hook.body(WALCommit(handle: db, frames: Int(frames)))
                return SQLITE_OK
            }, Unmanaged.passUnretained(hook).toOpaque())
    }

    /// A passive checkpoint on this connection (see ``WALCommit/checkpointPassively()``).
    package func checkpointPassively() -> Checkpointed? {
        Checkpointed.passive(handle)
    }

    /// ``checkpointPassively()``, telling another connection's checkpoint in the way from a failure.
    package func passiveCheckpoint() -> PassiveCheckpoint {
        Checkpointed.outcome(handle)
    }

    private final class Hook {
        let body: (WALCommit) -> Void
        init(_ body: @escaping (WALCommit) -> Void) { self.body = body }
    }
}
