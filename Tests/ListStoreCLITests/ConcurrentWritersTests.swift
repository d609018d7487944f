import Foundation
import ListStore
import StoreShorthands
import Testing

/// Many processes and threads appending and deleting in one section at once: every operation succeeds
/// or fails clearly, and the final store has exactly the rows of the successful ones.
@Suite(.tags(.slow)) struct ConcurrentWritersTests {
    final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var inserted = Set<Int64>()
        private(set) var deleted = Set<Int64>()
        private(set) var failures: [String] = []
        func record(inserted ids: [Int64] = [], deleted gone: [Int64] = []) {
            lock.lock()
            inserted.formUnion(ids)
            deleted.formUnion(gone)
            lock.unlock()
        }
        func fail(_ message: String) {
            lock.lock()
            failures.append(message)
            lock.unlock()
        }
    }

    static func ids(_ json: [String: Any], _ kind: String) -> [Int64] {
        let rows = (json["changes"] as? [String: Any])?["rows"] as? [String: Any]
        return (rows?[kind] as? [[String: Any]])?.compactMap { ($0["id"] as? NSNumber)?.int64Value } ?? []
    }

    /// A failure that is allowed: the busy timeout, or deleting from a section that happened to be empty.
    static func acceptable(_ stderr: String) -> Bool {
        stderr.hasPrefix("error: database is busy") || stderr.hasPrefix("error: row 0:0 does not exist: section 0 has 0 rows")
    }

    @Test func processesAndThreadsWritingAtOnce() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "Shared"])
        let ledger = Ledger()
        let processes = 8
        let processOperations = 200
        let threads = 4
        let threadOperations = 300
        let path = cli.database

        // Real threads, not tasks: the workers block on processes and locks, which must not starve the task pool.
        let store = try ListStore.open(at: path)
        var workers: [@Sendable () -> Void] = []
        for worker in 0..<processes {
            workers.append {
                for step in 0..<processOperations {
                    let deleting = step % 3 == 2
                    do {
                        let run = try cli.run(["--json"] + (deleting ? ["delete", "0:0"] : ["add", "0", "p\(worker)-\(step)"]), process: true)
                        if run.status == 0 {
                            let json = try CLIHarness.json(run.stdout)
                            ledger.record(inserted: Self.ids(json, "inserted"), deleted: Self.ids(json, "deleted"))
                        } else if !Self.acceptable(run.stderr) {
                            ledger.fail("process \(worker) step \(step): status \(run.status): \(run.stderr)")
                        }
                    } catch {
                        ledger.fail("process \(worker) step \(step): \(error)")
                    }
                }
            }
        }
        for worker in 0..<threads {
            workers.append {
                for step in 0..<threadOperations {
                    do {
                        if step % 3 == 2 {
                            let changes = try store.deleteRows(at: [ListIndexPath(section: 0, row: 0)])
                            ledger.record(deleted: changes.deletedRows.map(\.id.rawValue))
                        } else {
                            let inserted = try store.insertRow(NewRow(title: "t\(worker)-\(step)"), intoSection: 0, at: step % 2 == 0 ? 0 : nil)
                            ledger.record(inserted: [inserted.id.rawValue])
                        }
                    } catch {
                        if !Self.acceptable("error: \(error)") { ledger.fail("thread \(worker) step \(step): \(error)") }
                    }
                }
            }
        }
        let done = DispatchGroup()
        for work in workers {
            done.enter()
            Thread {
                work()
                done.leave()
            }.start()
        }
        // Bounded: every process the workers run is killed after CLIHarness.processTimeout, so they end;
        // a deadlock in the library would not, and fails here instead of hanging the suite.
        let finished = done.wait(timeout: .now() + 900)
        try #require(finished == .success, "the writers did not finish within 15 minutes: \(ledger.failures.prefix(5))")

        #expect(ledger.failures.isEmpty, "\(ledger.failures.prefix(5))")
        let reopened = try ListStore.open(at: path)
        let rows = try reopened.snapshot().sections[0].rows
        #expect(Set(rows.map(\.id.rawValue)) == ledger.inserted.subtracting(ledger.deleted))
        #expect(rows.count == Set(rows.map(\.id)).count, "no duplicates")
        #expect(ledger.deleted.isSubset(of: ledger.inserted))
        #expect(try reopened.checkInvariants().isEmpty)
        #expect(ledger.inserted.count > (processes * processOperations + threads * threadOperations) / 2)
    }
}
