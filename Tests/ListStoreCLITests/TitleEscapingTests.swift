import Foundation
import ListStore
import StoreShorthands
import Testing

@testable import ListStoreCLI

/// Titles holding bidirectional controls, line and paragraph separators and C1 controls: `show`, `ui`
/// and error messages print them as escapes, so nothing a file holds reorders or breaks the lines a
/// terminal shows; `--json` and `export` keep the exact characters, as valid JSON.
@Suite struct TitleEscapingTests {
    /// Each hostile character, and how human output shows it.
    static let hostile: [(scalar: String, shown: String)] = [
        ("\u{202E}", "\\u{202e}"), ("\u{202A}", "\\u{202a}"), ("\u{202D}", "\\u{202d}"), ("\u{2066}", "\\u{2066}"),
        ("\u{2069}", "\\u{2069}"), ("\u{200E}", "\\u{200e}"), ("\u{200F}", "\\u{200f}"), ("\u{061C}", "\\u{61c}"),
        ("\u{2028}", "\\u{2028}"), ("\u{2029}", "\\u{2029}"), ("\u{0085}", "\\u{85}"), ("\u{009B}", "\\u{9b}"),
    ]

    /// Every hostile character, one per row, between plain letters.
    static var titles: [String] { hostile.map { "pay\($0.scalar)txt.exe" } }

    static func environment() -> CLIEnvironment {
        CLIEnvironment(variables: [:], readStandardInput: { Data() }, standardErrorIsTerminal: false, writeProgress: { _ in })
    }

    static func makeStore(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path("titles.sqlite")
        let store = try ListStore.open(at: path)
        try store.write { tx in
            try tx.insertSection(title: "sec\u{202E}tion")
            _ = try tx.insertRows(titles.map { NewRow(title: $0) } + [NewRow(title: "plain title"), NewRow(title: "עברית ltr")], intoSection: 0)
        }
        return path
    }

    /// True when `text` holds none of the hostile characters raw.
    static func holdsNoneRaw(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in hostile.contains { $0.scalar.unicodeScalars.first == scalar } }
    }

    @Test func showPrintsBidiControlsAndSeparatorsEscaped() throws {
        let directory = try TemporaryDirectory(prefix: "escaping")
        let path = try Self.makeStore(directory)
        for arguments in [["show"], ["show", "0"]] {
            let result = CLI.run(["--db", path] + arguments, environment: Self.environment())
            #expect(result.status == 0, "\(result.error)")
            #expect(Self.holdsNoneRaw(result.output), "\(arguments): \(result.output.debugDescription)")
            for (_, shown) in Self.hostile { #expect(result.output.contains("pay\(shown)txt.exe"), "\(arguments): \(shown)") }
            #expect(result.output.contains("[0] sec\\u{202e}tion (14 rows)"))
            // One line per row: a separator in a title starts no new line.
            #expect(result.output.split(separator: "\n", omittingEmptySubsequences: false).count == 1 + 14 + 1)
        }
    }

    @Test func plainTitlesAndOtherScriptsArePrintedAsTheyAre() throws {
        let directory = try TemporaryDirectory(prefix: "escaping")
        let path = try Self.makeStore(directory)
        let result = CLI.run(["--db", path, "show"], environment: Self.environment())
        #expect(result.output.contains("0:12  plain title\n"))
        #expect(result.output.contains("0:13  עברית ltr\n"))  // right-to-left letters are text, not controls
    }

    @Test func jsonKeepsTheExactCharactersAsValidEscapedJSON() throws {
        let directory = try TemporaryDirectory(prefix: "escaping")
        let path = try Self.makeStore(directory)
        for arguments in [["--json", "show"], ["--json", "show", "0"], ["export"]] {
            let result = CLI.run(["--db", path] + arguments, environment: Self.environment())
            #expect(result.status == 0, "\(result.error)")
            #expect(Self.holdsNoneRaw(result.output), "\(arguments): \(result.output.debugDescription)")
            #expect(result.output.contains("pay\\u202etxt.exe"))
            let document = try CLIHarness.json(result.output)
            let sections = try #require(document["sections"] as? [[String: Any]])
            #expect(sections.first?["title"] as? String == "sec\u{202E}tion")
            let rows = try #require(sections.first?["rows"] as? [[String: Any]])
            #expect(rows.compactMap { $0["title"] as? String } == Self.titles + ["plain title", "עברית ltr"])
        }
    }

    @Test func exportedEscapesImportAsTheSameCharacters() throws {
        let directory = try TemporaryDirectory(prefix: "escaping")
        let path = try Self.makeStore(directory)
        let exported = CLI.run(["--db", path, "export"], environment: Self.environment())
        let document = Data(exported.output.utf8)
        let copy = directory.path("copy.sqlite")
        let imported = CLI.run(
            ["--db", copy, "import", "-"],
            environment: CLIEnvironment(variables: [:], readStandardInput: { document }, standardErrorIsTerminal: false, writeProgress: { _ in }))
        #expect(imported.status == 0, "\(imported.error)")
        let rows = try ListStore.open(at: copy, mode: .readOnly).rows(inSection: 0).map(\.title)
        #expect(rows == Self.titles + ["plain title", "עברית ltr"])
    }

    @Test func theUIDrawsTheSameEscapes() throws {
        let directory = try TemporaryDirectory(prefix: "escaping")
        let store = try ListStore.open(at: try Self.makeStore(directory))
        let controller = try UIController(store: store, height: 20)
        let frame = ScreenLayout.frame(controller, width: 80, height: 22)
        let text = frame.lines.map(\.text).joined(separator: "\n")
        #expect(Self.holdsNoneRaw(text), "\(text.debugDescription)")
        #expect(frame.lines[0].text == "  [0] sec\\u{202e}tion (14 rows)")
        for (_, shown) in Self.hostile { #expect(text.contains("pay\(shown)txt.exe"), "\(shown)") }
    }

    @Test func errorMessagesQuoteTitlesEscaped() throws {
        let directory = try TemporaryDirectory(prefix: "escaping")
        let path = try Self.makeStore(directory)
        // A title with a NUL is refused, and the message quotes it.
        let result = CLI.run(["--db", path, "add", "0", "evil\u{202E}\u{2028}\0"], environment: Self.environment())
        #expect(result.status == 1)
        #expect(result.error.contains("evil\\u{202e}\\u{2028}"), "\(result.error.debugDescription)")
        #expect(Self.holdsNoneRaw(result.error))
    }
}
