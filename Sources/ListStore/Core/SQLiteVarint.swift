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

    /// Appends `value` as a varint to `bytes`: 1 byte below 2^7, 9 bytes at most.
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        if value >> 56 != 0 {
            // Nine bytes: eight of 7 bits, then the low 8 bits whole.
            var high = value >> 8
            var groups: [UInt8] = []
            for _ in 0..<8 {
                groups.append(UInt8(high & 0x7F) | 0x80)
                high >>= 7
            }
            bytes.append(contentsOf: groups.reversed())
            bytes.append(UInt8(value & 0xFF))
            return
        }
        var groups: [UInt8] = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest != 0 {
            groups.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        bytes.append(contentsOf: groups.reversed())
    }
}
