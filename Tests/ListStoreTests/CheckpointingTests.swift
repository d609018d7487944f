import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Checkpoints are SQLite's own: the `-wal` stays bounded by its automatic checkpoint inside commits,
/// and ``ListStore/checkpoint()`` copies it into the file at a moment the app chooses, without waiting
/// for another process's reader.
@Suite struct CheckpointingTests {
    /// How many frames the `-wal` holds and how many of them are copied into the main file, as SQLite's
    /// index in the `-shm` says (`mxFrame` of the header at byte 16, `nBackfill` at byte 96).
    static func walProgress(_ path: String) throws -> (frames: UInt32, copied: UInt32) {
        let index = try #require(FileManager.default.contents(atPath: path + "-shm"))
        func word(_ offset: Int) -> UInt32 { index[offset..<(offset + 4)].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } }
        return (word(16), word(96))
    }

    static func walSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }

    @Test func checkpointCopiesTheCommitsIntoTheMainFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        _ = try store.insertSection(title: "s")
        _ = try store.insertRows((0..<50).map { NewRow(title: "row \($0)") }, intoSection: 0)
        let before = try Self.walProgress(path)
        #expect(before.copied < before.frames)
        try store.checkpoint()
        let after = try Self.walProgress(path)
        #expect(after.frames == before.frames && after.copied == after.frames)
    }

    @Test func checkpointLeavesWhatAReaderStillReadsAndWaitsForNoOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        _ = try store.insertSection(title: "s")
        _ = try store.insertRows(["a", "b"], intoSection: 0)
        // Another process's reader holds the state before the next insert.
        let reader = try Connection(path: path, mode: .readOnly)
        try reader.executeScript("BEGIN")
        #expect(try reader.scalarInt("SELECT count(*) FROM rows") == 2)
        _ = try store.insertRows(["c"], intoSection: 0)
        let clock = ContinuousClock()
        let took = try clock.measure { try store.checkpoint() }
        #expect(took < .seconds(1), "a passive checkpoint waits for no reader")
        let held = try Self.walProgress(path)
        #expect(held.copied < held.frames, "the frames of the insert the reader does not see stay in the -wal")
        try reader.executeScript("COMMIT")
        try store.checkpoint()
        let done = try Self.walProgress(path)
        #expect(done.copied == done.frames)
    }

    @Test func theWALStaysBoundedWithoutAnyCheckpointCall() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        _ = try store.insertSection(title: "s")
        let payload = #"{"note":"\#(String(repeating: "x", count: 400))"}"#
        var largest = 0
        for batch in 0..<60 {
            _ = try store.insertRows((0..<50).map { NewRow(title: "row \(batch).\($0)", payload: payload) }, intoSection: 0)
            largest = max(largest, Self.walSize(path))
        }
        // SQLite's automatic checkpoint from 1,000 pages of 4 KiB, and the -wal starts again after it:
        // 60 writes of some 30 pages each would otherwise take it past 7 MiB.
        #expect(largest < 5_000_000, "the -wal grew to \(largest) bytes")
    }

    @Test func aStoreOpenedForReadingDoesNotCheckpoint() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        _ = try ListStore.open(at: path)
        let reading = try ListStore.open(at: path, mode: .readOnly)
        #expect(throws: ListStoreError.openedForReading(path: path)) { try reading.checkpoint() }
        try ListStore.inMemory().checkpoint()
    }
}
