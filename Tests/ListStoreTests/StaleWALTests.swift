import Foundation
import Testing
import SQLiteLayer
@testable import ListStore

/// A `-wal` file beside a database that is not its own — another ListStore file's, as when a backup is
/// restored beside a crashed file's old `-wal` — is refused before anything reads through it, by every
/// mode, and both files are left byte for byte as they were.
@Suite struct StaleWALTests {
    /// A closed store with one section of `rows` (checkpointed: no `-wal` beside it).
    static func closedStore(_ directory: TemporaryDirectory, _ name: String, rows: [String]) throws -> String {
        try SwappedFileTests.makeStore(directory, name, section: name, rows: rows)
    }

    /// A store that stays open with commits in its `-wal` (a writer that crashed would leave the same).
    static func liveStore(_ directory: TemporaryDirectory, _ name: String, rows: [String]) throws -> (ListStore, String) {
        let path = directory.path(name)
        let store = try ListStore.open(at: path)
        try store.insertSection(title: name)
        try store.insertRows(rows, intoSection: 0)
        return (store, path)
    }

    static func copy(_ from: String, _ to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    static func isRefused(_ error: any Error) -> Bool {
        if case .walFromAnotherFile = error as? ListStoreError { return true } else { return false }
    }

    /// Every way to open `path` refuses it, and neither it nor its `-wal` changes.
    static func expectRefusedUntouched(_ path: String) throws {
        let bytes = try #require(fileBytes(path)), walBytes = try #require(fileBytes(path + "-wal"))
        for mode in [ListStore.AccessMode.readWrite, .readOnly, .inspect] {
            #expect { _ = try ListStore.open(at: path, mode: mode) } throws: { isRefused($0) }
        }
        #expect(fileBytes(path) == bytes)
        #expect(fileBytes(path + "-wal") == walBytes)
    }

    @Test func anotherListStoreFilesWALBesideARestoredBackupIsRefused() throws {
        let directory = try TemporaryDirectory()
        let restored = try Self.closedStore(directory, "restored.sqlite", rows: ["mine 1", "mine 2", "mine 3"])
        let (crashed, crashedPath) = try Self.liveStore(directory, "crashed.sqlite", rows: (0..<50).map { "theirs \($0)" })
        try Self.copy(crashedPath + "-wal", restored + "-wal")
        _ = crashed
        try Self.expectRefusedUntouched(restored)
        // Moved away, as the message says, the file is exactly the backup.
        try FileManager.default.removeItem(atPath: restored + "-wal")
        try? FileManager.default.removeItem(atPath: restored + "-shm")
        #expect(try ListStore.open(at: restored).snapshot().titles == [["mine 1", "mine 2", "mine 3"]])
    }

    @Test func aWALHoldingOnlyAnotherFilesHandEditIsRefused() throws {
        let directory = try TemporaryDirectory()
        let restored = try Self.closedStore(directory, "restored.sqlite", rows: ["mine"])
        let other = try Self.closedStore(directory, "other.sqlite", rows: ["theirs"])
        // A hand edit in the sqlite3 shell's way (no ListStore write since the last checkpoint), kept in the -wal.
        let shell = try Connection(path: other, mode: .readWrite)
        try shell.setCheckpointOnClose(false)
        try shell.run("UPDATE rows SET title = 'edited by hand'")
        try Self.copy(other + "-wal", restored + "-wal")
        try Self.expectRefusedUntouched(restored)
    }

    @Test func aFileAndItsOwnWALRestoredTogetherOpenWithEveryCommit() throws {
        let directory = try TemporaryDirectory()
        let (live, path) = try Self.liveStore(directory, "live.sqlite", rows: ["a", "b"])
        try live.insertRow("c", intoSection: 0)
        let copy = directory.path("copy.sqlite")
        try Self.copy(path, copy)
        try Self.copy(path + "-wal", copy + "-wal")
        #expect(try ListStore.open(at: copy, mode: .readOnly).snapshot().titles == [["a", "b", "c"]])
        let store = try ListStore.open(at: copy)
        try store.insertRow("d", intoSection: 0)
        #expect(try store.snapshot().titles == [["a", "b", "c", "d"]])
    }

    @Test func everyFileGetsItsOwnIdentityAndKeepsIt() throws {
        let directory = try TemporaryDirectory()
        let first = try Self.closedStore(directory, "first.sqlite", rows: ["x"])
        let second = try Self.closedStore(directory, "second.sqlite", rows: ["x"])
        let identity = { (path: String) throws -> Int64? in
            try Connection(path: path, mode: .readOnly).scalarInt("SELECT seq FROM sqlite_sequence WHERE name = 'liststore_file_identity'").map(Int64.init)
        }
        let one = try #require(try identity(first)), two = try #require(try identity(second))
        #expect(one > 0 && two > 0 && one != two)
        try ListStore.open(at: first).insertRow("y", intoSection: 0)
        #expect(try identity(first) == one)
    }
}
