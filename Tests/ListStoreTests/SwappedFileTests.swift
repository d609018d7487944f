import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// A file renamed over the path (or deleted, or its `-wal` deleted) while a store has it open: a write
/// under way is rolled back and refused, never committed into a `-wal` that now sits beside another
/// file; observers end with an error at their next poll instead of watching the old file forever.
@Suite struct SwappedFileTests {
    /// A closed store at `name` with one section of the given rows (no `-wal` left beside it).
    static func makeStore(_ directory: TemporaryDirectory, _ name: String, section: String, rows: [String]) throws -> String {
        let path = directory.path(name)
        let store = try ListStore.open(at: path)
        try store.insertSection(title: section)
        try store.insertRows(rows, intoSection: 0)
        return path
    }

    /// `store`'s updates, polled every 20 ms, past their initial state; nil (recorded) when that did not come first.
    static func observing(_ store: ListStore) async throws -> AsyncThrowingStream<ListUpdate, any Error>.Iterator? {
        var updates = store.observe(pollInterval: .milliseconds(20)).makeAsyncIterator()
        guard case .initial = try await nextElement(&updates) else {
            Issue.record("no initial state first")
            return nil
        }
        return updates
    }

    static func isReplaced(_ error: any Error, _ file: Connection.MovedFile) -> Bool {
        guard case .fileReplaced(_, let reason) = (error as? ListStoreError)?.reason else { return false }
        return reason == file.reason
    }

    @Test func aFileRenamedOverThePathDuringAWriteIsNeverWritten() throws {
        let directory = try TemporaryDirectory()
        let backup = try Self.makeStore(directory, "backup.sqlite", section: "Restored", rows: ["r1", "r2"])
        let backupBytes = try #require(fileBytes(backup))
        let path = directory.path("lists.sqlite")
        do {
            let store = try ListStore.open(at: path)
            try store.insertSection(title: "Mine")
            #expect {
                try store.write { transaction in
                    try transaction.insertRow("lost", intoSection: 0)
                    #expect(rename(backup, path) == 0)
                    try transaction.insertRow("lost too", intoSection: 0)
                }
            } throws: { Self.isReplaced($0, .database(deleted: false)) }
            // Every later write is refused the same way: the store still holds the old file.
            #expect { try store.insertSection(title: "again") } throws: { Self.isReplaced($0, .database(deleted: false)) }
            #expect(fileBytes(path) == backupBytes)
        }
        // Closed, the old store leaves nothing behind that a reader would take for part of the new file.
        #expect(fileBytes(path) == backupBytes)
        let reopened = try ListStore.open(at: path)
        #expect(try reopened.snapshot().titles == [["r1", "r2"]])
        #expect(try reopened.checkInvariants().isEmpty)
    }

    @Test func withoutTheRenameTheSameWriteCommits() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        do {
            let store = try ListStore.open(at: path)
            try store.insertSection(title: "Mine")
            try store.write { transaction in
                try transaction.insertRow("kept", intoSection: 0)
                try transaction.insertRow("kept too", intoSection: 0)
            }
        }
        #expect(try ListStore.open(at: path).snapshot().titles == [["kept", "kept too"]])
    }

    @Test func aFileDeletedUnderAStoreIsNeverWritten() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "Mine")
        #expect(unlink(path) == 0)
        #expect { try store.insertRow("x", intoSection: 0) } throws: { Self.isReplaced($0, .database(deleted: true)) }
    }

    @Test func aWALDeletedUnderAStoreIsNeverWrittenTo() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeStore(directory, "lists.sqlite", section: "Mine", rows: ["a"])
        do {
            let store = try ListStore.open(at: path)
            #expect(try store.rowCount(inSection: 0) == 1)
            // What "delete any old -wal and -shm files" does to a writer still running.
            #expect(unlink(path + "-wal") == 0)
            #expect(unlink(path + "-shm") == 0)
            #expect { try store.insertRow("x", intoSection: 0) } throws: { Self.isReplaced($0, .wal(deleted: true)) }
        }
        // Nothing was committed into the deleted -wal; the file at the path holds what it held.
        #expect(try ListStore.open(at: path, mode: .readOnly).snapshot().titles == [["a"]])
    }

    @Test func aStoreStillOpenOnAReplacedFileLeavesNothingTheNewFileWouldRead() throws {
        let directory = try TemporaryDirectory()
        let backup = try Self.makeStore(directory, "backup.sqlite", section: "Restored", rows: ["r1"])
        let backupBytes = try #require(fileBytes(backup))
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "Mine")
        #expect(rename(backup, path) == 0)
        #expect { try store.insertRow("x", intoSection: 0) } throws: { Self.isReplaced($0, .database(deleted: false)) }
        // The old store is still open: its commits left the -wal at the path, so the new file reads alone.
        let reader = try ListStore.open(at: path)
        #expect(try reader.snapshot().titles == [["r1"]])
        try reader.insertRow("r2", intoSection: 0)
        #expect(try ListStore.open(at: path, mode: .readOnly).snapshot().titles == [["r1", "r2"]])
        #expect { try store.insertRow("y", intoSection: 0) } throws: { Self.isReplaced($0, .database(deleted: false)) }
        _ = backupBytes
    }

    @Test func anObserverEndsWithAnErrorWhenTheFileIsReplaced() async throws {
        let directory = try TemporaryDirectory()
        let backup = try Self.makeStore(directory, "backup.sqlite", section: "Restored", rows: ["r1"])
        let path = try Self.makeStore(directory, "lists.sqlite", section: "Mine", rows: ["a"])
        let store = try ListStore.open(at: path, mode: .readOnly)
        guard var updates = try await Self.observing(store) else { return }
        #expect(rename(backup, path) == 0)
        // Within a poll or so; a bounded wait, generous for a loaded machine.
        await #expect { _ = try await nextElement(&updates, timeout: .seconds(20)) } throws: { Self.isReplaced($0, .database(deleted: false)) }
    }

    @Test func anObserverEndsWithAnErrorWhenTheFileIsDeleted() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeStore(directory, "lists.sqlite", section: "Mine", rows: ["a"])
        let store = try ListStore.open(at: path, mode: .readOnly)
        guard var updates = try await Self.observing(store) else { return }
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        await #expect { _ = try await nextElement(&updates, timeout: .seconds(20)) } throws: { Self.isReplaced($0, .database(deleted: true)) }
    }

    @Test func withoutTheReplacementAnObserverKeepsSeeingCommits() async throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeStore(directory, "lists.sqlite", section: "Mine", rows: ["a"])
        let store = try ListStore.open(at: path, mode: .readOnly)
        guard var updates = try await Self.observing(store) else { return }
        try ListStore.open(at: path).insertRow("b", intoSection: 0)
        guard case .changes(let changes) = try await nextElement(&updates, timeout: .seconds(20)) else {
            Issue.record("no change set")
            return
        }
        #expect(changes.insertedRows.map(\.row.title) == ["b"])
    }
}
