import Foundation
import ListStore
import TestSupport
import Testing

@testable import ListStoreCLI

/// Red-team reproductions for several lists in one file (schema 8) and durable undo (schema 9).
@Suite struct RedTeamListsUndoTests {
    static func sqlite(_ cli: CLIHarness, _ statements: String) throws {
        let run = try CLIHarness.process("/usr/bin/env", ["sqlite3", cli.database, statements], in: cli.directory)
        try #require(run.status == 0, "sqlite3 failed: \(run.stderr)")
    }

    /// The file's lists default, A, B; then `DELETE FROM lists WHERE name = 'A'` in the sqlite3 shell
    /// leaves the list positions 0 and 2 (`check` reports it, `repair` renumbers). The reordering of
    /// the lists parks positions "out of the way" assuming they are dense, so every `list add` and
    /// `list move` then fails with a raw SQLite error (`SQLite error 2067 … UNIQUE constraint failed:
    /// lists.position — while running: UPDATE lists SET …`) instead of the actionable refusal the
    /// sections give in the same case ("the section positions were changed outside ListStore …
    /// run `liststore repair`").
    @Test(arguments: [["list", "add", "C"], ["list", "add", "C", "--at", "0"], ["list", "move", "B", "0"]])
    func listOrderAfterAHandDeletedList(command: [String]) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["list", "add", "A"])
        try cli.run(["list", "add", "B"])
        try Self.sqlite(cli, "DELETE FROM lists WHERE name = 'A'")
        let before = try cli.dump()
        let run = try cli.run(command)
        if run.status == 0 {
            #expect(try cli.run(["check"]).status == 0)
        } else {
            #expect(try cli.dump() == before, "a failing command changed the file")
            #expect(!run.stderr.contains("SQLite error"), "raw SQLite error: \(run.stderr)")
            #expect(run.stderr.contains("repair"), "not actionable: \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }

    /// Control: the same lists, the hand-deleted list's gap closed by `repair`: the same commands work.
    @Test(arguments: [["list", "add", "C"], ["list", "add", "C", "--at", "0"], ["list", "move", "B", "0"]])
    func listOrderAfterRepair(command: [String]) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["list", "add", "A"])
        try cli.run(["list", "add", "B"])
        try Self.sqlite(cli, "DELETE FROM lists WHERE name = 'A'")
        #expect(try cli.run(["check"]).status == 1)
        #expect(try cli.run(["repair"]).status == 0)
        #expect(try cli.run(command).status == 0)
        #expect(try cli.run(["check"]).status == 0)
    }

    /// The default list (id 1) deleted in the sqlite3 shell: `check` reports it ("`liststore repair`
    /// fixes it"), but an edit of the default list fails with SQLite's foreign-key error
    /// (`SQLite error 787 … FOREIGN KEY constraint failed — while running: INSERT INTO sections …`),
    /// which says neither what is wrong nor what to do.
    @Test(arguments: [["section", "add", "X"], ["import", "-"]])
    func editOfAHandDeletedDefaultList(command: [String]) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["list", "add", "A"])
        try Self.sqlite(cli, "DELETE FROM lists WHERE id = 1; UPDATE lists SET position = position - 1")
        let before = try cli.dump()
        let run = try cli.run(command, stdin: Data(#"{"sections":[{"title":"S","rows":[{"title":"r"}]}]}"#.utf8))
        #expect(run.status == 1)
        #expect(try cli.dump() == before, "a failing command changed the file")
        #expect(!run.stderr.contains("SQLite error"), "raw SQLite error: \(run.stderr)")
        #expect(run.stderr.contains("repair"), "not actionable: \(run.stderr)")
    }

    /// Control: after `repair` makes the default list again, the same edits work.
    @Test(arguments: [["section", "add", "X"], ["import", "-"]])
    func editOfARepairedDefaultList(command: [String]) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["list", "add", "A"])
        try Self.sqlite(cli, "DELETE FROM lists WHERE id = 1; UPDATE lists SET position = position - 1")
        #expect(try cli.run(["repair"]).status == 0)
        let run = try cli.run(command, stdin: Data(#"{"sections":[{"title":"S","rows":[{"title":"r"}]}]}"#.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try cli.run(["check"]).status == 0)
    }

    /// `import --all` of a document that names one list twice, into a file without such a list:
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

    /// A history record edited by hand to an index no write could have (`fromIndex` -5, a section
    /// move `from` -3): TheFile.md says a record not of the declared format refuses its undo
    /// (`cannot undo … (history entry #N): …; nothing was changed`); instead `undo` fails with the
    /// error of a plain edit the user never asked for — `cannot put a row at 0:-5 …`, `section -3 does
    /// not exist …` — naming an index path `undo` was never given.
    @Test(arguments: [
        #"{"v":1,"steps":[{"kind":"row-moved","row":1,"fromSection":1,"fromIndex":-5,"after":null,"before":null,"toSection":1}]}"#,
        #"{"v":1,"steps":[{"kind":"section-moved","section":1,"from":-3,"after":null,"before":null}]}"#,
    ])
    func undoOfAHandEditedNegativeIndex(record: String) throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        try cli.run(["section", "add", "T"])
        try cli.run(["add", "0", "a", "b"])
        try cli.run(["move", "0:0", "0:1"])
        try Self.sqlite(cli, "UPDATE liststore_history SET record = '\(record)' WHERE id = (SELECT max(id) FROM liststore_history)")
        let before = try cli.dump()
        let run = try cli.run(["undo"])
        #expect(run.status == 1)
        #expect(try cli.dump() == before)
        #expect(run.stderr.hasPrefix("error: cannot undo"), "not an undo refusal: \(run.stderr)")
    }

    /// Control: the same history untouched: the move is undone.
    @Test func undoOfAnUntouchedMove() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["section", "add", "S"])
        try cli.run(["section", "add", "T"])
        try cli.run(["add", "0", "a", "b"])
        try cli.run(["move", "0:0", "0:1"])
        #expect(try cli.run(["undo"]).status == 0)
        #expect(try cli.run(["show"]).stdout.contains("0:0  a"))
    }

    /// `$LISTSTORE_LIST` (Docs/CLI.md: "`--list NAME`, else `$LISTSTORE_LIST`, else the default list") is
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

    /// After `list delete B`, `history` prints B's entries exactly as the default list's
    /// (`2  edit  by cli  (done)`: human output names only lists other than the default) and
    /// `history --json` gives them `"list":null` — an entry of a deleted list reads as one of the
    /// default list, still "done", which `undo` (of the default list) will never take.
    @Test func historyOfADeletedList() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["list", "add", "B"])
        try cli.run(["--list", "B", "section", "add", "InB"])
        try cli.run(["list", "delete", "B"])
        // The deleted list's history entries go with it: none reads as the default list's, still "done".
        let human = try cli.run(["history"]).stdout
        #expect(!human.contains("edit  by cli"), "an entry of the deleted list B reads as the default list's: \(human)")
        let json = try CLIHarness.json(try cli.run(["--json", "history"]).stdout)
        let entries = (json["entries"] as? [[String: Any]]) ?? []
        #expect(!entries.contains { ($0["kind"] as? String) == "edit" }, "\(entries)")
    }

    /// Control: while B exists its entry names it, in both outputs.
    @Test func historyOfAnExistingList() throws {
        let cli = try CLIHarness()
        try cli.run(["init"])
        try cli.run(["list", "add", "B"])
        try cli.run(["--list", "B", "section", "add", "InB"])
        let human = try cli.run(["history"]).stdout
        #expect(human.contains("in B"))
        let json = try CLIHarness.json(try cli.run(["--json", "history"]).stdout)
        let entries = (json["entries"] as? [[String: Any]]) ?? []
        #expect(entries.contains { ($0["list"] as? String) == "B" })
    }
}

/// A move "between lists" whose target is the row's or section's own list.
@Suite struct RedTeamMoveToOwnListTests {
    /// `liststore --list A list move-row 0:0 A 0` and `list move-section 0 A` trap (SIGILL, "Fatal
    /// error: Dictionary literal contains duplicate keys", Lists.swift `movingBetweenLists`: the
    /// source's and the target's change sets keyed by the same list id) — any app calling
    /// `moveRow(id:toList:section:)` or `moveSection(id:toList:)` with the handle's own list crashes.
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

/// `liststore ui` showing a list that another process deletes (`liststore list delete B`, or by hand).
@Suite struct RedTeamUIDeletedListTests {
    /// The screen goes to "[Work] 0 sections", and then `l` and `L` fail with `there is no list named
    /// "#3" in the file` (the deleted list's internal id): the ui is stuck on a list that no longer
    /// exists — no key shows another list; only `q` is left.
    @Test func switchingAwayFromADeletedList() throws {
        let directory = try TemporaryDirectory()
        let store = try UIScreenModelTests.makeStore(directory)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        let controller = try UIController(store: store, height: 10)
        controller.handle(.character("l"))
        #expect(controller.listName == "Work")
        try store.deleteList(named: "Work")
        controller.handle(.character("L"))
        #expect(controller.listName == ListStore.defaultListName, "stuck on the deleted list: \(String(describing: controller.message))")
        #expect(!String(describing: controller.message).contains("#"), "an internal list id in: \(String(describing: controller.message))")
    }

    /// Control: the same lists, Work kept: `L` goes back to the default list.
    @Test func switchingAwayFromAKeptList() throws {
        let directory = try TemporaryDirectory()
        let store = try UIScreenModelTests.makeStore(directory)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        let controller = try UIController(store: store, height: 10)
        controller.handle(.character("l"))
        #expect(controller.listName == "Work")
        controller.handle(.character("L"))
        #expect(controller.listName == ListStore.defaultListName)
    }
}
