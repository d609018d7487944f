import Foundation
import ListStore
import StoreShorthands
import Testing

/// The library example of README.md and OpeningAndEditing.md, kept compiling and true.
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

        // The CollectionDifference form.
        let oldRowIDs = everything.sections.map { $0.rows.map(\.id) }
        let moved = try store.moveRow(from: ListIndexPath(section: 0, row: 1), to: ListIndexPath(section: 0, row: 0))
        var rowIDs = oldRowIDs
        for section in moved.rowDifferences(oldSectionCount: oldRowIDs.count) ?? [] {
            rowIDs[section.sectionAfter] = try #require(oldRowIDs[section.sectionBefore].applying(section.difference))
        }
        #expect(rowIDs == (try store.snapshot()).sections.map { $0.rows.map(\.id) })
    }

    /// The examples of README.md and of the DocC articles are copied from `Examples/TableViewApp`, which CI
    /// builds and runs as a separate package: each block there from a `// Shown in FILE and FILE: name` line
    /// to `// END` must appear verbatim in every file it names (README.md at the root, any other in the catalog).
    @Test func theDocumentsShowTheExamplePackagesCodeVerbatim() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = try String(contentsOf: root.appendingPathComponent("Examples/TableViewApp/Sources/TableViewApp/main.swift"), encoding: .utf8)
        let marker = "// Shown in "
        let blocks = example.components(separatedBy: "\n" + marker).dropFirst().compactMap { $0.components(separatedBy: "// END\n").first }
        #expect(blocks.count >= 10)
        var shownInReadme = 0
        for block in blocks {
            let header = block.prefix { $0 != "\n" }
            let code = block.drop { $0 != "\n" }.dropFirst()
            guard let colon = header.range(of: ": ") else {
                Issue.record("\(marker)\(header) names no files (\"\(marker)README.md and Observing.md: name\")")
                continue
            }
            let name = header[colon.upperBound...]
            let files = header[..<colon.lowerBound].components(separatedBy: " and ")
            for file in files {
                let url = file == "README.md" ? root.appendingPathComponent(file) : root.appendingPathComponent("Sources/ListStore/ListStore.docc/\(file)")
                let text = try String(contentsOf: url, encoding: .utf8)
                #expect(text.contains("```swift\n" + code + "```"), "\(file) lacks the example \"\(name)\"")
                if file == "README.md" { shownInReadme += 1 }
            }
        }
        #expect(shownInReadme >= 4, "README.md's tour shows the library: open, edit, read, observe, undo")
    }
}
