import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Read connections are opened when first needed, so the path may name another file by then: one that
/// would read a file the store never recognised is refused, and reads go on through the connections the
/// store has (a new connection would read the old file's `-wal` over the new file: a mix of both). Without
/// the swap the same read reads the store.
@Suite struct ReaderConnectionTests {
    @Test(arguments: [false, true])
    func aReadConnectionOpenedAfterTheFileWasReplacedNeverReadsTheNewFile(replaced: Bool) throws {
        let directory = try TemporaryDirectory()
        let backup = try SwappedFileTests.makeStore(directory, "backup.sqlite", section: "Restored", rows: ["r1", "r2"])
        let path = directory.path("lists.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "Mine")
        try store.insertRow("m", intoSection: 0)
        if replaced { #expect(rename(backup, path) == 0) }
        // Another thread's scan holds the writer connection (it was free when the scan began), so the
        // read below must open a read connection.
        let scanning = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let scanner = Thread {
            var signalled = false
            _ = try? store.scan { _ in
                if !signalled {
                    signalled = true
                    scanning.signal()
                    _ = release.wait(timeout: .now() + 10)
                }
            }
        }
        scanner.start()
        #expect(scanning.wait(timeout: .now() + 30) == .success)
        defer { release.signal() }
        if replaced {
            #expect { try store.snapshot() } throws: { SwappedFileTests.isReplaced($0, .database(deleted: false)) }
        } else {
            #expect(try store.snapshot().titles == [["m"]])
        }
    }

    @Test func readsNeverOpenMoreThanTheLimitOfReadConnections() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("many.sqlite")
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "S")
        try store.insertRows((0..<50).map { "r\($0)" }, intoSection: 0)
        let inside = Locked((now: 0, most: 0))
        let group = DispatchGroup()
        for _ in 0..<12 {
            group.enter()
            Thread {
                defer { group.leave() }
                for _ in 0..<20 {
                    _ = try? store.read { reader -> Int in
                        inside.withLock {
                            $0.now += 1
                            $0.most = max($0.most, $0.now)
                        }
                        defer { inside.withLock { $0.now -= 1 } }
                        usleep(500)
                        return try reader.totalRowCount()
                    }
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        // Four read connections and the writer connection when it was free.
        #expect(inside.withLock { $0.most } <= ReaderPool.limit + 1)
        #expect(try store.totalRowCount() == 50)
    }
}
