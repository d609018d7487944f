/// SQLite's variable-length integer, as its file format writes it in records and as FTS5 writes it in
/// its own records: big-endian, 7 bits a byte with the high bit saying another byte follows, the ninth
/// byte's 8 bits whole.
enum SQLiteVarint {
    /// The varint at `offset` of `bytes` (`offset` advanced past it); nil when it runs past the end.
    static func read(_ bytes: [UInt8], _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        for index in 0..<9 {
            guard offset < bytes.count else { return nil }
            let byte = bytes[offset]
            offset += 1
            if index == 8 { return value << 8 | UInt64(byte) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        return value
    }
}
