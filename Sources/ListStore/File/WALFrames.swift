import Foundation

/// Reads a `-wal` file directly (SQLite's file format, section 4): the first committed version of one
/// page in the `-wal`'s current generation, and the rows of a small table page. Every read is bounds
/// checked: the bytes come from a file anyone may have written, and anything unexpected gives nil.
enum WALFrames {
    /// The bytes of the first frame, in the `-wal`'s current generation (frames with the header's salts
    /// and an unbroken checksum chain), that holds page `page` and is followed by a commit frame — or nil
    /// when there is none, or the file is not a `-wal` file. Reads frames only up to that commit.
    static func firstCommittedImage(ofPage page: UInt32, walPath: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: walPath) else { return nil }
        defer { try? handle.close() }
        guard let headerData = try? handle.read(upToCount: 32), headerData.count == 32 else { return nil }
        let header = [UInt8](headerData)
        let magic = bigEndian(header, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        let bigEndianSums = magic == 0x377F_0683
        let pageSize = Int(bigEndian(header, 8))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return nil }
        let salts = (bigEndian(header, 16), bigEndian(header, 20))
        var sums = checksum(header[0..<24], bigEndian: bigEndianSums, from: (0, 0))
        guard sums == (bigEndian(header, 24), bigEndian(header, 28)) else { return nil }
        var found: [UInt8]?
        // A -wal holds at most a few thousand frames between checkpoints; the bound only guards a hostile file.
        for _ in 0..<1_000_000 {
            guard let frameData = try? handle.read(upToCount: 24 + pageSize), frameData.count == 24 + pageSize else { return nil }
            let frame = [UInt8](frameData)
            guard (bigEndian(frame, 8), bigEndian(frame, 12)) == salts else { return nil }
            sums = checksum(frame[0..<8], bigEndian: bigEndianSums, from: sums)
            sums = checksum(frame[24...], bigEndian: bigEndianSums, from: sums)
            guard sums == (bigEndian(frame, 16), bigEndian(frame, 20)) else { return nil }
            if found == nil && bigEndian(frame, 0) == page { found = Array(frame[24...]) }
            // A frame whose "database size after commit" is set ends a transaction.
            if found != nil && bigEndian(frame, 4) != 0 { return found }
        }
        return nil
    }

    /// `name → seq` for every row of a table b-tree leaf page with rows of a name (text) and a seq
    /// (integer), as `sqlite_sequence` has; nil when the page is not such a leaf (an interior page of a
    /// grown table, another page entirely) or a cell does not fit in it.
    static func sequenceRows(_ page: [UInt8]) -> [String: Int64]? {
        guard page.count >= 8, page[0] == 0x0D else { return nil }
        let cellCount = Int(page[3]) << 8 | Int(page[4])
        guard 8 + 2 * cellCount <= page.count else { return nil }
        var rows: [String: Int64] = [:]
        for cell in 0..<cellCount {
            var offset = Int(page[8 + 2 * cell]) << 8 | Int(page[9 + 2 * cell])
            guard let payloadSize = SQLiteVarint.read(page, &offset), SQLiteVarint.read(page, &offset) != nil,  // the rowid
                payloadSize <= UInt64(page.count - offset)
            else { return nil }
            let end = offset + Int(payloadSize)
            let recordStart = offset
            guard let headerSize = SQLiteVarint.read(page, &offset), headerSize <= UInt64(end - recordStart),
                let nameType = SQLiteVarint.read(page, &offset), let seqType = SQLiteVarint.read(page, &offset)
            else { return nil }
            var body = recordStart + Int(headerSize)
            guard nameType >= 13, nameType % 2 == 1 else { continue }  // not a text name: not a row of ours
            let nameLength = Int((nameType - 13) / 2)
            guard nameLength <= end - body else { return nil }
            let name = String(decoding: page[body..<body + nameLength], as: UTF8.self)
            body += nameLength
            guard let seq = integer(page, at: body, serialType: seqType, end: end) else { continue }
            rows[name] = seq
        }
        return rows
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// SQLite's WAL checksum over `bytes` (a multiple of 8 bytes), continuing from `sums`.
    private static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, from sums: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = sums
        var index = bytes.startIndex
        func word(_ at: Int) -> UInt32 {
            let value = bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return bigEndian ? value : value.byteSwapped
        }
        while index + 8 <= bytes.endIndex {
            s0 = s0 &+ word(index) &+ s1
            s1 = s1 &+ word(index + 4) &+ s0
            index += 8
        }
        return (s0, s1)
    }

    /// The integer of serial type `type` at `offset`; nil for any other type or when it runs past `end`.
    private static func integer(_ bytes: [UInt8], at offset: Int, serialType type: UInt64, end: Int) -> Int64? {
        let widths: [UInt64: Int] = [1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8]
        if type == 8 { return 0 }
        if type == 9 { return 1 }
        guard let width = widths[type], width <= end - offset else { return nil }
        var value = UInt64(0)
        for byte in bytes[offset..<offset + width] { value = value << 8 | UInt64(byte) }
        // Sign-extend from `width` bytes.
        let shift = UInt64(64 - 8 * width)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }
}
