import SQLiteLayer

/// The 100-byte header of a SQLite file, read directly (see SQLite's file format, section 1.3).
struct FileHeader {
    let bytes: [UInt8]

    /// Reads the header of `path`; nil when it is not a SQLite file (or cannot be read).
    /// (Read through SQLite, never with a descriptor of its own: see ``Connection/filePrefix(of:count:)``.)
    init?(path: String) {
        self.init(bytes: Connection.filePrefix(of: path, count: 100))
    }

    /// Reads the header of the file `connection` has open, through that connection (no other is opened).
    init?(of connection: Connection) {
        self.init(bytes: connection.mainFilePrefix(count: 100))
    }

    private init?(bytes: [UInt8]?) {
        guard let bytes, bytes.starts(with: Array("SQLite format 3\u{0}".utf8)) else { return nil }
        self.bytes = bytes
    }

    private func bigEndian(_ offset: Int, _ count: Int) -> Int { bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) } }

    /// `PRAGMA application_id`, stored at offset 68.
    var applicationID: Int { bigEndian(68, 4) }

    /// Page size × page count, when the in-header page count is valid ("version-valid-for" equals
    /// the change counter).
    var declaredSize: Int? {
        let rawPageSize = bigEndian(16, 2)
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let pageCount = bigEndian(28, 4)
        guard pageCount > 0, bigEndian(92, 4) == bigEndian(24, 4) else { return nil }
        return pageSize * pageCount
    }
}
