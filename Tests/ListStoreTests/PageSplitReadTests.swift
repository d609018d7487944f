import SQLiteLayer
import Testing

@testable import ListStore

/// A hot spot splits its page every few thousand inserts (a block split every 60 or so adds a block to
/// it): the insert that splits it reads what any insert there reads and two numbers, not every block of
/// the page. Counted, not timed: the result rows each insert's statements return, as SQLite reports
/// them (`SQLITE_TRACE_ROW`, through `StatementRecorder`'s profiling).
@Suite struct PageSplitReadTests {
    /// The most result rows one insert at the hot spot may read: its look-ups (a few rows each) and a
    /// refill (at most 10 rows and 22 block starts). Before, the page split read all 129 block counts.
    static let rowsPerInsert = 64

    @Test func theInsertThatSplitsAPageReadsNoMoreThanAnother() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.path
        StatementRecorder.start(folder: folder, profiling: true)
        defer { StatementRecorder.stop(folder: folder) }
        let path = directory.path("pages.sqlite")
        let store = try ListStore.open(at: path)
        func pages() throws -> Int? { try Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM row_pages") }
        try store.insertSection(title: "S")
        // One page of 96 blocks of 96 rows (a bulk insert fills both to three quarters).
        let rows = 96 * 96
        _ = try store.insertRows((0..<rows).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let pagesBefore = try #require(try pages())
        var worst = (rows: 0, step: -1)
        try store.write(tracksChanges: false) { transaction in
            // One insert first: it also ends statements left from before the transaction, whose rows SQLite reports then.
            _ = try transaction.insertRow(NewRow(title: "first"), intoSection: 0, at: 1)
            _ = StatementRecorder.takeProfiled(folder: folder)
            for step in 0..<3_000 {
                _ = try transaction.insertRow(NewRow(title: "hot \(step)"), intoSection: 0, at: 1)
                let read = StatementRecorder.takeProfiled(folder: folder).reduce(0) { $0 + $1.rows }
                if read > worst.rows { worst = (read, step) }
            }
        }
        // The hot spot's page split (33 block splits after the bulk insert) happened among these inserts.
        #expect(try #require(try pages()) > pagesBefore)
        #expect(worst.rows <= Self.rowsPerInsert, "insert \(worst.step) read \(worst.rows) rows")
        #expect(try store.checkInvariants().isEmpty)
    }
}
