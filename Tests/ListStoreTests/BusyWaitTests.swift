import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands
import Testing

/// A write that cannot get the lock fails after one busy timeout — not one per connection it opens.
@Suite struct BusyWaitTests {
    /// Two of them (4 s) would be the bug; the margin above one absorbs a loaded machine.
    static let timeout: Int32 = 2_000

    /// How long opening `path` and adding a section takes to fail with `.busy` while `holder` holds its lock.
    func failedWrite(_ path: String) throws -> Duration {
        let clock = ContinuousClock()
        let started = clock.now
        #expect {
            let store = try ListStore.open(at: path, busyTimeout: Self.timeout)
            try store.insertSection(title: "late")
        } throws: { error in
            guard case .busy = (error as? ListStoreError)?.reason else { return false }
            return "\(error)".contains("nothing was changed — try again")
        }
        return clock.now - started
    }

    func makeStore(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path("store.sqlite")
        try ListStore.open(at: path).insertSection(title: "A")
        return path
    }

    @Test func aWriteWaitsOneBusyTimeoutForAnExclusiveLockingConnection() throws {
        let directory = try TemporaryDirectory()
        let path = try makeStore(directory)
        do {
            // Without the attack: an ordinary writer holding its write lock.
            let other = try Connection(path: path, mode: .readWrite)
            try other.run("BEGIN IMMEDIATE")
            let waited = try failedWrite(path)
            #expect(waited >= .milliseconds(1_800) && waited < .milliseconds(3_600), "\(waited)")
            try other.run("ROLLBACK")
        }
        do {
            // A connection in exclusive locking mode that has written keeps the file locked for good.
            let exclusive = try Connection(path: path, mode: .readWrite)
            try exclusive.run("PRAGMA locking_mode = EXCLUSIVE")
            try exclusive.run("BEGIN IMMEDIATE")
            try exclusive.run("UPDATE sections SET title = title")
            try exclusive.run("COMMIT")
            let waited = try failedWrite(path)
            #expect(waited >= .milliseconds(1_800) && waited < .milliseconds(3_600), "one busy timeout (\(Self.timeout) ms), not two: \(waited)")
        }
        // Once it is gone, the write goes through.
        try ListStore.open(at: path, busyTimeout: Self.timeout).insertSection(title: "now")
        #expect(try ListStore.open(at: path, mode: .readOnly).sectionCount() == 2)
    }
}
