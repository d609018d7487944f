/// The 64-bit content digest of a set of rows, as history record format 2 declares it (TheFile.md, "The
/// history record"): what an insert's entry keeps instead of every inserted row's values, so that its
/// undo can refuse when any of those rows changed since.
///
/// Each row is hashed with FNV-1a 64 (offset basis 0xcbf29ce484222325, prime 0x100000001b3) over its
/// bytes: the id as 8 bytes little-endian (two's complement); the title's UTF-8 byte count as 8 bytes
/// little-endian, then those bytes; then for no payload the one byte 0, else the byte 1, the payload's
/// UTF-8 byte count as 8 bytes little-endian and those bytes. The digest is the sum of the rows' hashes
/// modulo 2^64, so the rows can be read back in any order. Declared here, byte by byte; never derived
/// from a Swift type's spelling.
struct RowDigest: Sendable, Hashable {
    /// The sum so far.
    private(set) var value: UInt64 = 0
    /// How many rows were added.
    private(set) var count: Int64 = 0

    init() {}

    /// Adds one row.
    mutating func add(id: Int64, title: String, payload: String?) {
        var hash = Self.offsetBasis
        Self.mix(UInt64(bitPattern: id), into: &hash)
        Self.mix(title, into: &hash)
        if let payload {
            Self.mix(byte: 1, into: &hash)
            Self.mix(payload, into: &hash)
        } else {
            Self.mix(byte: 0, into: &hash)
        }
        value &+= hash
        count &+= 1
    }

    /// Adds the digest `sum` of `count` other rows (a step merged into this one).
    mutating func add(digest sum: UInt64, count rows: Int64) {
        value &+= sum
        count &+= rows
    }

    /// A digest as record format 2 writes it: 16 lowercase hexadecimal digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The digest written as ``hex(_:)``; nil for anything else.
    static func value(ofHex text: String) -> UInt64? {
        guard text.utf8.count == 16, text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return UInt64(text, radix: 16)
    }

    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x100_0000_01b3

    private static func mix(byte: UInt8, into hash: inout UInt64) {
        hash = (hash ^ UInt64(byte)) &* prime
    }

    /// 8 bytes, least significant first.
    private static func mix(_ word: UInt64, into hash: inout UInt64) {
        var word = word
        for _ in 0..<8 {
            mix(byte: UInt8(truncatingIfNeeded: word), into: &hash)
            word >>= 8
        }
    }

    /// The byte count (8 bytes), then the UTF-8 bytes.
    private static func mix(_ text: String, into hash: inout UInt64) {
        var text = text
        text.withUTF8 { bytes in
            mix(UInt64(bytes.count), into: &hash)
            var h = hash
            for byte in bytes { h = (h ^ UInt64(byte)) &* prime }
            hash = h
        }
    }
}
