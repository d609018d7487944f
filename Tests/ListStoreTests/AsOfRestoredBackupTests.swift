import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

/// A backup restored by hand after the draw is another history: its commits after the restore must never
/// be taken for the original's commits after the backup, whose version the app drew (red team, issue 20).
@Suite struct AsOfRestoredBackupTests {
    static func makeStore(_ path: String) throws -> ListStore {
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "Countries")
        try store.insertRows(["Argentina", "Belgium", "Canada", "Denmark", "Egypt"], intoSection: 0)
        return store
    }

    @Test func anEditAsOfAVersionOfTheOriginalIsRefusedOnARestoredBackup() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("list.sqlite")
        let backup = directory.path("backup.sqlite")
        var drawn: ListSnapshot
        do {
            let store = try Self.makeStore(path)
            try store.backup(to: backup)
            try store.renameSection(at: 0, to: "Countries, renamed")
            try store.updateRow(at: ListIndexPath(section: 0, row: 0), title: "Argentina!")
            drawn = try store.snapshot()  // the app draws here: 0:2 is Canada
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(rename(backup, path) == 0)
        let restored = try ListStore.open(at: path)
        // As many commits as the original made since the backup, and more: version numbers meet again.
        try restored.moveRow(from: ListIndexPath(section: 0, row: 4), to: ListIndexPath(section: 0, row: 0))
        try restored.moveRow(from: ListIndexPath(section: 0, row: 4), to: ListIndexPath(section: 0, row: 0))
        try restored.updateRow(at: ListIndexPath(section: 0, row: 3), title: "x")
        #expect(try restored.version() > drawn.version)
        let before = try restored.snapshot()
        #expect {
            try restored.deleteRows(at: [ListIndexPath(section: 0, row: 2)], asOf: drawn.version)
        } throws: { error in
            if case .versionNotTranslatable? = (error as? ListStoreError)?.reason { return true }
            return false
        }
        #expect(try restored.snapshot() == before)
        #expect(try restored.checkInvariants().isEmpty)
    }

    /// The same without the restore: the edit acts on the row drawn.
    @Test func onTheOriginalTheSameEditActsOnTheRowDrawn() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(directory.path("list.sqlite"))
        try store.backup(to: directory.path("backup.sqlite"))
        let drawn = try store.snapshot()
        let canada = drawn.sections[0].rows[2].id
        try store.moveRow(from: ListIndexPath(section: 0, row: 4), to: ListIndexPath(section: 0, row: 0))
        try store.deleteRows(at: [ListIndexPath(section: 0, row: 2)], asOf: drawn.version)
        #expect(try store.indexPath(of: canada) == nil)
        #expect(try store.rowCount(inSection: 0) == 4)
    }

    /// A fresh backup is sound and its log holds one entry: nothing for `check` to report.
    @Test func aBackupIsSoundAndStartsItsOwnHistory() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeStore(directory.path("list.sqlite"))
        try store.backup(to: directory.path("backup.sqlite"))
        let copy = try ListStore.open(at: directory.path("backup.sqlite"), mode: .readOnly)
        #expect(try copy.checkInvariants().isEmpty)
        #expect(try copy.snapshot() == store.snapshot())
        #expect(try copy.version().rawValue >= (1 << 32))
    }
}
