import Foundation
import SQLiteLayer
import Testing

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
        if case .walFromAnotherFile = (error as? ListStoreError)?.reason { return true } else { return false }
    }

    /// Every way to open `path` refuses it, and neither it nor its `-wal` changes.
    static func expectRefusedUntouched(_ path: String) throws {
        let bytes = try #require(fileBytes(path))
        let walBytes = try #require(fileBytes(path + "-wal"))
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
        let one = try #require(try identity(first))
        let two = try #require(try identity(second))
        #expect(one > 0 && two > 0 && one != two)
        try ListStore.open(at: first).insertRow("y", intoSection: 0)
        #expect(try identity(first) == one)
    }

    /// ReplicationAndBackup.md's restore recipe puts a `liststore backup` copy back at the path; the original's `-wal`,
    /// left there, began before the copy was taken, so only the copy's own identity tells them apart.
    @Test func aBackupRestoredBesideTheOriginalsWALIsRefused() throws {
        let directory = try TemporaryDirectory()
        let (store, path) = try Self.liveStore(directory, "lists.sqlite", rows: ["1", "2"])
        try store.insertRow("3", intoSection: 0)
        let backup = directory.path("backup.sqlite")
        try store.backup(to: backup)  // taken after the -wal began
        try store.insertRow("4", intoSection: 0)
        try Self.copy(path + "-wal", backup + "-wal")
        try Self.expectRefusedUntouched(backup)
    }

    /// Without the stale `-wal`, a backup is the store as it was, a file of its own, with nothing beside it.
    @Test func aBackupIsTheStoreWithAnIdentityOfItsOwn() throws {
        let directory = try TemporaryDirectory()
        let (store, path) = try Self.liveStore(directory, "lists.sqlite", rows: ["1", "2"])
        let backup = directory.path("backup.sqlite")
        try store.backup(to: backup)
        for suffix in ["-wal", "-shm", "-journal"] { #expect(!FileManager.default.fileExists(atPath: backup + suffix)) }
        let identity = { (path: String) throws -> Int64? in
            try Connection(path: path, mode: .readOnly).scalarInt("SELECT seq FROM sqlite_sequence WHERE name = 'liststore_file_identity'").map(Int64.init)
        }
        let original = try #require(try identity(path))
        let copy = try #require(try identity(backup))
        #expect(copy > 0 && copy != original)
        #expect(try ListStore.open(at: backup).snapshot().titles == [["1", "2"]])
        #expect(try ListStore.open(at: backup).checkInvariants().isEmpty)
    }

    @Test func anOlderCopyOfTheSameFileBesideItsNewerWALIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.closedStore(directory, "lists.sqlite", rows: ["1"])
        let older = directory.path("older.sqlite")
        try Self.copy(path, older)  // a backup, taken here
        try ListStore.open(at: path).insertRow("2", intoSection: 0)  // closed again: checkpointed into the file
        let store = try ListStore.open(at: path)
        try store.insertRow("3", intoSection: 0)  // a -wal that begins after the backup's state
        try Self.copy(path + "-wal", older + "-wal")
        try Self.expectRefusedUntouched(older)
        // The newer file, with its own -wal, is what it should be.
        #expect(try ListStore.open(at: path, mode: .readOnly).snapshot().titles == [["1", "2", "3"]])
    }

    @Test func aCopyTakenWhereTheWALBeganOpensWithEveryCommit() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.closedStore(directory, "lists.sqlite", rows: ["1"])
        let copy = directory.path("copy.sqlite")
        try Self.copy(path, copy)  // the file as the -wal below begins from it
        let store = try ListStore.open(at: path)
        try store.insertRow("2", intoSection: 0)
        try store.insertRow("3", intoSection: 0)
        try Self.copy(path + "-wal", copy + "-wal")
        #expect(try ListStore.open(at: copy, mode: .readOnly).snapshot().titles == [["1", "2", "3"]])
    }

    @Test func aWALThatBeginsWithAHandEditOfManyRowsOpens() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.closedStore(directory, "lists.sqlite", rows: (0..<30).map { "r\($0)" })
        // One hand statement logs 30 entries in one commit, the first in this -wal; a ListStore write follows.
        let shell = try Connection(path: path, mode: .readWrite)
        try shell.setCheckpointOnClose(false)
        try shell.run("UPDATE rows SET title = title || '!'")
        try ListStore.open(at: path).insertRow("after", intoSection: 0)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let titles = try ListStore.open(at: path, mode: .readOnly).snapshot().titles
        #expect(titles.first?.count == 31 && titles.first?.first == "r0!")
        _ = shell
    }

    @Test func damagedWALBytesNeverTrapTheReader() throws {
        let directory = try TemporaryDirectory()
        let (store, path) = try Self.liveStore(directory, "lists.sqlite", rows: (0..<10).map { "r\($0)" })
        let wal = try #require(fileBytes(path + "-wal"))
        var random = SeededGenerator(seed: 16)
        let damaged = directory.path("damaged-wal")
        for round in 0..<200 {
            var bytes = [UInt8](wal)
            for _ in 0..<(1 + round % 8) { bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            if round % 5 == 0 { bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random))) }
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            for page in UInt32(1)...6 {
                if let image = WALFrames.firstCommittedImage(ofPage: page, walPath: damaged) { _ = WALFrames.sequenceRows(image) }
            }
            var page = [UInt8](repeating: 0, count: 4_096)
            for index in page.indices { page[index] = UInt8.random(in: 0...255, using: &random) }
            page[0] = 0x0D
            _ = WALFrames.sequenceRows(page)
        }
        _ = store
    }
}
