import Testing

@testable import ListStore

/// The two articles ListStore grew from, replayed against the store.
@Suite struct SeedScenarioTests {
    static let roles = ["野蠻人", "法師", "弓箭手", "盜賊", "德魯伊", "騎士"]
    static let monsters = ["哥布林戰士", "哥布林護衛", "哥布林軍官", "哥布林王", "黑暗德魯伊", "狼人", "傀儡護衛", "傀儡領主", "蜘蛛", "蝙蝠"]

    @Test func multiRowDeleteRemovesExactlyTheSelectedRowsEvenWithDuplicateTitles() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "Countries")
        let countries = ["Austria", "Belgium", "Canada", "Belgium", "Denmark", "Canada", "Egypt"]
        let inserted = try store.insertRows(countries.map { NewRow(title: $0) }, intoSection: 0).changes
        #expect(inserted.insertedRows.map(\.indexPath.row) == Array(0..<7))

        // Select the first "Belgium" (row 1), the second "Canada" (row 5) and "Egypt" (row 6).
        let changes = try store.deleteRows(at: [ListIndexPath(section: 0, row: 6), ListIndexPath(section: 0, row: 1), ListIndexPath(section: 0, row: 5)])

        #expect(try store.snapshot().titles == [["Austria", "Canada", "Belgium", "Denmark"]])
        #expect(changes.deletedRows.map(\.indexPath.row) == [1, 5, 6])
        #expect(changes.deletedRows.map(\.id) == [inserted.insertedRows[1].id, inserted.insertedRows[5].id, inserted.insertedRows[6].id])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func deletingByIdsRemovesThoseRowsWhereverTheyMoved() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "Countries")
        let ids = try store.insertRows(["A", "B", "A", "B"], intoSection: 0).ids
        try store.moveRow(from: ListIndexPath(section: 0, row: 3), to: ListIndexPath(section: 0, row: 0))  // B A B A
        let changes = try store.deleteRows(ids: [ids[2], ids[3]])
        #expect(try store.snapshot().titles == [["A", "B"]])
        #expect(changes.deletedRows.map(\.indexPath.row) == [0, 3])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func heroicaAppendToEverySectionAndInsertIntoOne() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "角色")
        try store.insertSection(title: "怪物")
        try store.insertRows(Self.roles.map { NewRow(title: $0) }, intoSection: 0)
        try store.insertRows(Self.monsters.map { NewRow(title: $0) }, intoSection: 1)

        let added = try store.appendRowToEverySection("被增加的項目").changes
        #expect(added.insertedRows.map(\.indexPath) == [ListIndexPath(section: 0, row: 6), ListIndexPath(section: 1, row: 10)])

        // The per-section insert row of edit mode: add one row to the second section only.
        try store.insertRow("被增加的項目", intoSection: 1)
        let titles = try store.snapshot().titles
        #expect(titles[0] == Self.roles + ["被增加的項目"])
        #expect(titles[1] == Self.monsters + ["被增加的項目", "被增加的項目"])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aWrongIndexNeverCrashesOrCorrupts() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "角色")
        try store.insertRows(Self.roles.map { NewRow(title: $0) }, intoSection: 0)
        let before = try store.snapshot()
        #expect(throws: ListStoreError.sectionIndexOutOfRange(index: 1, sectionCount: 1)) {
            try store.insertRow("x", intoSection: 1)
        }
        #expect(throws: ListStoreError.rowDestinationOutOfRange(ListIndexPath(section: 0, row: 7), maxRow: 6)) {
            try store.insertRow("x", intoSection: 0, at: 7)
        }
        #expect(try store.snapshot() == before)
    }

    @Test func appendingToEverySectionOfAnEmptyStoreChangesNothing() throws {
        let store = try ListStore.inMemory()
        #expect(try store.appendRowToEverySection("x").changes.isEmpty)
    }
}

@Suite struct ScanTests {
    @Test func scanVisitsEverySectionThenItsRowsInDisplayOrder() throws {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "A")
        try store.insertSection(title: "Empty")
        try store.insertSection(title: "B")
        try store.insertRows(["a0", "a1"], intoSection: 0)
        try store.insertRows(["b1"], intoSection: 2)
        try store.insertRow("b0", intoSection: 2, at: 0)
        var seen: [String] = []
        try store.scan { item in
            switch item {
            case .section(let index, _, let title, let count): seen.append("[\(index)] \(title) \(count)")
            case .row(let path, let row): seen.append("\(path) \(row.title)")
            }
        }
        #expect(seen == ["[0] A 2", "0:0 a0", "0:1 a1", "[1] Empty 0", "[2] B 2", "2:0 b0", "2:1 b1"])
        #expect(try store.snapshot(ofSection: 2) == store.snapshot().sections[2])
        #expect(throws: ListStoreError.sectionIndexOutOfRange(index: 3, sectionCount: 3)) { try store.snapshot(ofSection: 3) }
    }
}
