import Foundation
import SQLiteLayer

/// The stamps a file's writes are ordered by across the copies of its list (schema 15, Docs/Merging.md): a
/// hybrid logical clock. Each ListStore write takes one stamp, `logical << 20 | replica`:
/// - `logical` (43 bits) counts quarter milliseconds since 2020-01-01 UTC by the device's clock, but is
///   always more than the last one this file gave or merged, so stamps order like wall-clock time where
///   clocks agree and never contradict the order of the writes in one file where they don't; 2^43 quarter
///   milliseconds last until 2089;
/// - `replica` (20 bits) is the file's replica number (``ReplicaIdentity``): two copies never give one
///   stamp, so the newest of two values is always decided the same way.
///
/// The last `logical` given is the `sqlite_sequence` row `liststore_clock`, a page every commit writes
/// anyway. A stamp takes one read (of it and of the replica number) and one write.
enum MergeClock {
    /// The `sqlite_sequence` row holding the last logical time this file gave or merged.
    static let clockRow = "liststore_clock"
    /// 2020-01-01 00:00:00 UTC, in seconds since 1970.
    static let epoch: Double = 1_577_836_800
    /// Logical times are below this (43 bits): with the replica's 20 bits, a stamp fits in a positive Int64.
    static let logicalLimit: Int64 = 1 << 43
    /// Logical time counts quarter milliseconds.
    static let ticksPerSecond: Double = 4_000

    /// The replica number a stamp names.
    static func replica(of stamp: Int64) -> Int64 { stamp & (ReplicaIdentity.numberLimit - 1) }

    /// When a stamp was given, by the clock of the copy that gave it.
    static func date(of stamp: Int64) -> Date { Date(timeIntervalSince1970: epoch + Double(stamp >> 20) / ticksPerSecond) }

    /// The lowest stamp any replica gives after logical time `logical`.
    static func firstStamp(after logical: Int64) -> Int64 { (min(max(logical, 0), logicalLimit - 1) + 1) << 20 }

    /// The stamp of the write `db` is in, taken at its first use in the write.
    static func stamp(_ db: Connection, now: Date = Date()) throws -> Int64 {
        if let current = db.transactionMemo as? Write { return current.stamp }
        let write = Write(stamp: try next(db, now: now))
        db.transactionMemo = write
        return write.stamp
    }

    /// The next `count` ordinals of the write `db` is in: elements placed by one write get keys with one
    /// stamp and distinct ordinals (``OrderKey``).
    static func ordinals(_ count: Int, _ db: Connection) throws -> UInt32 {
        _ = try stamp(db)
        guard let write = db.transactionMemo as? Write else { return 0 }
        let first = write.nextOrdinal
        write.nextOrdinal &+= UInt32(truncatingIfNeeded: count)
        return first
    }

    /// A new stamp: the next logical time (after the last given, at least the clock's) and the replica.
    private static func next(_ db: Connection, now: Date) throws -> Int64 {
        let read = try db.cached("SELECT (SELECT seq FROM sqlite_sequence WHERE name = ?1), (SELECT number FROM liststore_replica WHERE id = 1)")
        let (last, replica) = try read.bind([.text(clockRow)]).first { ($0.int64(0), $0.int64(1)) } ?? (0, 0)
        let quarters = ((now.timeIntervalSince1970 - epoch) * ticksPerSecond).rounded(.down)
        let wall = quarters.isFinite ? Int64(min(max(quarters, 0), Double(logicalLimit - 1))) : 0
        guard last < logicalLimit - 1 else {
            throw ListStoreError.corrupt("the file's merge clock (sqlite_sequence row '\(clockRow)') is at its end (\(last)); it was changed by another program")
        }
        let logical = max(wall, max(last, 0) + 1)
        try db.cached("UPDATE sqlite_sequence SET seq = ?2 WHERE name = ?1").bind([.text(clockRow), .integer(logical)]).run()
        if db.changes == 0 {
            try db.cached("INSERT INTO sqlite_sequence (name, seq) VALUES (?1, ?2)").bind([.text(clockRow), .integer(logical)]).run()
        }
        return logical << 20 | replica
    }

    /// The write's stamp and the ordinals it gave so far.
    private final class Write {
        let stamp: Int64
        var nextOrdinal: UInt32 = 1
        init(stamp: Int64) { self.stamp = stamp }
    }
}
