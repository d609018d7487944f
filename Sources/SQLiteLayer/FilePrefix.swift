import CSQLite

extension Connection {
    /// The first `count` bytes of the file at `path` (a plain file name, as ``init(path:mode:)`` takes it),
    /// read through SQLite's own file layer; nil when it cannot be opened or is shorter.
    ///
    /// Never through a descriptor of its own: POSIX releases every lock a process holds on a file when the
    /// process closes any descriptor of that file, so reading the header with `open`/`close` beside another
    /// connection of this process — another store on the same file — would drop that connection's locks,
    /// and another process could take the file for unused and delete its `-wal` under it.
    package static func filePrefix(of path: String, count: Int) -> [UInt8]? {
        guard path != ":memory:", count > 0, let count32 = Int32(exactly: count) else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBufferPointer { bytes in csqlite_read_file_prefix(fileName(for: path), bytes.baseAddress, count32) }
        return read == count32 ? buffer : nil
    }
}
