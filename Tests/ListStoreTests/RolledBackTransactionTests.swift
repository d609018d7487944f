import SQLiteLayer
import Testing

@testable import ListStore

/// SQLite ends a transaction itself after some errors (SQLITE_FULL: here, ids that ran out). A write
/// closure that catches such an error and goes on must not run its next statements outside any
/// transaction, each committing alone: they are refused, and the write reports that nothing was written.
@Suite struct RolledBackTransactionTests {
    @Test func editsAfterSQLiteRolledTheTransactionBackAreRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("full.sqlite")
        let store = try ListStore.open(at: path)
        _ = try store.insertSection(title: "S")
        try Connection(path: path, mode: .readWrite).executeScript(
            "INSERT INTO rows (id, section_id, position, title) VALUES (9223372036854775807, 1, 0, 'last')")
        let before = try store.snapshot()
        var caught: Error?
        var afterwards: Error?
        #expect(throws: ListStoreError.transactionRolledBack) {
            try store.write { transaction in
                _ = try transaction.insertSection(title: "inside")
                do { _ = try transaction.insertRow(NewRow(title: "no id left"), intoSection: 0) } catch { caught = error }
                do { _ = try transaction.insertSection(title: "after the rollback") } catch { afterwards = error }
            }
        }
        #expect(caught != nil, "the insert without an id left must fail")
        guard case .transactionRolledBack = (afterwards as? ListStoreError)?.reason else {
            Issue.record("an edit after SQLite's rollback was not refused: \(String(describing: afterwards))")
            return
        }
        #expect(try store.snapshot().sections.map(\.title) == before.sections.map(\.title))
        let problems = try store.checkInvariants().map(\.description)
        #expect(problems.allSatisfy { $0.contains("largest possible id") }, "\(problems)")
    }
}
