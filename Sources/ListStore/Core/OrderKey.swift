/// Where a row, section or list stands among its siblings on every copy of a list (schema 15,
/// `Migrations/0015_merge_registers.sql`, Docs/Merging.md): a byte string, compared as SQLite compares
/// BLOBs (byte by byte, a prefix first). A file's positions order its rows for reading and are renumbered
/// whenever room runs out; order keys never change once given, so that a copy that merges an insert or a
/// move can put it in the same spot among its own rows as every other copy does.
///
/// A key is a *prefix* chosen strictly between the keys of the neighbours the element was inserted or moved
/// between, then the stamp of the write that placed it (8 bytes, big-endian), its ordinal in that write
/// (4 bytes), and a final byte 1:
/// - every extension of a prefix lies between the same two neighbours, so a key can always be made between
///   two others, and the rows inserted together (one prefix, one stamp) sort together: two copies inserting
///   rows at one spot at once never interleave them, and are ordered by their stamps;
/// - the last byte is never 0, so no key is another followed only by zero bytes (between which there is no
///   room).
///
/// Prefixes are short where they can be: the first 8 bytes read as a big-endian number (the *head*) step by
/// ``appendGap`` for rows added at the end or the start, and split the room between two heads in the
/// middle; only where two neighbours' heads are next to each other does a prefix grow longer, by about one
/// byte for every 8 inserts at one spot.
enum OrderKey {
    /// The step between the heads of elements appended one after another (or prepended): 2^32 appends
    /// before the heads run out and keys grow a byte longer.
    static let appendGap: UInt64 = 1 << 32
    /// The bytes after a prefix: stamp (8), ordinal (4), final byte (1).
    static let suffixLength = 13

    /// `count` keys, in order, strictly between `lower` and `upper` (nil: no element on that side), for the
    /// elements one write places there together: one prefix, `stamp`, and ordinals `firstOrdinal` on.
    /// Neighbours whose keys are out of order (changed by another program) are taken as one neighbour:
    /// the keys then follow `lower`.
    static func keys(between lower: [UInt8]?, and upper: [UInt8]?, count: Int, stamp: Int64, firstOrdinal: UInt32) -> [[UInt8]] {
        let ordered = lower.flatMap { lower in upper.map { lower.lexicographicallyPrecedes($0) } } ?? true
        let prefix = prefix(between: lower, and: ordered ? upper : nil)
        return (0..<count).map { offset in
            var key = prefix
            key.reserveCapacity(prefix.count + suffixLength)
            append(UInt64(bitPattern: stamp), bytes: 8, to: &key)
            append(UInt64(firstOrdinal &+ UInt32(truncatingIfNeeded: offset)), bytes: 4, to: &key)
            key.append(1)
            return key
        }
    }

    /// The key an element had before its file kept order keys: its position then as the head, stamp 0.
    /// Positions are unique among siblings, so these keys are too, in the same order.
    static func baseKey(position: Int64) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(8 + suffixLength)
        append(UInt64(bitPattern: position) ^ (1 << 63), bytes: 8, to: &key)
        append(0, bytes: 12, to: &key)
        key.append(1)
        return key
    }

    /// The stamp of the write that gave `key` (nil: not a key this version writes).
    static func stamp(of key: [UInt8]) -> Int64? {
        guard key.count >= suffixLength, key.last == 1 else { return nil }
        var value: UInt64 = 0
        for byte in key[(key.count - suffixLength)..<(key.count - 5)] { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }

    /// A prefix `p` such that `lower < p + s < upper` for every suffix `s` (nil bounds: none that side).
    static func prefix(between lower: [UInt8]?, and upper: [UInt8]?) -> [UInt8] {
        switch (lower, upper) {
        case (nil, nil):
            return head(1 << 63)
        case (let lower?, nil):
            let value = head(of: lower)
            if value <= UInt64.max - 2 * appendGap { return head(value + appendGap) }
        case (nil, let upper?):
            let value = head(of: upper)
            if value >= 2 * appendGap { return head(value - appendGap) }
        case (let lower?, let upper?):
            let (low, high) = (head(of: lower), head(of: upper))
            if high > low, high - low >= 2 { return head(low + (high - low) / 2) }
        }
        return midpoint(lower ?? [], upper)
    }

    /// The shortest digit string (base 256) from the left that lies strictly between `lower` and `upper`
    /// with every extension (`upper` nil: above `lower` only). `upper` is never `lower` followed by zero
    /// bytes only (keys end in 1), so the loop ends.
    private static func midpoint(_ lower: [UInt8], _ upper: [UInt8]?) -> [UInt8] {
        var prefix: [UInt8] = []
        var bounded = upper != nil
        var index = 0
        while true {
            let low = index < lower.count ? Int(lower[index]) : 0
            let high = bounded ? (upper.map { index < $0.count ? Int($0[index]) : 0 } ?? 256) : 256
            if high - low >= 2 {
                prefix.append(UInt8((low + high) / 2))
                return prefix
            }
            prefix.append(UInt8(low))
            if high - low == 1 { bounded = false }
            index += 1
        }
    }

    /// The first 8 bytes of `key` as a big-endian number (missing bytes as zeros).
    static func head(of key: [UInt8]) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(index < key.count ? key[index] : 0) }
        return value
    }

    private static func head(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        append(value, bytes: 8, to: &bytes)
        return bytes
    }

    private static func append(_ value: UInt64, bytes count: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
