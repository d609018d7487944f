import Testing

@testable import ListStore

/// Every bad input throws a typed error naming it, and leaves the store exactly as it was.
@Suite struct ErrorCaseTests {
    /// Two sections: "A" with rows a0 a1 a2, "B" with row b0.
    func makeStore() throws -> ListStore {
        let store = try ListStore.inMemory()
        try store.insertSection(title: "A")
        try store.insertSection(title: "B")
        try store.insertRows(["a0", "a1", "a2"], intoSection: 0)
        try store.insertRow(NewRow(title: "b0", payload: "{\"n\":1}"), intoSection: 1)
        return store
    }

    func expectUnchanged(_ expected: ListStoreError, _ operation: (ListStore) throws -> Void) throws {
        let store = try makeStore()
        let before = try store.snapshot()
        #expect(throws: expected) { try operation(store) }
        #expect(try store.snapshot() == before)
        #expect(try store.checkInvariants().isEmpty)
    }

    static func path(_ section: Int, _ row: Int) -> ListIndexPath { ListIndexPath(section: section, row: row) }

    @Test func outOfRangeIndexPaths() throws {
        try expectUnchanged(.rowIndexOutOfRange(Self.path(0, 3), rowCount: 3)) { try $0.deleteRows(at: [Self.path(0, 0), Self.path(0, 3)]) }
        try expectUnchanged(.rowIndexOutOfRange(Self.path(1, -1), rowCount: 1)) { try $0.deleteRows(at: [Self.path(1, -1)]) }
        try expectUnchanged(.sectionIndexOutOfRange(index: 2, sectionCount: 2)) { try $0.deleteRows(at: [Self.path(0, 1), Self.path(2, 0)]) }
        try expectUnchanged(.sectionIndexOutOfRange(index: -1, sectionCount: 2)) { _ = try $0.rows(inSection: -1) }
        try expectUnchanged(.rowIndexOutOfRange(Self.path(1, 1), rowCount: 1)) { try $0.updateRow(at: Self.path(1, 1), title: "x") }
        try expectUnchanged(.rowIndexOutOfRange(Self.path(0, 5), rowCount: 3)) { try $0.moveRow(from: Self.path(0, 5), to: Self.path(0, 0)) }
        try expectUnchanged(.rowDestinationOutOfRange(Self.path(0, 3), maxRow: 2)) { try $0.moveRow(from: Self.path(0, 0), to: Self.path(0, 3)) }
        try expectUnchanged(.rowDestinationOutOfRange(Self.path(1, 2), maxRow: 1)) { try $0.moveRow(from: Self.path(0, 0), to: Self.path(1, 2)) }
        try expectUnchanged(.rowDestinationOutOfRange(Self.path(0, -1), maxRow: 3)) { try $0.insertRows(["x"], intoSection: 0, at: -1) }
        try expectUnchanged(.sectionInsertionIndexOutOfRange(index: 3, sectionCount: 2)) { try $0.insertSection(title: "C", at: 3) }
        try expectUnchanged(.sectionIndexOutOfRange(index: 2, sectionCount: 2)) { try $0.moveSection(from: 0, to: 2) }
        try expectUnchanged(.sectionIndexOutOfRange(index: 5, sectionCount: 2)) { try $0.renameSection(at: 5, to: "x") }
        try expectUnchanged(.sectionIndexOutOfRange(index: 2, sectionCount: 2)) { try $0.deleteSections(at: [0, 2]) }
    }

    @Test func duplicatesInOneCall() throws {
        try expectUnchanged(.duplicateIndexPath(Self.path(0, 1))) { try $0.deleteRows(at: [Self.path(0, 1), Self.path(1, 0), Self.path(0, 1)]) }
        try expectUnchanged(.duplicateSectionIndex(1)) { try $0.deleteSections(at: [1, 1]) }
        let store = try makeStore()
        let id = try store.row(at: Self.path(0, 0)).id
        #expect(throws: ListStoreError.duplicateRowID(id)) { try store.deleteRows(ids: [id, id]) }
        #expect(try store.rowCount(inSection: 0) == 3)
    }

    @Test func unknownAndDeletedIds() throws {
        let store = try makeStore()
        let id = try store.row(at: Self.path(0, 1)).id
        try store.deleteRows(ids: [id])
        let before = try store.snapshot()
        let other = try store.row(at: Self.path(0, 0)).id
        #expect(throws: ListStoreError.unknownRow(id)) { try store.deleteRows(ids: [other, id]) }
        #expect(throws: ListStoreError.unknownRow(id)) { try store.updateRow(id: id, title: "x") }
        #expect(throws: ListStoreError.unknownSection(SectionID(rawValue: 999))) { try store.deleteSections(ids: [SectionID(rawValue: 999)]) }
        #expect(try store.indexPath(of: id) == nil)
        #expect(try store.snapshot() == before)
    }

    @Test func invalidPayloadsAndTitles() throws {
        try expectUnchanged(.invalidPayload("{nope")) { try $0.insertRows(["ok", NewRow(title: "bad", payload: "{nope")], intoSection: 0) }
        try expectUnchanged(.invalidPayload("")) { try $0.updateRow(at: Self.path(1, 0), payload: .set("")) }
        try expectUnchanged(.invalidPayload("[1,")) { try $0.appendRowToEverySection(NewRow(title: "x", payload: "[1,")) }
        try expectUnchanged(.invalidTitle("", reason: "a title cannot be empty")) { try $0.insertRows(["ok", ""], intoSection: 0) }
        try expectUnchanged(.invalidTitle("a\u{0}b", reason: "a title cannot contain NUL characters")) { try $0.renameSection(at: 0, to: "a\u{0}b") }
        try expectUnchanged(.invalidTitle("", reason: "a title cannot be empty")) { try $0.insertSection(title: "") }
    }

    @Test func hostileTextRoundTripsExactly() throws {
        let store = try makeStore()
        let titles = ["'; DROP TABLE rows; --", "line\nbreak\ttab \"quoted\"", String(repeating: "長", count: 350_000), "emoji 👩‍👩‍👧 and \\ backslash"]
        try store.insertRows(titles.map { NewRow(title: $0, payload: "{\"t\":\"'; DROP TABLE sections; --\"}") }, intoSection: 1)
        let rows = try store.rows(inSection: 1, range: 1..<5)
        #expect(rows.map(\.title) == titles)
        #expect(rows.allSatisfy { $0.payload == "{\"t\":\"'; DROP TABLE sections; --\"}" })
        #expect(try store.sectionCount() == 2)
    }

    @Test func anImportThatFailsHalfwayLeavesTheStoreAsItWas() throws {
        struct Interrupted: Error {}
        let store = try makeStore()
        let before = try store.snapshot()
        #expect(throws: Interrupted.self) {
            try store.importStream(replacing: true) { importer in
                try importer.addSection(title: "new")
                try importer.addRow(title: "r")
                throw Interrupted()
            }
        }
        #expect(throws: ListStoreError.storeNotEmpty(sectionCount: 2)) { try store.importStream { _ in } }
        #expect(throws: ListStoreError.invalidDocument("a row comes before any section")) {
            try store.importStream(replacing: true) { try $0.addRow(title: "orphan") }
        }
        #expect(throws: ListStoreError.duplicateSectionID(SectionID(rawValue: 3))) {
            try store.importStream(replacing: true) { importer in
                try importer.addSection(id: SectionID(rawValue: 3), title: "a")
                try importer.addSection(id: SectionID(rawValue: 3), title: "b")
            }
        }
        #expect(try store.snapshot() == before)
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func messagesSayWhatToDo() {
        let message = ListStoreError.rowIndexOutOfRange(Self.path(0, 7), rowCount: 3).description
        #expect(message == "row 0:7 does not exist: section 0 has 3 rows (0…2); read the rows again for the current index paths")
        #expect(!ListStoreError.invalidPayload(String(repeating: "x", count: 5000) + "\n").description.contains("\n"))
    }
}
