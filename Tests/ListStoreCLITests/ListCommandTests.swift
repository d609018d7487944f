import Foundation
import Testing

@testable import ListStore

/// The CLI's lists end to end: `--list` and `$LISTSTORE_LIST` on every command (in process and in the
/// binary), `lists`, `list add | rename | delete | move | move-row | move-section` (a move to the row's
/// own list included), `batch` and `id:N` inside a list, and the one-line errors of each (exit 1, the
/// file unchanged).
@Suite struct ListCommandTests {
    /// A file with the default list (section "Inbox" with rows a, b) and a list "Work" (section "W" with w).
    static func twoLists() throws -> CLIHarness {
        let cli = try CLIHarness()
        for arguments in [
            ["section", "add", "Inbox"], ["add", "0", "a", "b"], ["list", "add", "Work"], ["--list", "Work", "section", "add", "W"],
            ["--list", "Work", "add", "0", "w"],
        ] {
            let run = try cli.run(arguments)
            try #require(run.status == 0, "\(arguments): \(run.stderr)")
        }
        return cli
    }

    @Test func listsShowsEveryListWithItsCounts() throws {
        let cli = try Self.twoLists()
        let run = try cli.run(["lists"])
        #expect(run.status == 0)
        #expect(run.stdout == "0 \"default\" (default): 1 section, 2 rows\n1 \"Work\": 1 section, 1 row\n")
        let json = try CLIHarness.json(try cli.run(["--json", "lists"]).stdout)
        let lists = try #require(json["lists"] as? [[String: Any]])
        #expect(lists.map { $0["name"] as? String } == ["default", "Work"])
        #expect(lists.map { $0["rows"] as? Int } == [2, 1])
        #expect(lists.map { $0["default"] as? Bool } == [true, false])
    }

    @Test func everyCommandActsOnTheListNamedByListOrTheEnvironment() throws {
        let cli = try Self.twoLists()
        #expect(try cli.run(["show"]).stdout.contains("0:1  b"))
        let work = try cli.run(["--list", "Work", "show"])
        #expect(work.stdout.contains("0:0  w") && !work.stdout.contains("0:1"))
        #expect(try cli.run(["show"], environment: ["LISTSTORE_LIST": "Work"]).stdout == work.stdout)
        // --list wins over the environment.
        #expect(try cli.run(["--list", "default", "show"], environment: ["LISTSTORE_LIST": "Work"]).stdout == cli.run(["show"]).stdout)
        let edited = try cli.run(["edit", "0:0", "--title", "W0"], environment: ["LISTSTORE_LIST": "Work"])
        #expect(edited.status == 0, "\(edited.stderr)")
        #expect(try cli.run(["--list", "Work", "show"]).stdout.contains("0:0  W0"))
        #expect(try cli.run(["show"]).stdout.contains("0:0  a"))
        #expect(try cli.run(["--list", "Work", "delete", "0:0"]).stdout.contains("now 1 section, 0 rows"))
        #expect(try cli.run(["check"]).status == 0)
    }

    @Test func batchAndIdsWorkInsideTheChosenListAndAnIdOfAnotherListNamesIt() throws {
        let cli = try Self.twoLists()
        let batch = try cli.run(["--list", "Work", "batch", "-"], stdin: Data("add 0 x\nmove 0:1 0:0\n".utf8))
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try cli.run(["--list", "Work", "show"]).stdout.contains("0:0  x"))
        let document = try CLIHarness.json(try cli.run(["--json", "show"]).stdout)
        let sections = try #require(document["sections"] as? [[String: Any]])
        let rows = try #require(sections.first?["rows"] as? [[String: Any]])
        let id = try #require(rows.first?["id"] as? Int)
        let before = try cli.run(["--list", "Work", "show"]).stdout
        let refused = try cli.run(["--list", "Work", "delete", "id:\(id)"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: row #\(id) is in list \"default\", not in this one; name that list (--list) to act on it\n")
        #expect(try cli.run(["--list", "Work", "show"]).stdout == before)
        #expect(try cli.run(["delete", "id:\(id)"]).status == 0)  // the same id in its own list
    }

    @Test func listsAreAddedRenamedMovedAndDeleted() throws {
        let cli = try Self.twoLists()
        #expect(
            try cli.run(["list", "add", "Home", "--at", "0"]).stdout
                == "now 0 \"Home\": 0 sections, 0 rows; 1 \"default\" (default): 1 section, 2 rows; 2 \"Work\": 1 section, 1 row\n")
        #expect(try cli.run(["list", "rename", "Work", "Office"]).status == 0)
        #expect(try cli.run(["list", "move", "Office", "0"]).status == 0)
        #expect(try cli.run(["lists"]).stdout.hasPrefix("0 \"Office\": 1 section, 1 row\n1 \"Home\""))
        #expect(try cli.run(["list", "delete", "Office"]).status == 0)
        #expect(try cli.run(["lists"]).stdout == "0 \"Home\": 0 sections, 0 rows\n1 \"default\" (default): 1 section, 2 rows\n")
        #expect(try cli.run(["list", "rename", "default", "Inbox"]).status == 0)
        #expect(try cli.run(["show"]).stdout.contains("0:0  a"))  // still the default list
        #expect(try cli.run(["check"]).status == 0)
    }

    @Test func rowsAndSectionsMoveToAnotherListInOneCommand() throws {
        let cli = try Self.twoLists()
        let moved = try cli.run(["list", "move-row", "0:1", "Work", "0", "--at", "0"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "from this list: deleted 1 row: 0:1\nto the other list: inserted 1 row: 0:0\n")
        #expect(try cli.run(["--list", "Work", "show"]).stdout.contains("0:0  b"))
        let section = try cli.run(["--list", "Work", "list", "move-section", "0", "default"])
        #expect(section.status == 0, "\(section.stderr)")
        #expect(try cli.run(["show"]).stdout.contains("1:1  w"))
        #expect(try cli.run(["lists"]).stdout == "0 \"default\" (default): 2 sections, 3 rows\n1 \"Work\": 0 sections, 0 rows\n")
        #expect(try cli.run(["check"]).status == 0)
    }

    @Test func badListInputIsOneLineAndChangesNothing() throws {
        let cli = try Self.twoLists()
        let bytes = try #require(fileBytes(cli.database))
        let cases: [([String], String)] = [
            (["--list", "Nope", "show"], "error: there is no list named \"Nope\" in the file; `liststore lists` shows the lists, `liststore list add NAME` adds one\n"),
            (["--list", "Nope", "add", "0", "x"], "error: there is no list named \"Nope\" in the file; `liststore lists` shows the lists, `liststore list add NAME` adds one\n"),
            (["list", "add", "Work"], "error: a list named \"Work\" already exists; choose another name\n"),
            (["list", "add", "a\tb"], "error: invalid list name \"a\\u{9}b\": a list name cannot contain control characters (newlines, tabs, NUL)\n"),
            (["list", "delete", "default"], "error: cannot delete \"default\": it is the default list, which is never deleted; rename it or delete its sections instead\n"),
            (["list", "move", "Work", "5"], "error: cannot put a list at 5: the file has 2 lists, so the index must be 0…1\n"),
            (
                ["list", "move-row", "0:0", "Work", "3"],
                "error: section 3 does not exist: the store has 1 section (0…0); read the sections again for the current indexes (`liststore show` prints them)\n"
            ),
        ]
        for (arguments, message) in cases {
            let run = try cli.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr == message, "\(arguments)")
        }
        #expect(try cli.run(["--list", "", "show"]).status == 2)
        #expect(fileBytes(cli.database) == bytes)
        // A missing file stays missing when the list does not exist.
        let empty = try CLIHarness()
        #expect(try empty.run(["--list", "Nope", "section", "add", "S"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: empty.database))
    }

    /// Failed before the fix: `$LISTSTORE_LIST` (Docs/CLI.md: "`--list NAME`, else `$LISTSTORE_LIST`, else the default list") is
    /// ignored by the `liststore` binary: `CLIEnvironment.process` hands the commands `LISTSTORE_DB`
    /// only, so every command acts on the default list — `LISTSTORE_LIST=A liststore section delete 0`
    /// deletes the default list's section 0. In-process runs pass the whole environment, which is why
    /// the existing tests of the variable pass.
    @Test func listStoreListReachesTheBinary() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "Kept"])
        try cli.run(["list", "add", "A"])
        try cli.run(["--list", "A", "section", "add", "InA"])
        let shown = try cli.run(["show"], environment: ["LISTSTORE_LIST": "A"], process: true)
        #expect(shown.status == 0)
        #expect(shown.stdout.contains("InA") && !shown.stdout.contains("Kept"), "show acted on the default list: \(shown.stdout)")
        let deleted = try cli.run(["section", "delete", "0"], environment: ["LISTSTORE_LIST": "A"], process: true)
        #expect(deleted.status == 0)
        #expect(try cli.run(["show"]).stdout.contains("Kept"), "the default list's section was deleted")
        let unknown = try cli.run(["show"], environment: ["LISTSTORE_LIST": "nope"], process: true)
        #expect(unknown.status == 1, "an unknown list name is an error")
    }

    /// Control: `--list A` in a process of its own, and the variable in process, act on list A.
    @Test func listOptionInTheBinaryAndVariableInProcess() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "Kept"])
        try cli.run(["list", "add", "A"])
        try cli.run(["--list", "A", "section", "add", "InA"])
        let option = try cli.run(["--list", "A", "show"], process: true)
        #expect(option.stdout.contains("InA") && !option.stdout.contains("Kept"))
        let variable = try cli.run(["show"], environment: ["LISTSTORE_LIST": "A"])
        #expect(variable.stdout.contains("InA") && !variable.stdout.contains("Kept"))
    }

    /// A move "between lists" whose target is the row's or section's own list. Failed before the fix:
    /// `liststore --list A list move-row 0:0 A 0` and `list move-section 0 A` trap (SIGILL, "Fatal
    /// error: Dictionary literal contains duplicate keys", Lists.swift `movingBetweenLists`: the
    /// source's and the target's change sets keyed by the same list id) — any app calling
    /// `transferRow(id:toList:section:)` or `transferSection(id:toList:)` with the handle's own list crashes.
    /// Run as processes: in this process the trap would end the test run.
    @Test(arguments: [["list", "move-row", "0:0", "A", "0"], ["list", "move-section", "0", "A"]])
    func moveToTheSameList(command: [String]) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["list", "add", "A"])
        try cli.run(["--list", "A", "section", "add", "S"])
        try cli.run(["--list", "A", "add", "0", "a", "b"])
        let before = try cli.dump()
        let run = try cli.run(["--list", "A"] + command, process: true)
        #expect(run.status == 0 || run.status == 1, "crashed: status \(run.status), \(run.stderr.prefix(200))")
        if run.status != 0 {
            #expect(try cli.dump() == before)
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr.prefix(300))")
        }
        #expect(try cli.run(["check"]).status == 0)
    }

    /// Control: the same moves to another list succeed.
    @Test(arguments: [["list", "move-row", "0:0", "B", "0"], ["list", "move-section", "0", "B"]])
    func moveToAnotherList(command: [String]) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["list", "add", "A"])
        try cli.run(["list", "add", "B"])
        try cli.run(["--list", "A", "section", "add", "S"])
        try cli.run(["--list", "B", "section", "add", "T"])
        try cli.run(["--list", "A", "add", "0", "a", "b"])
        let run = try cli.run(["--list", "A"] + command, process: true)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try cli.run(["check"]).status == 0)
    }
}

/// `export` and `import` of one list or of all (`--all`, the lists document of format 2).
@Suite struct ListTransferTests {
    @Test func exportAllAndImportAllCarryEveryListAndOneListExportsAsBefore() throws {
        let cli = try ListCommandTests.twoLists()
        let all = try cli.run(["export", "--all"])
        #expect(all.status == 0)
        #expect(all.stdout.hasPrefix(#"{"format":2,"lists":[{"name":"default","sections":[{"id":1,"title":"Inbox","rows":["#))
        #expect(all.stdout.contains(#"{"name":"Work","sections":[{"id":2,"title":"W","rows":[{"id":3,"title":"w","payload":null}]}]}"#))
        // One list: the document of before (format 1), of the --list list.
        let work = try cli.run(["--list", "Work", "export"])
        #expect(work.stdout == #"{"sections":[{"id":2,"title":"W","rows":[{"id":3,"title":"w","payload":null}]}]}"# + "\n")
        let copy = try CLIHarness()
        let imported = try copy.run(["import", "--all", "-"], stdin: Data(all.stdout.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try copy.run(["export", "--all"]).stdout == all.stdout)
        #expect(try copy.run(["lists"]).stdout == cli.run(["lists"]).stdout)
        #expect(try copy.run(["check"]).status == 0)
        // A one-list document goes into the --list list of another file.
        let other = try CLIHarness()
        #expect(try other.run(["list", "add", "Office"]).status == 0)
        #expect(try other.run(["--list", "Office", "import", "-"], stdin: Data(work.stdout.utf8)).status == 0)
        #expect(try other.run(["--list", "Office", "export"]).stdout == work.stdout)
        #expect(try other.run(["export"]).stdout == #"{"sections":[]}"# + "\n")
    }

    /// The lists document's own refusals name the document and the place, and leave no file; an empty
    /// one says that it imported nothing.
    @Test func aListsDocumentWithABadNameOrNoListIsReportedAsSuch() throws {
        let target = try CLIHarness()
        let badName = try target.run(["import", "--all", "-"], stdin: Data(#"{"format":2,"lists":[{"name":"","sections":[]}]}"#.utf8))
        #expect(badName.status == 1)
        #expect(badName.stderr == "error: standard input: the list name \"\" is not allowed: a list name cannot be empty; nothing was imported\n")
        let twice = try target.run(["import", "--all", "-"], stdin: Data(#"{"format":2,"lists":[{"name":"a","sections":[],"name":"b"}]}"#.utf8))
        #expect(twice.status == 1 && twice.stderr.hasPrefix("error: standard input: lists[0] has \"name\" twice; nothing was imported"), "\(twice.stderr)")
        let badRow = try target.run(
            ["import", "--all", "-"], stdin: Data(#"{"format":2,"lists":[{"name":"a","sections":[]},{"name":"b","sections":[{"title":"t","rows":[{"title":""}]}]}]}"#.utf8))
        #expect(badRow.stderr.hasPrefix("error: standard input, list \"b\": sections[0].rows[0] has an empty \"title\""), "\(badRow.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target.database))
        let oneList = try target.run(["import", "--all", "-"], stdin: Data(#"{"sections":[{"title":"A"}]}"#.utf8))
        #expect(
            oneList.stderr
                == "error: standard input is a document of one list (as `export` writes it): import it without --all, into the --list list; nothing was imported\n")
        let none = try target.run(["import", "--all", "-"], stdin: Data(#"{"format":2,"lists":[]}"#.utf8))
        #expect(none.status == 0 && none.stdout == "imported no list: the document names none\n", "\(none.stdout) \(none.stderr)")
    }

    /// Names that differ only in how "é" is written (one scalar, or "e" and U+0301) are two lists, as in
    /// the file: a document naming both imports both, and only a name repeated byte for byte is refused.
    @Test func aListsDocumentsNamesAreComparedByteForByte() throws {
        let target = try CLIHarness()
        let both = #"{"format":2,"lists":[{"name":"caf\u00e9","sections":[{"title":"one"}]},{"name":"cafe\u0301","sections":[{"title":"two"}]}]}"#
        let imported = try target.run(["import", "--all", "-"], stdin: Data(both.utf8))
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "imported \"caf\u{E9}\": 1 section, 0 rows; \"cafe\u{301}\": 1 section, 0 rows\n", "\(imported.stdout)")
        #expect(try target.run(["--list", "caf\u{E9}", "show"]).stdout.contains("one"))
        #expect(try target.run(["--list", "cafe\u{301}", "show"]).stdout.contains("two"))
        let again = try target.run(["import", "--all", "-"], stdin: Data(both.utf8))
        #expect(again.status == 1 && again.stderr.hasPrefix("error: cannot import standard input: list \"caf\u{E9}\" is not empty"), "\(again.stderr)")
        let twice = #"{"format":2,"lists":[{"name":"cafe\u0301","sections":[]},{"name":"cafe\u0301","sections":[]}]}"#
        let refused = try target.run(["import", "--all", "--replace", "-"], stdin: Data(twice.utf8))
        #expect(refused.status == 1 && refused.stderr.contains("names list \"cafe\u{301}\" twice (lists[0] too)"), "\(refused.stderr)")
        #expect(try target.run(["check"]).status == 0)
    }

    @Test func aListsDocumentNeedsAllAndANonEmptyListNeedsReplaceWithNothingImported() throws {
        let cli = try ListCommandTests.twoLists()
        let all = try cli.run(["export", "--all"]).stdout
        let target = try CLIHarness()
        let plain = try target.run(["import", "-"], stdin: Data(all.utf8))
        #expect(plain.status == 1)
        #expect(plain.stderr == "error: standard input is a document of every list (as `export --all` writes it): import it with `liststore import --all`; nothing was imported\n")
        #expect(!FileManager.default.fileExists(atPath: target.database))
        // The second list of the document is not empty in the file: nothing of the first is imported either.
        #expect(try target.run(["list", "add", "Work"]).status == 0)
        #expect(try target.run(["--list", "Work", "section", "add", "Busy"]).status == 0)
        let before = try #require(fileBytes(target.database))
        let refused = try target.run(["import", "--all", "-"], stdin: Data(all.utf8))
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: cannot import"), "\(refused.stderr)")
        #expect(try target.run(["export"]).stdout == #"{"sections":[]}"# + "\n")
        #expect(fileBytes(target.database) == before)
        let replaced = try target.run(["import", "--all", "--replace", "-"], stdin: Data(all.utf8))
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try target.run(["export", "--all"]).stdout == all)
    }

    /// Failed before the fix: `import --all` of a document that names one list twice, into a file without such a list:
    /// refused (right), but with `a list named "Q" already exists; choose another name` — the file has
    /// no list "Q", and unlike every other refusal of the document it names neither the document nor
    /// the place in it (`d.json, list "default": sections[0].rows[0]: row #6 is given twice; …`).
    @Test func importAllOfADocumentNamingAListTwice() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        let document = #"{"format":2,"lists":[{"name":"Q","sections":[]},{"name":"Q","sections":[]}]}"#
        try Data(document.utf8).write(to: cli.directory.appendingPathComponent("d.json"))
        let before = try cli.dump()
        let run = try cli.run(["import", "--all", "d.json"])
        #expect(run.status == 1)
        #expect(try cli.dump() == before)
        #expect(!run.stderr.contains("already exists"), "the file has no list Q: \(run.stderr)")
        #expect(run.stderr.contains("d.json") && run.stderr.contains("twice"), "\(run.stderr)")
    }

    /// Control: the same document with two different names imports both lists.
    @Test func importAllOfADocumentWithTwoNames() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        let document = #"{"format":2,"lists":[{"name":"Q","sections":[]},{"name":"R","sections":[]}]}"#
        try Data(document.utf8).write(to: cli.directory.appendingPathComponent("d.json"))
        #expect(try cli.run(["import", "--all", "d.json"]).status == 0)
        #expect(try cli.run(["lists"]).stdout.contains("\"R\""))
    }
}
