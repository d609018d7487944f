import CSQLite

/// Which files a connection has open, as a value another connection to the same path can be compared
/// with: a second connection opened later reads the same data only when it holds the same main file and
/// the same `-wal` file (the path may since name a file renamed over it, or a `-wal` put beside it).
extension Connection {
    /// The main file and the `-wal` file a connection has open, by device and inode.
    package struct OpenedFiles: Sendable, Hashable {
        /// The main file; nil when the path no longer names the file the connection holds open (or it is in memory).
        let main: FileID?
        /// The `-wal` file, once the connection has read through it; nil before (or without one).
        let wal: FileID?
    }

    /// The files the connection has open now. Call after its first read, which opens the `-wal` file.
    package func openedFiles() -> OpenedFiles {
        if walFile == nil { recordWALFile() }
        let main = csqlite_main_file_has_moved(handle) == 0 ? FileID(path: path) : nil
        return OpenedFiles(main: main, wal: walFile?.id)
    }

    /// Throws ``FileMovedError`` when this connection reads other data than one that has `expected` open:
    /// it holds another main file or another `-wal` file. A `-wal` is compared only when both know theirs.
    package func verifyHolding(_ expected: OpenedFiles) throws {
        let mine = openedFiles()
        if let main = expected.main, mine.main != main {
            throw FileMovedError(path: path, file: .database(deleted: FileID(path: path) == nil))
        }
        if let wal = expected.wal, let mineWAL = mine.wal, mineWAL != wal { throw FileMovedError(path: path, file: .wal(deleted: false)) }
    }
}
