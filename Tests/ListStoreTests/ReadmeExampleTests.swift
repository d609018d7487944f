import Foundation
import ListStore
import Testing

/// The README's library example, kept compiling and true.
@Suite struct ReadmeExampleTests {
    @Test func theLibraryExampleWorks() throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("lists.sqlite"))  // created and migrated when new
        try store.insertSection(title: "Roles")
        try store.insertRows(["Barbarian", "Wizard", "Ranger"], intoSection: 0)
        try store.appendRowToEverySection("New item")  // one transaction, every section

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

    /// README.md's examples are copied from `Examples/TableViewApp`, which CI builds and runs as a
    /// separate package: each `// README: …` block there must appear in README.md verbatim.
    @Test func theReadmeShowsTheExamplePackagesCodeVerbatim() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(contentsOf: root.appendingPathComponent("Examples/TableViewApp/Sources/TableViewApp/main.swift"), encoding: .utf8)
        let blocks = example.components(separatedBy: "// README: ").dropFirst().compactMap { $0.components(separatedBy: "// END\n").first }
        #expect(blocks.count >= 5)
        for block in blocks {
            let name = block.prefix { $0 != "\n" }
            let code = block.drop { $0 != "\n" }.dropFirst()
            #expect(readme.contains("```swift\n" + code + "```"), "README.md lacks the example \"\(name)\"")
        }
    }
}
