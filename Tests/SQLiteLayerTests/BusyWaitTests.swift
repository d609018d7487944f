import Foundation
import SQLiteLayer
import TestSupport
import Testing

/// A connection waiting for the write lock gets it while another commits back to back, leaving the lock
/// free for microseconds between its transactions: it tries again every millisecond (`BusyWait`), where
/// SQLite's own busy timeout tried about 25 times in 2 s: with 400-row transactions back to back, 1 of
/// the 20 writes failed as busy with it; a `liststore add` beside an app writing without a pause did too.
@Suite struct BusyWaitFairnessTests {
    @Test func aWriteGetsTheLockBetweenAnotherConnectionsBackToBackTransactions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("busy.sqlite")
        let setUp = try Connection(path: path, mode: .readWriteCreate)
        try setUp.executeScript("PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, who TEXT NOT NULL)")
        let stop = StopFlag()
        let hammering = Thread {
            guard let db = try? Connection(path: path, mode: .readWrite) else { return }
            db.setBusyTimeout(milliseconds: 10_000)
            while !stop.isSet {
                // The lock held for most of the time: many rows a transaction, none between them.
                try? db.transaction(.immediate) {
                    for _ in 0..<400 { try db.run("INSERT INTO t (who) VALUES ('hammer')") }
                }
            }
        }
        hammering.start()
        defer {
            stop.set()
            while !hammering.isFinished { usleep(1_000) }
        }
        usleep(50_000)  // the other connection is writing
        let db = try Connection(path: path, mode: .readWrite)
        db.setBusyTimeout(milliseconds: 2_000)
        var failures = 0
        for step in 0..<20 {
            do {
                try db.transaction(.immediate) { try db.run("INSERT INTO t (who) VALUES (?1)", [.text("waiter \(step)")]) }
            } catch {
                failures += 1
            }
        }
        #expect(failures == 0, "\(failures) of 20 writes found the lock taken for 2 s")
        #expect(try db.scalarInt("SELECT count(*) FROM t WHERE who LIKE 'waiter %'") == 20 - failures)
    }
}

/// A flag one thread sets and another reads.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
