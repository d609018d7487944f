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
        guard path != ":memory:" else { return nil }
        return prefix(count) { csqlite_read_file_prefix(fileName(for: path), $0, $1) }
    }

    /// ``filePrefix(of:count:)`` of this connection's own main file: no other connection is opened.
    package func mainFilePrefix(count: Int) -> [UInt8]? {
        guard path != ":memory:" else { return nil }
        return Self.prefix(count) { csqlite_read_main_prefix(handle, $0, $1) }
    }

    /// `count` bytes from `read` (which fills a buffer and returns how many it read), or nil when short.
    private static func prefix(_ count: Int, _ read: (UnsafeMutablePointer<UInt8>?, Int32) -> Int32) -> [UInt8]? {
        guard count > 0, let count32 = Int32(exactly: count) else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        let done = buffer.withUnsafeMutableBufferPointer { read($0.baseAddress, count32) }
        return done == count32 ? buffer : nil
    }
}
