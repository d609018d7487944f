import Testing
import ListStore

/// The README's library example, kept compiling and true.
@Suite struct ReadmeExampleTests {
    @Test func theLibraryExampleWorks() throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("lists.sqlite"))          // created and migrated when new
        try store.insertSection(title: "Roles")
        try store.insertRows(["Barbarian", "Wizard", "Ranger"], intoSection: 0)
        try store.appendRowToEverySection("New item")                                // one transaction, every section

        let changes = try store.deleteRows(at: [ListIndexPath(section: 0, row: 0), ListIndexPath(section: 0, row: 2)])
        #expect(changes.deletedRows.map(\.indexPath) == [ListIndexPath(section: 0, row: 0), ListIndexPath(section: 0, row: 2)])

        let page = try store.rows(inSection: 0, range: 0..<50)
        let everything = try store.snapshot()
        #expect(page.map(\.title) == ["Wizard", "New item"])
        #expect(everything.sections.map(\.title) == ["Roles"])

        // The CollectionDifference form, as the README shows it.
        let oldRowIDs = everything.sections.map { $0.rows.map(\.id) }
        let moved = try store.moveRow(from: ListIndexPath(section: 0, row: 1), to: ListIndexPath(section: 0, row: 0))
        var rowIDs = oldRowIDs
        for section in moved.rowDifferences(oldSectionCount: oldRowIDs.count) ?? [] {
            rowIDs[section.sectionAfter] = try #require(oldRowIDs[section.sectionBefore].applying(section.difference))
        }
        #expect(rowIDs == (try store.snapshot()).sections.map { $0.rows.map(\.id) })
    }
}
