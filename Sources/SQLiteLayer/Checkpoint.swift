import CSQLite

extension Connection {
    /// What a checkpoint did, in frames of the `-wal` file.
    package struct Checkpointed: Sendable, Equatable {
        /// The frames the `-wal` file held.
        package let frames: Int
        /// The frames of those now copied into the main file (all of them unless a reader still reads
        /// an older state, or another connection's checkpoint was running).
        package let checkpointed: Int
    }

    /// A passive checkpoint (`sqlite3_wal_checkpoint_v2(PASSIVE)`), as SQLite's automatic one runs inside
    /// the commit that takes the `-wal` past 1,000 frames: copies into the main file what no reader still
    /// needs, never waits for a lock. Another connection's checkpoint running meanwhile is not a failure:
    /// nothing is copied. Throws on an I/O error or when the file is not in WAL mode.
    package func checkpointPassively() throws -> Checkpointed {
        var frames: Int32 = 0
        var checkpointed: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, &frames, &checkpointed)
        if code == SQLITE_BUSY || code == SQLITE_LOCKED { return Checkpointed(frames: 0, checkpointed: 0) }
        guard code == SQLITE_OK else { throw error(code: code, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
        return Checkpointed(frames: max(0, Int(frames)), checkpointed: max(0, Int(checkpointed)))
    }
}
