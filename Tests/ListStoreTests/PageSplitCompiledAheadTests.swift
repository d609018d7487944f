import SQLiteLayer
import Testing

@testable import ListStore

/// Inserts landing at one place fill their block, which splits, and every so many block splits the page
/// holding them, which splits too (README's Performance). The page split's statements are compiled by the
/// block splits before it, one each, so the insert that splits the page compiles none: compiling its four
/// statements made the first page split on a connection 4–6× an insert inside a transaction of inserts at
/// one index (#2176 of `liststore-bench --adversarial --large`, 10,000 per write).
@Suite struct PageSplitCompiledAheadTests {
    @Test(arguments: [RowBlockSizes(blockCapacity: 8, pageCapacity: 16), .standard])
    func theInsertThatSplitsAPageCompilesNoStatement(sizes: RowBlockSizes) throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.path
        StatementRecorder.start(folder: folder)
        defer { StatementRecorder.stop(folder: folder) }
        let store = try ListStore.open(at: directory.path("split.sqlite"), rowBlockSizes: sizes)
        try store.insertSection(title: "S")
        _ = try store.insertRows((0..<20).map { NewRow(title: "r\($0)") }, intoSection: 0)
        var splits = 0
        try store.writeUntracked { transaction in
            for step in 0..<(sizes.blockCapacity * sizes.pageCapacity * 2) where splits < 2 {
                let preparedBefore = StatementRecorder.prepared(folder: folder)
                let ranBefore = StatementRecorder.executed(folder: folder).count
                _ = try transaction.insertRow(NewRow(title: "hot \(step)"), intoSection: 0, at: 1)
                guard StatementRecorder.executed(folder: folder).dropFirst(ranBefore).contains(RowBlocks.PageSplitSQL.blockAtOffset) else { continue }
                splits += 1
                let compiled = StatementRecorder.prepared(folder: folder).subtracting(preparedBefore)
                #expect(compiled.isEmpty, "insert \(step) split a page and compiled \(compiled.map(\.sql))")
            }
        }
        #expect(splits >= 1)
        #expect(try store.checkInvariants().isEmpty)
    }
}
