import Foundation
import ListStoreCLI
import Testing

/// Every section in `--json` output carries its `"index"` and every row its `"path"` — the ones edits
/// act on, which after hand edits can differ from the positions in the arrays — so a script never has
/// to take an array position for an index path.
@Suite struct JSONIndexPathTests {
    /// Each section's index and each row's path and title, as `show --json` gives them.
    static func paths(_ json: String) throws -> (sections: [Int], rows: [(path: String, title: String)]) {
        let document = try CLIHarness.json(json)
        var sections: [Int] = []
        var rows: [(String, String)] = []
        for section in document["sections"] as? [[String: Any]] ?? [] {
            sections.append(try #require(section["index"] as? Int, "a section without \"index\": \(section)"))
            for row in section["rows"] as? [[String: Any]] ?? [] {
                // A row no index names (left uncounted by a hand edit) has the path [S, null], shown as S:?.
                let path = try #require(row["path"] as? [Any], "a row without \"path\": \(row)")
                try #require(path.count == 2)
                let section = try #require(path[0] as? Int)
                rows.append(("\(section):\((path[1] as? Int).map(String.init) ?? "?")", row["title"] as? String ?? ""))
            }
        }
        return (sections, rows)
    }

    func run(_ cli: CLIHarness, _ arguments: [String]) -> CLI.Result { runInProcess(["--db", cli.database] + arguments) }

    @Test func withoutGapsThePathsAreTheArrayPositions() throws {
        let cli = try CLIHarness()
        #expect(run(cli, ["demo"]).status == 0)
        let document = try CLIHarness.json(run(cli, ["--json", "show"]).output)
        for (s, section) in (document["sections"] as? [[String: Any]] ?? []).enumerated() {
            #expect(section["index"] as? Int == s)
            for (r, row) in (section["rows"] as? [[String: Any]] ?? []).enumerated() { #expect(row["path"] as? [Int] == [s, r]) }
        }
        // One section, by index or id: its own index, not 0.
        for argument in ["2", "id:3"] {
            let shown = try Self.paths(run(cli, ["--json", "show", argument]).output)
            #expect(shown.sections == [2], "\(argument)")
            #expect(shown.rows.first?.path == "2:0" && shown.rows.allSatisfy { $0.path.hasPrefix("2:") }, "\(argument)")
        }
        // An inserted section in a change set: its rows with their paths too.
        let added = try CLIHarness.json(run(cli, ["--json", "section", "add", "New", "--at", "1"]).output)
        let inserted = ((added["changes"] as? [String: Any])?["sections"] as? [String: Any])?["inserted"] as? [[String: Any]]
        #expect(inserted?.first?["index"] as? Int == 1)
    }

    @Test func aShowJSONDocumentImportsAsItIsWithoutItsPositions() throws {
        let cli = try CLIHarness()
        #expect(run(cli, ["demo"]).status == 0)
        let directory = try TemporaryDirectory()
        let shown = try inputFile(run(cli, ["--json", "show"]).output, in: directory, named: "shown.json")
        let copy = directory.path("copy.sqlite")
        let imported = runInProcess(["--db", copy, "import", shown])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(runInProcess(["--db", copy, "export"]).output == run(cli, ["export"]).output)
        // They are ignored, but must have their shape; and are not given twice.
        for (document, message) in [
            (#"{"sections":[{"index":"0","title":"a"}]}"#, #"sections[0] has an "index" that is not a number"#),
            (#"{"sections":[{"title":"a","rows":[{"path":1,"title":"r"}]}]}"#, #"sections[0].rows[0] has a "path" that is not an array"#),
            (#"{"sections":[{"title":"a","rows":[{"path":[0,0],"path":[0,1],"title":"r"}]}]}"#, #"sections[0].rows[0] has "path" twice"#),
        ] {
            let refused = runInProcess(["--db", copy, "import", "--replace", try inputFile(document, in: directory, named: "bad.json")])
            #expect(refused.status == 1 && refused.error.contains(message), "\(refused.error)")
        }
    }

    @Test func afterHandEditsLeaveGapsEveryRowCarriesThePathEditsActOn() throws {
        let cli = try CLIHarness()
        #expect(run(cli, ["section", "add", "A"]).status == 0)
        // 200 rows: one bulk insert cuts them into blocks of 67, 67 and 66.
        #expect(run(cli, ["add", "0"] + (0..<200).map { "r\($0)" }).status == 0)
        // REPLACE deletes "r11" without the delete trigger: the first block still counts 67 rows, holds
        // 66, and the rows of the next block keep their indexes from 67: index 66 is a gap.
        try HandEditTests.sql(cli, "UPDATE OR REPLACE rows SET position = (SELECT position FROM rows WHERE title = 'r11') WHERE title = 'r10'")
        let show = HandEditFuzzTests.parse(run(cli, ["show"]).output)
        #expect(show.rows.map(\.path) == (0..<66).map { "0:\($0)" } + (67..<200).map { "0:\($0)" })
        let json = try Self.paths(run(cli, ["--json", "show"]).output)
        #expect(json.rows.map(\.path) == show.rows.map(\.path))
        #expect(json.rows.map(\.title) == (0..<200).filter { $0 != 11 }.map { "r\($0)" })
        // "r67" is at index 66 of the array, but 0:66 is the gap: the path from the JSON edits "r67" itself.
        let r67 = try #require(json.rows.first { $0.title == "r67" })
        #expect(r67.path == "0:67")
        let edited = run(cli, ["edit", r67.path, "--title", "R67"])
        #expect(edited.status == 0, "\(edited.error)")
        #expect(HandEditFuzzTests.parse(run(cli, ["show"]).output).rows.map(\.title)[65...66] == ["r66", "R67"])
        #expect(run(cli, ["edit", "0:66", "--title", "gap"]).status == 1)

        // Section positions with a gap: the index is the one `show` prints, for the section and its rows.
        #expect(run(cli, ["section", "add", "B"]).status == 0)
        #expect(run(cli, ["add", "1", "x"]).status == 0)
        try HandEditTests.sql(cli, "UPDATE sections SET position = 5 WHERE title = 'B'")
        let sections = try Self.paths(run(cli, ["--json", "show"]).output)
        #expect(sections.sections == HandEditFuzzTests.parse(run(cli, ["show"]).output).sections.map(\.index))
        #expect(sections.sections == [0, 5])
        #expect(sections.rows.last?.path == "5:0")
    }

    @Test func theRandomHandEditsOfTheFuzzTestNeverMakeJSONAndShowDisagree() throws {
        let cli = try CLIHarness()
        let fuzz = HandEditFuzzTests()
        for section in 0..<3 {
            #expect(run(cli, ["section", "add", "s\(section)"]).status == 0)
            #expect(run(cli, ["add", "\(section)"] + (0..<8).map { "t\(section)x\($0)" }).status == 0)
        }
        var random = SeededGenerator(seed: 0x1DE4_9A75)
        var gapped = 0
        for step in 0..<60 {
            _ = try fuzz.sqlite(cli, fuzz.handEdit(&random, step: step, sectionsMade: 3))
            let show = run(cli, ["show"])
            let json = run(cli, ["--json", "show"])
            #expect(json.status == 0, "seed \(random.seed), step \(step): \(json.error)")
            guard show.status == 0, json.status == 0 else { continue }
            let shown = HandEditFuzzTests.parse(show.output)
            let paths = try Self.paths(json.output)
            #expect(paths.sections == shown.sections.map(\.index), "seed \(random.seed), step \(step)")
            #expect(paths.rows.map(\.path) == shown.rows.map(\.path), "seed \(random.seed), step \(step)\n\(show.output)")
            let dense =
                shown.sections.enumerated().allSatisfy { $0.offset == $0.element.index }
                && paths.rows.map(\.path) == shown.sections.enumerated().flatMap { s in s.element.titles.indices.map { "\(s.element.index):\($0)" } }
            if !dense { gapped += 1 }
        }
        #expect(gapped > 10, "the hand edits left gaps often enough to test them: \(gapped)")
    }
}
