import Foundation
import ListStore
import Testing

/// `liststore find` (issue 19, item 3; issue 35): title text — title words after `index add --titles` —
/// and `--where FIELD=VALUE`, human and `--json` output, paging with `--limit` and `--after`, and bad input
/// refused in one line.
@Suite struct FindCommandTests {
    /// A store with one section of places, some with payloads.
    static func places() throws -> CLIHarness {
        let cli = try CLIHarness()
        for step in [
            ["section", "add", "Places"], ["add", "0", "Paris", "--payload", #"{"country":"FR","pop":2.1,"capital":true}"#],
            ["add", "0", "Lyon", "--payload", #"{"country":"FR","pop":0.5}"#], ["add", "0", "Ottawa", "--payload", #"{"country":"CA","pop":1}"#],
            ["add", "0", "100% Paris", "it's", "paris_texas"], ["section", "add", "More", "--at", "0"], ["move", "1:0", "0:0"],
        ] {
            let run = try cli.run(step)
            try #require(run.status == 0, "\(step): \(run.stderr)")
        }
        return cli
    }

    @Test func humanOutputListsIndexPathsTitlesAndPayloads() throws {
        let cli = try Self.places()
        let run = try cli.run(["find", "PARIS"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                0:0  Paris        {"country":"FR","pop":2.1,"capital":true}
                1:2  100% Paris
                1:4  paris_texas
                3 rows found

                """)
        let both = try cli.run(["find", "o", "--where", "country=FR"])
        #expect(both.stdout == "1:0  Lyon  {\"country\":\"FR\",\"pop\":0.5}\n1 row found\n", "\(both.stdout)")
        #expect(try cli.run(["find", "--where", "capital=true"]).stdout.hasPrefix("0:0  Paris"))
        #expect(try cli.run(["find", "--where", "pop=1.0"]).stdout.hasPrefix("1:1  Ottawa"))
        #expect(try cli.run(["find", "--where", #"country="CA""#]).stdout.hasPrefix("1:1  Ottawa"))
        #expect(try cli.run(["find", "nowhere"]).stdout == "no rows found\n")
    }

    @Test func jsonOutputCarriesPathsIdsPayloadsTheCursorAndTheVersion() throws {
        let cli = try Self.places()
        let run = try cli.run(["--json", "find", "a", "--limit", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        let document = try CLIHarness.json(run.stdout)
        let rows = try #require(document["rows"] as? [[String: Any]])
        #expect(rows.map { $0["title"] as? String } == ["Paris", "Ottawa"])
        #expect(rows.map { $0["path"] as? [Int] } == [[0, 0], [1, 1]])
        #expect((rows[0]["payload"] as? [String: Any])?["country"] as? String == "FR")
        #expect(document["version"] is Int)
        let next = try #require(document["next"] as? Int)
        let rest = try CLIHarness.json(try cli.run(["--json", "find", "a", "--after", String(next)]).stdout)
        #expect((rest["rows"] as? [[String: Any]])?.map { $0["title"] as? String } == ["100% Paris", "paris_texas"])
        #expect(rest["next"] is NSNull)
        let human = try cli.run(["find", "a", "--limit", "2"])
        #expect(human.stdout.hasSuffix("2 rows shown; more: add --after \(next)\n"), "\(human.stdout)")
    }

    @Test func wildcardsAndQuotesInTheTextAreMatchedAsThemselves() throws {
        let cli = try Self.places()
        #expect(try cli.run(["find", "%"]).stdout == "1:2  100% Paris\n1 row found\n")
        #expect(try cli.run(["find", "_"]).stdout == "1:4  paris_texas\n1 row found\n")
        #expect(try cli.run(["find", "'"]).stdout == "1:3  it's\n1 row found\n")
        #expect(try cli.run(["find", "--where", "country=' OR 1=1 --"]).stdout == "no rows found\n")
    }

    @Test func withTheIndexOfTitlesTextIsWordsAsAPersonMeansThemAndWithoutItText() throws {
        let cli = try CLIHarness()
        for step in [["section", "add", "S"], ["add", "0", "Café Zürich", "CAFE", "Straße 法師", "meeting notes"]] {
            let run = try cli.run(step)
            try #require(run.status == 0, "\(step): \(run.stderr)")
        }
        #expect(try cli.run(["find", "cafe"]).stdout == "0:1  CAFE\n1 row found\n")  // no index: text, ASCII case folded
        #expect(try cli.run(["indexes"]).stdout == "no payload field is indexed\n")
        #expect(try cli.run(["index", "add", "--titles"]).stdout == "indexed the titles; payload fields indexed: none\n")
        #expect(try cli.run(["index", "add", "--titles"]).stdout.hasPrefix("the titles were already indexed; nothing changed"))
        #expect(try cli.run(["--json", "indexes"]).stdout == #"{"indexes":[],"titles":true}"# + "\n")
        #expect(try cli.run(["find", "cafe"]).stdout == "0:0  Café Zürich\n0:1  CAFE\n2 rows found\n")
        #expect(try cli.run(["find", "café", "--exact-accents"]).stdout == "0:0  Café Zürich\n1 row found\n")
        #expect(try cli.run(["find", "STRASSE"]).stdout == "0:2  Straße 法師\n1 row found\n")
        #expect(try cli.run(["find", "師"]).stdout == "0:2  Straße 法師\n1 row found\n")
        #expect(try cli.run(["find", "meeting no", "--whole-words"]).stdout == "no rows found\n")
        #expect(try cli.run(["find", "meeting no"]).stdout == "0:3  meeting notes\n1 row found\n")
        #expect(try cli.run(["find", "meeting no", "--prefix"]).stdout == "0:3  meeting notes\n1 row found\n")
        #expect(try cli.run(["find", "--contains", "ü"]).stdout == "0:0  Café Zürich\n1 row found\n")
        let json = try CLIHarness.json(try cli.run(["--json", "find", "c", "--prefix", "--limit", "1"]).stdout)
        #expect(json["total"] as? Int == 2)
        #expect((json["rows"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Café Zürich"])
        #expect(try cli.run(["find", "c", "--prefix", "--limit", "1"]).stdout.hasSuffix("1 row shown of 2; more: add --after 1\n"))
        #expect(try cli.run(["move", "0:1", "0:0"]).status == 0)
        #expect(try cli.run(["find", "cafe", "--display-order"]).stdout == "0:0  CAFE\n0:1  Café Zürich\n2 rows found\n")
        let bad = try cli.run(["find", "\"*\""])
        #expect(bad.status == 1 && bad.stderr.hasPrefix("error: ") && !bad.stderr.contains("fts5"), "\(bad.stderr)")
        #expect(try cli.run(["check"]).status == 0)
        #expect(try cli.run(["index", "remove", "--titles"]).stdout == "dropped the index of titles; payload fields indexed: none\n")
        #expect(try cli.run(["find", "cafe"]).stdout == "0:0  CAFE\n1 row found\n")
    }

    /// A person typing `find meet` in a terminal means the start of a word, as in ui's `/` and in a search bar,
    /// and as the library's default (`lastWordIsPrefix`): the last word is a prefix unless `--whole-words`.
    @Test func theLastWordIsAPrefixByDefaultAsInTheLibraryAndUI() throws {
        let cli = try CLIHarness()
        for step in [["section", "add", "S"], ["add", "0", "Meeting notes", "meet", "Café"], ["index", "add", "--titles"]] {
            let run = try cli.run(step)
            try #require(run.status == 0, "\(step): \(run.stderr)")
        }
        #expect(try cli.run(["find", "meet"]).stdout == "0:0  Meeting notes\n0:1  meet\n2 rows found\n")
        #expect(try cli.run(["find", "meet", "--whole-words"]).stdout == "0:1  meet\n1 row found\n")
        #expect(try cli.run(["find", "caf"]).stdout == "0:2  Café\n1 row found\n")
        let library = try ListStore.open(at: cli.database).findRows(RowSearch(titleWords: "meet")).results.map(\.row.title)
        #expect(library == ["Meeting notes", "meet"])
        let both = try cli.run(["find", "meet", "--prefix", "--whole-words"])
        #expect(both.status == 2 && both.stderr.contains("--prefix or --whole-words, not both"), "\(both.stderr)")
    }

    @Test func rankedPutsTheBestMatchesFirstAndPagesByScore() throws {
        let cli = try CLIHarness()
        for step in [["section", "add", "S"], ["add", "0", "apple pie with cream", "pear", "apple apple", "apple tart", "Apple"]] {
            let run = try cli.run(step)
            try #require(run.status == 0, "\(step): \(run.stderr)")
        }
        let refused = try cli.run(["find", "apple", "--ranked"])  // no index: TEXT is text, which has no rank
        #expect(refused.status == 2 && refused.stderr.contains("index add --titles"), "\(refused.stderr)")
        #expect(try cli.run(["index", "add", "--titles"]).status == 0)
        #expect(try cli.run(["find", "apple", "--ranked"]).stdout == "0:2  apple apple\n0:4  Apple\n0:3  apple tart\n0:0  apple pie with cream\n4 rows found\n")
        #expect(try cli.run(["find", "app", "--ranked", "--limit", "2"]).stdout == "0:2  apple apple\n0:4  Apple\n2 rows shown of 4; more: add --after 5\n")
        #expect(try cli.run(["find", "app", "--ranked", "--limit", "2", "--after", "5"]).stdout == "0:3  apple tart\n0:0  apple pie with cream\n2 rows found\n")
        let json = try CLIHarness.json(try cli.run(["--json", "find", "apple", "--ranked", "--limit", "3"]).stdout)
        #expect((json["rows"] as? [[String: Any]])?.map { $0["title"] as? String } == ["apple apple", "Apple", "apple tart"])
        #expect(json["total"] as? Int == 4 && json["next"] as? Int == 4)
        let both = try cli.run(["find", "apple", "--ranked", "--display-order"])
        #expect(both.status == 2 && both.stderr.contains("--ranked or --display-order, not both"), "\(both.stderr)")
    }

    static let badCases: [(arguments: [String], status: Int32, message: String)] = [
        (["find", "--where", "country"], 1, "--where takes FIELD=VALUE"),
        (["find", "--where", "a b=1"], 1, "invalid payload field \"a b\""),
        (["find", "--where", "x') OR 1=1 --=1"], 1, "invalid payload field"),
        (["find", "--where", "=1"], 1, "a field name cannot be empty"),
        (["find", "--where", "country=null"], 1, "null matches no row"),
        (["find", "--where", "country=[1]"], 1, "not an array or object"),
        (["find", "--where", "pop=1e999"], 1, "beyond what a payload holds"),
        (["find", "x", "--limit", "0"], 1, "the limit is 0"),
        (["find", "x", "--limit", "10001"], 1, "the limit is 10001"),
        (["find", "x", "--after", "abc"], 1, "--after takes a row id"),
        (["find", "x", "--limit", "two"], 2, "--limit value must be a non-negative whole number"),
        (["find"], 2, "find needs TEXT, --contains TEXT and/or --where FIELD=VALUE"),
    ]

    @Test(arguments: badCases.indices)
    func badInputIsOneLineAndChangesNothing(_ index: Int) throws {
        let badCase = Self.badCases[index]
        let cli = try Self.places()
        let dump = try cli.dump()
        for json in [false, true] {
            let run = try cli.run((json ? ["--json"] : []) + badCase.arguments)
            #expect(run.status == badCase.status, "\(badCase.arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("error: ") && run.stderr.contains(badCase.message), "\(badCase.arguments): \(run.stderr)")
            #expect(run.stderr.filter { $0 == "\n" }.count == 1, "one line: \(run.stderr)")
        }
        #expect(try cli.dump() == dump)
    }
}
