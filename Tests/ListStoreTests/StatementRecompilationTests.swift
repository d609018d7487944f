import Foundation
import Testing

@testable import ListStore

/// A store's writer keeps its prepared statements from one edit to the next: nothing it does after opening
/// expires them (a change of the connection's flags would, and SQLite would compile every statement again
/// on its next use: the second write after opening cost three times a usual one).
@Suite struct StatementRecompilationTests {
    @Test func editsAfterTheFirstCommitCompileNoStatementAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        do {
            let store = try ListStore.open(at: path)
            try store.insertSection(title: "S")
            _ = try store.insertRows((0..<200).map { NewRow(title: "r\($0)") }, intoSection: 0)
        }
        // A file that exists: recognised by the first write's own transaction, settled after its commit.
        let store = try ListStore.open(at: path)
        for step in 0..<3 {
            // (`PRAGMA integrity_check`, which checkInvariants runs, is compiled again each time it runs.)
            let before = try store.writerRecompilations()
            _ = try store.insertRow(NewRow(title: "hot \(step)"), intoSection: 0, at: 1)
            _ = try store.moveRow(from: ListIndexPath(section: 0, row: 2), to: ListIndexPath(section: 0, row: 150))
            _ = try store.deleteRows(at: [ListIndexPath(section: 0, row: 10)])
            #expect(try store.writerRecompilations() == before, "step \(step)")
            #expect(try store.checkInvariants().isEmpty)
        }
        #expect(try store.totalRowCount() == 200)
    }
}
