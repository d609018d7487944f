import Foundation
import ListStore
import StoreShorthands
import Testing

/// `liststore` as users run it: every command, both output modes, the exit codes.
@Suite struct EndToEndTests {
    func titles(_ cli: CLIHarness, section: Int) throws -> [String] {
        let show = try cli.run(["--json", "show", String(section)])
        try #require(show.status == 0, "\(show.stderr)")
        let sections = try #require(try CLIHarness.json(show.stdout)["sections"] as? [[String: Any]])
        let rows = try #require(sections.first?["rows"] as? [[String: Any]])
        return rows.compactMap { $0["title"] as? String }
    }

    @Test func demoCreatesTheSeedListsOnceAndThenOnlyShowsThem() throws {
        let cli = try CLIHarness()
        let first = try cli.run(["demo"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("Created liststore.sqlite"))
        #expect(first.stdout.contains("2:4  Canada"))
        #expect(first.stdout.contains("liststore delete 2:1 2:4"))
        let before = try #require(cli.bytes())
        let second = try cli.run(["demo"])
        #expect(second.status == 0)
        #expect(second.stdout.contains("already has lists"))
        #expect(cli.bytes() == before)
        let json = try CLIHarness.json(try cli.run(["demo", "--json"]).stdout)
        #expect(json["created"] as? Bool == false)
        #expect((json["sections"] as? [Any])?.count == 3)
    }

    @Test func readingCommandsNeverCreateADatabase() throws {
        let cli = try CLIHarness()
        for arguments in [["show"], ["export"], ["--json", "show"]] {
            let run = try cli.run(arguments)
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("error: no database at liststore.sqlite; create one with `liststore init`"))
            #expect(!FileManager.default.fileExists(atPath: cli.database))
        }
        #expect(try cli.run(["--json", "show"]).stdout.contains("\"error\""))
    }

    @Test func initIsIdempotent() throws {
        let cli = try CLIHarness()
        let created = try CLIHarness.json(try cli.run(["init", "--json"]).stdout)
        #expect(created["created"] as? Bool == true)
        let again = try cli.run(["init"])
        #expect(again.status == 0)
        #expect(again.stdout.contains("is ready: 0 sections, 0 rows"))
    }

    @Test func sectionCommands() throws {
        let cli = try CLIHarness()
        #expect(try cli.run(["section", "add", "B"]).status == 0)
        #expect(try cli.run(["section", "add", "A", "--at", "0"]).stdout.contains("inserted 1 section: 0"))
        #expect(try cli.run(["section", "add", "C"]).status == 0)
        let renamed = try CLIHarness.json(try cli.run(["--json", "section", "rename", "2", "Z"]).stdout)
        let updated = ((renamed["changes"] as? [String: Any])?["sections"] as? [String: Any])?["updated"] as? [[String: Any]]
        #expect(updated?.map { $0["index"] as? Int } == [2])
        #expect(updated?.map { $0["title"] as? String } == ["Z"])
        let moved = try CLIHarness.json(try cli.run(["section", "move", "2", "0", "--json"]).stdout)
        #expect(((moved["changes"] as? [String: Any])?["sections"] as? [String: Any])?["moved"] as? [[String: Int]] == [["from": 2, "to": 0, "id": 3]])
        let show = try cli.run(["show"])
        #expect(show.stdout.hasPrefix("[0] Z (0 rows)\n    (no rows)\n[1] A (0 rows)"))
        let deleted = try CLIHarness.json(try cli.run(["--json", "section", "delete", "0", "2"]).stdout)
        #expect((deleted["counts"] as? [String: Int]) == ["sections": 1, "rows": 0])
        #expect(try cli.run(["show"]).stdout == "[0] A (0 rows)\n    (no rows)\n")
    }

    @Test func rowCommandsInBothOutputModes() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "Roles"])
        try cli.run(["section", "add", "Monsters"])
        let added = try cli.run(["add", "0", "Barbarian", "Wizard", "Ranger"])
        #expect(added.stdout == "inserted 3 rows: 0:0, 0:1, 0:2\nnow 2 sections, 3 rows\n")
        let inserted = try CLIHarness.json(try cli.run(["add", "0", "Thief", "--at", "1", "--payload", "{\"level\": 2}", "--json"]).stdout)
        let insertedRows = ((inserted["changes"] as? [String: Any])?["rows"] as? [String: Any])?["inserted"] as? [[String: Any]]
        #expect(insertedRows?.map { $0["path"] as? [Int] } == [[0, 1]])
        #expect(insertedRows?.map { $0["title"] as? String } == ["Thief"])
        #expect(insertedRows?.map { ($0["payload"] as? [String: Int])?["level"] } == [2])
        #expect(try titles(cli, section: 0) == ["Barbarian", "Thief", "Wizard", "Ranger"])
        let every = try cli.run(["add", "--every-section", "被增加的項目"])
        #expect(every.stdout.hasPrefix("inserted 2 rows: 0:4, 1:0"))
        #expect(try cli.run(["edit", "0:2", "--title", "Archmage", "--payload", "[1,2]"]).stdout.hasPrefix("updated 1 row: 0:2"))
        #expect(try cli.run(["edit", "0:1", "--payload", "null"]).status == 0)
        let moved = try CLIHarness.json(try cli.run(["move", "0:0", "1:1", "--json"]).stdout)
        let movedRows = ((moved["changes"] as? [String: Any])?["rows"] as? [String: Any])?["moved"] as? [[String: Any]]
        #expect(movedRows?.map { [$0["from"] as? [Int], $0["to"] as? [Int]] } == [[[0, 0], [1, 1]]])
        let deleted = try cli.run(["delete", "1:0", "0:0", "0:2"])
        #expect(deleted.stdout == "deleted 3 rows: 0:0, 0:2, 1:0\nnow 2 sections, 3 rows\n")
        #expect(try titles(cli, section: 0) == ["Archmage", "被增加的項目"])
        #expect(try titles(cli, section: 1) == ["Barbarian"])
        let json = try CLIHarness.json(try cli.run(["show", "--json"]).stdout)
        let rows = try #require((json["sections"] as? [[String: Any]])?.first?["rows"] as? [[String: Any]])
        #expect(rows.first?["payload"] as? [Int] == [1, 2])
        #expect(rows.first?["id"] is Int)
    }

    @Test func titlesFromStandardInputInOneTransaction() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "Countries"])
        let run = try cli.run(["add", "0", "-"], stdin: Data("Austria\r\n\nBelgium\n   \nCanada\nBelgium".utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try titles(cli, section: 0) == ["Austria", "Belgium", "Canada", "Belgium"])
        let before = try cli.dump()
        var bad = Data("Denmark\nEgy".utf8)
        bad.append(0xFF)
        bad.append(contentsOf: Array("pt\n".utf8))
        let invalid = try cli.run(["add", "0", "-"], stdin: bad)
        #expect(invalid.status == 1)
        #expect(invalid.stderr == "error: line 2 of standard input is not valid UTF-8; nothing was added\n")
        let nul = try cli.run(["add", "0", "-"], stdin: Data("Denmark\nEg\u{0}ypt\n".utf8))
        #expect(nul.status == 1)
        #expect(nul.stderr.contains("line 2 of standard input contains a NUL byte"))
        #expect(try cli.dump() == before)
    }

    @Test func exportAndImportRoundTripExactly() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let hostile = ["'; DROP TABLE rows; --", "tab\tquote\"back\\slash", "two\nlines", "emoji 👩‍👩‍👧", String(repeating: "長", count: 400_000)]
        let add = try cli.run(["add", "2", "-"], stdin: Data(hostile.filter { !$0.contains("\n") }.joined(separator: "\n").utf8))
        #expect(add.status == 0, "\(add.stderr)")
        try cli.run(["add", "2", "two\nlines", "--payload", "{\"sql\": \"'); DELETE FROM rows; --\", \"n\": 1.50}"])
        let exported = try cli.run(["export"])
        #expect(exported.status == 0)
        #expect(try cli.run(["export", "copy.json"]).stdout.hasPrefix("exported 3 sections, 29 rows to copy.json"))
        let copy = cli.directory.appendingPathComponent("copy.sqlite").path
        let imported = try cli.run(["--db", copy, "import", "copy.json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try cli.run(["--db", copy, "export"]).stdout == exported.stdout)
        #expect(try titles(cli, section: 2).suffix(5) == hostile.filter { !$0.contains("\n") } + ["two\nlines"])

        // A non-empty store is refused unless --replace; stdin works too.
        let refused = try cli.run(["--db", copy, "import", "-"], stdin: Data(exported.stdout.utf8))
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--replace"))
        let replaced = try cli.run(
            ["--db", copy, "import", "-", "--replace"], stdin: Data("{\"sections\":[{\"title\":\"Only\",\"rows\":[{\"title\":\"x\",\"payload\":{\"a\":[1,true,null]}}]}]}".utf8))
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try cli.run(["--db", copy, "export"]).stdout.contains("\"payload\":{\"a\":[1,true,null]}"))
    }

    @Test func importAcceptsMembersInAnyOrder() throws {
        let cli = try CLIHarness()
        let document =
            #"{"sections":[{"rows":[{"payload":[1],"title":"a0"},{"title":"a1","id":40}],"title":"A","id":7},{"title":"B","rows":null},{"id":9,"title":"C","rows":[{"title":"c0"}]}]}"#
        let run = try cli.run(["import", "-"], stdin: Data(document.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            try cli.run(["export"]).stdout
                == #"{"sections":[{"id":7,"title":"A","rows":[{"id":1,"title":"a0","payload":[1]},{"id":40,"title":"a1","payload":null}]},{"id":8,"title":"B","rows":[]},{"id":9,"title":"C","rows":[{"id":41,"title":"c0","payload":null}]}]}"#
                + "\n")
        // An id the document assigns explicitly after the store gave it to an earlier row is refused, whole.
        let clash = try cli.run(["--db", "clash.sqlite", "import", "-"], stdin: Data(#"{"sections":[{"title":"A","rows":[{"title":"x"},{"title":"y","id":1}]}]}"#.utf8))
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("row #1 is given twice"))
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("clash.sqlite").path))
    }

    @Test func globalOptionsAnywhereAndTheDatabaseFromTheEnvironment() throws {
        let cli = try CLIHarness()
        #expect(try cli.run(["section", "add", "X", "--db", "a.sqlite"]).status == 0)
        #expect(try cli.run(["--db=a.sqlite", "show"]).stdout.contains("[0] X"))
        #expect(try cli.run(["show"], environment: ["LISTSTORE_DB": "a.sqlite"]).stdout.contains("[0] X"))
        #expect(try cli.run(["show", "--db", "b.sqlite"], environment: ["LISTSTORE_DB": "a.sqlite"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: cli.database))
    }

    @Test func helpAndVersion() throws {
        let cli = try CLIHarness()
        let help = try cli.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("usage: liststore [--db PATH] [--json] COMMAND [ARGS...]"))
        for command in [
            ["init"], ["demo"], ["show"], ["section", "add"], ["section", "rename"], ["section", "move"], ["section", "delete"],
            ["add"], ["edit"], ["move"], ["delete"], ["export"], ["import"], ["check"], ["repair"], ["backup"], ["watch"],
        ] {
            let run = try cli.run(command + ["--help"])
            #expect(run.status == 0)
            #expect(run.stdout.hasPrefix("usage: liststore \(command.joined(separator: " "))"))
            #expect(run.stdout.contains("example:\n  liststore"))
        }
        #expect(try cli.run(["--version"]).stdout == "liststore 0.1.0 (schema version \(ListStore.schemaVersion))\n")
        #expect(!FileManager.default.fileExists(atPath: cli.database))
    }

    @Test func wideCharactersKeepColumnsAligned() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "Mixed"])
        try cli.run(["add", "0", "野蠻人", "--payload", "1"])
        try cli.run(["add", "0", "abc", "--payload", "2"])
        let lines = try cli.run(["show"]).stdout.split(separator: "\n").dropFirst()
        // Payload columns start at the same display column: 6 CJK columns vs "abc" + 3 spaces.
        #expect(lines.map(String.init) == ["    0:0  野蠻人  1", "    0:1  abc     2"])
    }
}
