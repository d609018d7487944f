import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

@testable import ListStoreCLI

/// List names holding invisible format characters — the byte-order mark U+FEFF, zero-width spaces and
/// joiners, tag characters — print escaped wherever human output names a list (`lists`, `ui`'s list
/// switcher, error messages), so two names that look alike on screen are told apart; `--json` keeps the
/// exact characters, unescaped (they break no line). The rule is the one titles follow (``TitleEscapingTests``).
@Suite struct InvisibleNameEscapingTests {
    /// Each invisible character, and how human output shows it.
    static let invisible: [(scalar: String, shown: String)] = [
        ("\u{FEFF}", "\\u{feff}"), ("\u{200B}", "\\u{200b}"), ("\u{200C}", "\\u{200c}"), ("\u{200D}", "\\u{200d}"),
        ("\u{2060}", "\\u{2060}"), ("\u{2063}", "\\u{2063}"), ("\u{00AD}", "\\u{ad}"), ("\u{180E}", "\\u{180e}"),
        ("\u{206F}", "\\u{206f}"), ("\u{FFF9}", "\\u{fff9}"), ("\u{E0041}", "\\u{e0041}"),
    ]

    /// One list name per invisible character, between plain letters.
    static var names: [String] { invisible.map { "Wo\($0.scalar)rk" } }

    /// True when `text` holds none of the invisible characters raw.
    static func holdsNoneRaw(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in invisible.contains { $0.scalar.unicodeScalars.first == scalar } }
    }

    /// A file with the default list and one list per name of ``names``.
    static func makeStore(_ directory: TemporaryDirectory) throws -> ListStore {
        let store = try ListStore.open(at: directory.path("names.sqlite"))
        for name in names { _ = try store.addList(named: name) }
        return store
    }

    @Test func theRuleCoversTheInvisibleFormatCharacters() {
        for (scalar, shown) in Self.invisible {
            #expect(visible("a\(scalar)b") == "a\(shown)b")
        }
        // Visible text next to them is left alone, as are joiner-free emoji and other scripts.
        #expect(visible("Work 🙂 עברית é") == "Work 🙂 עברית é")
    }

    @Test func emojiSequencesPrintAsTheyAreWhileAStrayJoinerIsEscaped() {
        for emoji in ["👨\u{200D}👩\u{200D}👧", "🏳\u{FE0F}\u{200D}🌈", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"] {
            #expect(visible("Family \(emoji)") == "Family \(emoji)", "\(emoji.debugDescription)")
        }
        // A joiner or tag character after a letter, a digit or at the start joins no emoji: shown escaped.
        #expect(visible("\u{200D}a\u{200D}1\u{E0041}") == "\\u{200d}a\\u{200d}1\\u{e0041}")
    }

    @Test func listsPrintsInvisibleCharactersEscaped() throws {
        let directory = try TemporaryDirectory(prefix: "invisible-names")
        let path = try Self.makeStore(directory).path
        let result = CLI.run(["--db", path, "lists"], environment: TitleEscapingTests.environment())
        #expect(result.status == 0, "\(result.error)")
        #expect(Self.holdsNoneRaw(result.output), "\(result.output.debugDescription)")
        for (index, (_, shown)) in Self.invisible.enumerated() {
            #expect(result.output.contains("\(index + 1) \"Wo\(shown)rk\": 0 sections, 0 rows\n"), "\(shown)")
        }
    }

    @Test func jsonKeepsTheExactNames() throws {
        let directory = try TemporaryDirectory(prefix: "invisible-names")
        let path = try Self.makeStore(directory).path
        let result = CLI.run(["--db", path, "--json", "lists"], environment: TitleEscapingTests.environment())
        #expect(result.status == 0, "\(result.error)")
        // Exact: programs read JSON, so invisible characters stay as they are (JSON escapes none of them).
        for name in Self.names { #expect(result.output.contains("\"\(name)\""), "\(name.debugDescription)") }
        #expect(!result.output.contains("\\u"))
        let lists = try #require(try CLIHarness.json(result.output)["lists"] as? [[String: Any]])
        #expect(lists.compactMap { $0["name"] as? String } == [ListStore.defaultListName] + Self.names)
        let decoded = try JSONDecoder().decode([String: [Name]].self, from: Data(result.output.utf8))
        #expect(decoded["lists"]?.map(\.name) == [ListStore.defaultListName] + Self.names)
    }

    /// The part of a `lists --json` entry the test reads.
    struct Name: Decodable { let name: String }

    @Test func theUIListSwitcherShowsNamesEscaped() throws {
        let directory = try TemporaryDirectory(prefix: "invisible-names")
        let store = try Self.makeStore(directory)
        let controller = try UIController(store: store, height: 10)
        for (_, shown) in Self.invisible {
            controller.handle(.character("l"))
            let status = ScreenLayout.statusLine(controller, columns: 200).text
            #expect(status.hasPrefix("[Wo\(shown)rk] "), "\(status.debugDescription)")
            #expect(status.contains("list \"Wo\(shown)rk\""), "\(status.debugDescription)")
            #expect(Self.holdsNoneRaw(status), "\(status.debugDescription)")
        }
    }

    @Test func errorMessagesNameListsEscaped() throws {
        let directory = try TemporaryDirectory(prefix: "invisible-names")
        let path = try Self.makeStore(directory).path
        for arguments in [["--list", "No\u{FEFF}such\u{200B}list", "show"], ["list", "add", "Wo\u{FEFF}rk"], ["list", "delete", "Gone\u{2060}"]] {
            let result = CLI.run(["--db", path] + arguments, environment: TitleEscapingTests.environment())
            #expect(result.status == 1, "\(arguments)")
            #expect(Self.holdsNoneRaw(result.error), "\(arguments): \(result.error.debugDescription)")
            #expect(result.error.contains("\\u{feff}") || result.error.contains("\\u{2060}"), "\(arguments): \(result.error.debugDescription)")
        }
    }
}
