import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

/// Several stores on one file in one process (an app and its widget's code, a background task): opening
/// another must never drop the first one's locks. POSIX releases every lock a process holds on a file when
/// the process closes any descriptor of that file; a store that read the file's header with open/close
/// did exactly that, so the next process to commit and exit took the file for unused, checkpointed it
/// and deleted its -wal under the first store, whose every write then failed with `fileReplaced`.
@Suite struct SecondStoreInProcessTests {
    /// Commits a hand edit with the `sqlite3` shell, a process of its own that exits at once.
    static func shellCommits(_ path: String) throws {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [path, "UPDATE sections SET title = 'edited by hand' WHERE position = 0;"]
        try shell.run()
        let deadline = Date().addingTimeInterval(30)
        while shell.isRunning && Date() < deadline { usleep(10_000) }
        #expect(!shell.isRunning && shell.terminationStatus == 0, "the sqlite3 shell did not commit")
    }

    /// Opens the first store, then (`openAnother`) more stores on the same file, released at once, then
    /// lets another process commit and exit; the first store must still write, its -wal still beside it.
    static func firstStoreStillWrites(openAnother: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.sqlite")
        let first = try ListStore.open(at: path)
        try first.insertSection(title: "S")
        if openAnother {
            _ = try ListStore.open(at: path).sectionCount()
            _ = try ListStore.open(at: path, mode: .readOnly).sectionCount()
        }
        try shellCommits(path)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the -wal was deleted while the first store had the file open")
        try first.insertRow("written after", intoSection: 0)
        #expect(try first.rows(inSection: 0).map(\.title) == ["written after"])
        #expect(try first.section(at: 0).title == "edited by hand")
        #expect(try first.checkInvariants().isEmpty)
    }

    @Test func anotherStoreOpenedAndReleasedInTheSameProcessLeavesTheFirstWorking() throws {
        try Self.firstStoreStillWrites(openAnother: true)
    }

    /// The same without a second store: works either way.
    @Test func aSingleStoreWorksAfterAnotherProcessCommits() throws {
        try Self.firstStoreStillWrites(openAnother: false)
    }
}
