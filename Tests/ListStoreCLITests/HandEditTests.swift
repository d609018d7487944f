import Foundation
import Testing

/// Files edited by hand (the `sqlite3` shell) and by other tools: `--json` and `export` stay valid JSON,
/// everything `check` accepts survives export → import → export byte for byte, and what import must
/// refuse is refused with where it is.
@Suite struct HandEditTests {
    /// Runs SQL on the harness database with the `sqlite3` shell, as a person would.
    static func sql(_ cli: CLIHarness, _ statements: String, database: String? = nil) throws {
        let run = try CLIHarness.process("/usr/bin/env", ["sqlite3", database ?? cli.database, statements], in: cli.directory)
        try #require(run.status == 0, "sqlite3 failed: \(run.stderr)")
    }

    /// `text` as an SQL expression for exactly its UTF-8 bytes.
    static func sqlText(_ text: String) -> String {
        "CAST(X'\(text.utf8.map { String(format: "%02X", $0) }.joined())' AS TEXT)"
    }

    static func parse(_ text: String) throws -> [String: Any] { try CLIHarness.json(text) }

    static func rows(_ document: [String: Any]) -> [[String: Any]] {
        ((document["sections"] as? [[String: Any]]) ?? []).flatMap { ($0["rows"] as? [[String: Any]]) ?? [] }
    }

    @Test func damagedPayloadsAndTitlesStillGiveOneValidJSONDocument() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        try Self.sql(
            cli,
            """
            UPDATE rows SET payload = '{bad' WHERE id = 1;
            UPDATE rows SET payload = CAST(X'22FF22' AS TEXT) WHERE id = 2;
            UPDATE rows SET title = CAST(X'41FF42' AS TEXT) WHERE id = 3;
            UPDATE rows SET payload = ' { "a" : [ 1 , 2 ] } ' WHERE id = 4;
            UPDATE rows SET title = 'A' || char(0) || 'B' WHERE id = 5;
            UPDATE rows SET title = '' WHERE id = 6;
            UPDATE sections SET title = '' WHERE id = 2;
            """)
        for arguments in [["export"], ["export", "-"], ["--json", "show"], ["--json", "show", "0"], ["--json", "show", "1"]] {
            let run = try cli.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stdout.filter { $0 == "\n" }.count == 1, "\(arguments): one line")
            _ = try Self.parse(run.stdout)
        }
        let rows = Self.rows(try Self.parse(try cli.run(["export"]).stdout))
        #expect(rows[0]["payload"] as? String == "{bad")  // a damaged payload is shown as the text it is
        #expect(rows[1]["payload"] as? String == "\u{FFFD}")
        #expect(rows[2]["title"] as? String == "A\u{FFFD}B")
        #expect((rows[3]["payload"] as? [String: Any])?["a"] as? [Int] == [1, 2])
        #expect(rows[4]["title"] as? String == "A\u{0}B")
        #expect(rows[5]["title"] as? String == "")
        #expect(try cli.run(["show"]).status == 0)

        // Import refuses the titles the store cannot hold, saying where they are; no file is left behind.
        try cli.run(["export", "all.json"])
        let copy = cli.directory.appendingPathComponent("copy.sqlite").path
        let refused = try cli.run(["--db", copy, "import", "all.json"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("all.json: sections[0].rows[4] has a \"title\" with a NUL character"), "\(refused.stderr)")
        #expect(refused.stderr.filter { $0 == "\n" }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: copy))
        try Self.sql(cli, "UPDATE rows SET title = 'fixed' WHERE id = 5")
        let empty = try cli.run(["--db", copy, "--json", "import", "-"], stdin: Data(try cli.run(["export"]).stdout.utf8))
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("standard input: sections[0].rows[5] has an empty \"title\""), "\(empty.stderr)")
        #expect((try Self.parse(empty.stdout)["error"] as? String)?.contains("rows[5]") == true)
        try Self.sql(cli, "UPDATE rows SET title = 'fixed' WHERE id = 6")
        let section = try cli.run(["--db", copy, "import", "-"], stdin: Data(try cli.run(["export"]).stdout.utf8))
        #expect(section.stderr.contains("standard input: sections[1] has an empty \"title\""), "\(section.stderr)")
        #expect(!FileManager.default.fileExists(atPath: copy))
    }

    @Test func everythingCheckAcceptsRoundTripsByteForByte() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        let deep = String(repeating: "[", count: 1_000) + "1" + String(repeating: "]", count: 1_000)  // the deepest a payload may be
        let payloads = [
            #""\ud800""#, #"["\udc00x\ud83d", "\ud83d\ude00"]"#, "123456789012345678901234567890",
            "[-0.000000000000000000001e-999, 1E+400, 9223372036854775808, -0]", deep,
            #"{"":{"":[]},"a\u0000b":"\/","a":1,"a":2}"#, " { \"spaced\" : [ true , false , null ] } ", #""""#, "null",
        ]
        let titles = [
            "👩‍👩‍👧‍👦 family", "עברית RTL", "e\u{301}\u{301}", "line\u{2028}sep\u{2029}", "tab\tesc\u{1B}[31m", "\u{FFFF}\u{10FFFF}",
            "\"quoted\" \\ back", "  spaces  ", "\u{FEFF}bom", "x",
        ]
        var statements = "INSERT INTO sections (id, position, title) VALUES (1, 0, \(Self.sqlText("Ω sections \u{7F}")));\n"
        for (index, title) in titles.enumerated() {
            let payload = index < payloads.count ? Self.sqlText(payloads[index]) : "NULL"
            statements += "INSERT INTO rows (section_id, position, title, payload) VALUES (1, \(index), \(Self.sqlText(title)), \(payload));\n"
        }
        try Self.sql(cli, statements)
        let check = try cli.run(["check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")

        let first = try cli.run(["export", "first.json"])
        #expect(first.status == 0, "\(first.stderr)")
        let copy = cli.directory.appendingPathComponent("copy.sqlite").path
        let imported = try cli.run(["--db", copy, "import", "first.json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let second = try cli.run(["--db", copy, "export", "second.json"])
        #expect(second.status == 0, "\(second.stderr)")
        let one = try #require(cli.bytes(cli.directory.appendingPathComponent("first.json").path))
        let two = try #require(cli.bytes(cli.directory.appendingPathComponent("second.json").path))
        #expect(one == two)
        let text = String(decoding: one, as: UTF8.self)
        #expect(text.contains("\"payload\":123456789012345678901234567890"))  // as written, not through Double
        #expect(text.contains(#"[-0.000000000000000000001e-999,1E+400,9223372036854775808,-0]"#))
        #expect(text.contains(#""payload":"\ud800""#))
        #expect(text.contains(#"{"spaced":[true,false,null]}"#))
        // Titles come back exactly, as Foundation reads them. Foundation stops at 512 levels of nesting and
        // refuses lone surrogates (RFC 8259 allows them; json_valid accepts them) and numbers beyond Double,
        // so those payloads are left out.
        let foundationReadable = try cli.run(["--db", copy, "export"]).stdout.replacingOccurrences(of: deep, with: "0")
            .replacingOccurrences(of: #""\ud800""#, with: "0").replacingOccurrences(of: #""\udc00x\ud83d""#, with: "0")
            .replacingOccurrences(of: "1E+400", with: "0")
        let exported = Self.rows(try Self.parse(foundationReadable))
        // (Foundation also drops a leading U+FEFF from a string: that title is compared as bytes.)
        #expect(
            exported.map { $0["title"] as? String }.enumerated().filter { $0.offset != 8 }.map(\.element)
                == titles.enumerated().filter { $0.offset != 8 }.map(\.element))
        #expect(text.utf8.starts(with: Array("{".utf8)) && text.contains("\"title\":\"\u{FEFF}bom\""))
        #expect(try cli.run(["--db", copy, "check"]).status == 0)
    }

    struct RefusedDocument: CustomTestStringConvertible, Sendable {
        let document: String
        let message: String
        var testDescription: String { message }
    }

    static let refusedDocuments: [RefusedDocument] = [
        .init(document: #"{"sections":[{"title":"a","rows":[{"title":"x","title":"y"}]}]}"#, message: #"sections[0].rows[0] has "title" twice"#),
        .init(document: #"{"sections":[{"title":"a","rows":[{"title":"x","payload":1,"payload":2}]}]}"#, message: #"sections[0].rows[0] has "payload" twice"#),
        .init(document: #"{"sections":[{"title":"a","rows":[{"title":"x"},{"id":3,"title":"x","id":4}]}]}"#, message: #"sections[0].rows[1] has "id" twice"#),
        .init(document: #"{"sections":[{"title":"a","title":"b"}]}"#, message: #"sections[0] has "title" twice"#),
        .init(document: #"{"sections":[{"title":"a"},{"rows":[],"title":"b","rows":[]}]}"#, message: #"sections[1] has "rows" twice"#),
        .init(document: #"{"sections":[{"title":"a","id":1,"id":2}]}"#, message: #"sections[0] has "id" twice"#),
        .init(document: #"{"sections":[{"title":"a","rows":[{"title":""}]}]}"#, message: #"sections[0].rows[0] has an empty "title""#),
        .init(document: #"{"sections":[{"title":"a\u0000"}]}"#, message: #"sections[0] has a "title" with a NUL character"#),
        .init(document: #"{"sections":[{"title":"a","rows":[{"id":7,"title":"x"},{"id":7,"title":"y"}]}]}"#, message: "sections[0].rows[1]: row #7 is given twice"),
    ]

    @Test(arguments: refusedDocuments)
    func importRefusesRepeatedKeysAndBadTitlesNamingTheirPlace(_ refused: RefusedDocument) throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let before = try #require(cli.bytes())
        for json in [false, true] {
            let run = try cli.run((json ? ["--json"] : []) + ["import", "-", "--replace"], stdin: Data(refused.document.utf8))
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("error: standard input: "), "\(run.stderr)")
            #expect(run.stderr.contains(refused.message), "\(run.stderr)")
            #expect(run.stderr.contains("nothing was imported"))
            #expect(run.stderr.filter { $0 == "\n" }.count == 1)
            if json { #expect((try Self.parse(run.stdout)["error"] as? String)?.contains(refused.message) == true) }
        }
        #expect(cli.bytes() == before)
    }

    @Test func payloadArgumentsAreKeptAsWrittenLessWhitespace() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "A"])
        #expect(try cli.run(["add", "0", "x", "--payload", #" { "n" : 123456789012345678901234567890 , "s" : "\ud800\/" } "#]).status == 0)
        #expect(try cli.run(["export"]).stdout.contains(#""payload":{"n":123456789012345678901234567890,"s":"\ud800\/"}"#))
        let before = cli.bytes()
        let bad = try cli.run(["edit", "0:0", "--payload", "1 2"])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("--payload is not valid JSON (unexpected text after the value at byte 2)"), "\(bad.stderr)")
        #expect(cli.bytes() == before)
        #expect(try cli.run(["edit", "0:0", "--payload", " null "]).status == 0)
        #expect(try cli.run(["export"]).stdout.contains(#""payload":null"#))
    }

    @Test func rowsBeforeTheTitleMayHoldDeepPayloadsAndLoneSurrogates() throws {
        let cli = try CLIHarness()
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let document = #"{"sections":[{"rows":[{"payload":"# + deep + #","title":"d"},{"title":"s","payload":"\udfff"}],"title":"A"}]}"#
        let run = try cli.run(["import", "-"], stdin: Data(document.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        let exported = try cli.run(["export"]).stdout
        #expect(exported.contains(deep))
        #expect(exported.contains(#""payload":"\udfff""#))
    }
}
