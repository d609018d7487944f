import SQLiteLayer
import Testing

@testable import ListStore

/// Inserts landing at one place use up the room there, and every few thousand of them a refill shifts the
/// neighbour on the other side away (README's Performance). Its statements are compiled while the room
/// runs low, one per insert, so the insert that refills compiles none: compiling its five statements made
/// the first refill on a connection 5× a usual insert (#2031 of `liststore-bench --adversarial --large`).
@Suite struct RefillCompiledAheadTests {
    /// Inserts at one index (the run grows down towards the first row, which a refill shifts down) or each
    /// right after the one before (the run grows up, and a refill shifts the rows above it up).
    @Test(arguments: [false, true]) func theInsertThatRefillsCompilesNoStatement(eachAfterThePrevious: Bool) throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.path
        StatementRecorder.start(folder: folder)
        defer { StatementRecorder.stop(folder: folder) }
        let store = try ListStore.open(at: directory.path("refill.sqlite"))
        try store.insertSection(title: "S")
        _ = try store.insertRows((0..<300).map { NewRow(title: "r\($0)") }, intoSection: 0)
        let refill = eachAfterThePrevious ? SectionRows.RefillSQL.rowsAbove : SectionRows.RefillSQL.rowsBelow
        var refills = 0
        try store.writeUntracked { transaction in
            for step in 0..<6_000 where refills < 2 {
                let preparedBefore = StatementRecorder.prepared(folder: folder)
                let ranBefore = StatementRecorder.executed(folder: folder).count
                _ = try transaction.insertRow(NewRow(title: "hot \(step)"), intoSection: 0, at: eachAfterThePrevious ? 1 + step : 1)
                guard StatementRecorder.executed(folder: folder).dropFirst(ranBefore).contains(refill) else { continue }
                refills += 1
                let compiled = StatementRecorder.prepared(folder: folder).subtracting(preparedBefore)
                #expect(compiled.isEmpty, "insert \(step) refilled and compiled \(compiled.map(\.sql))")
            }
        }
        #expect(refills >= 1)
        #expect(try store.checkInvariants().isEmpty)
    }
}
