import SQLiteLayer

extension ListStore {
    /// Copies the commits waiting in the `-wal` file into the main database file now.
    ///
    /// SQLite does this by itself, inside the commit that takes the `-wal` past 1,000 pages (its
    /// automatic checkpoint, on the committing thread: about 4 MiB copied and two `fsync`s), and when the
    /// last connection to the file closes. Call this for an app that would rather pay that cost at a
    /// quiet moment — after an import, or as the app moves to the background — on a background thread.
    ///
    /// Passive, like SQLite's own: it never waits for another process's lock or reader, and what a reader
    /// still reads stays in the `-wal` for a later checkpoint. It waits only for a write of this store
    /// that is under way. Nothing happens for a store in memory.
    /// - Throws: a ``ListStoreError/Family/misuse`` error (opened for reading) for a store opened for reading; a
    ///   ``ListStoreError`` when the file cannot be written.
    public func checkpoint() throws {
        guard mode == .readWrite else { throw ListStoreError.openedForReading(path: path) }
        guard path != StorePath.inMemory else { return }
        try withLockedConnection { _ = try $0.checkpointPassively() }
    }
}
