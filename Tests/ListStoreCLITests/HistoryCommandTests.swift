import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// `liststore undo`, `redo` and `history` (issue 19, item 1): the command line's own transactions,
/// another author's with `--by`, across processes with edits in between, hand edits listed and kept,
/// refusals (a hand-edited record's too) in one line with nothing changed, and a deleted list's entries
/// gone with it.
@Suite struct HistoryCommandTests {
    static func titles(_ store: ListStore) throws -> [[String]] {
        try store.snapshot().sections.map { $0.rows.map(\.title) }
    }

    static func titles(_ cli: CLIHarness) throws -> [[String]] {
        try ListStore.open(at: cli.database, mode: .readOnly).snapshot().sections.map { $0.rows.map(\.title) }
    }

    @Test func undoAndRedoTheCommandLinesOwnEdits() throws {
        let cli = try CLIHarness()
        for step in [["section", "add", "S"], ["add", "0", "a", "b", "c"], ["delete", "0:1"], ["edit", "0:0", "--title", "A"]] {
            let run = try cli.run(step)
            try #require(run.status == 0, "\(step): \(run.stderr)")
        }
        let undo = try cli.run(["undo"])
        #expect(undo.status == 0, "\(undo.stderr)")
        #expect(undo.stdout.hasPrefix("undid the last transaction by cli\nupdated 1 row: 0:0\n"), "\(undo.stdout)")
        #expect(try Self.titles(cli) == [["a", "c"]])
        let json = try cli.run(["--json", "undo"])
        #expect(json.stdout.contains(#""inserted":[{"path":[0,1],"id":2,"title":"b""#), "\(json.stdout)")
        #expect(json.stdout.contains(#""author":"cli""#))
        #expect(try Self.titles(cli) == [["a", "b", "c"]])
        #expect(try cli.run(["redo"]).status == 0)
        #expect(try Self.titles(cli) == [["a", "c"]])
        let history = try cli.run(["history"])
        #expect(history.stdout.hasPrefix("7  redo  by cli  (done)\n6  undo  by cli  (undone)\n5  undo  by cli  (done)\n4  edit  by cli  (undone)\n"), "\(history.stdout)")
    }

    @Test func anotherAuthorsTransactionsAndHandEdits() throws {
        let cli = try CLIHarness()
        #expect(try cli.run(["section", "add", "S"]).status == 0)
        let app = try ListStore.open(at: cli.database, author: "Notes")
        try app.write(actionName: "Add Rows") { try $0.insertRows(["x", "y"], intoSection: 0) }
        #expect(try cli.run(["add", "0", "from cli"]).status == 0)
        try Connection(path: cli.database, mode: .readWrite).executeScript("UPDATE rows SET title = 'by hand' WHERE id = 1")
        // `undo` takes back the command line's add; the app's rows and the hand edit stay.
        #expect(try cli.run(["undo"]).status == 0)
        #expect(try Self.titles(cli) == [["by hand", "y"]])
        // The app's insert cannot be undone: row 1 was changed by hand since. Nothing changes.
        let refused = try cli.run(["undo", "--by", "Notes"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "error: cannot undo \"Add Rows\" (history entry #2): row #1 was changed since (its title is now \"by hand\"); nothing was changed\n")
        #expect(try Self.titles(cli) == [["by hand", "y"]])
        try Connection(path: cli.database, mode: .readWrite).executeScript("UPDATE rows SET title = 'x' WHERE id = 1")
        let undone = try cli.run(["undo", "--by", "Notes"])
        #expect(undone.stdout.hasPrefix("undid Add Rows by Notes\n"), "\(undone.stdout)")
        #expect(try Self.titles(cli) == [[]])
        let history = try cli.run(["--json", "history", "--limit", "4"])
        let text = history.stdout
        #expect(text.contains(#"{"version":6,"kind":"hand-edit","author":null,"action":null,"state":null,"entry":null,"list":null,"changes":null}"#), "\(text)")
        #expect(text.contains(#""kind":"undo","author":"Notes","action":"Add Rows","state":"done""#), "\(text)")
        // The app redoes its own undo, whoever undid it.
        try app.redo()
        #expect(try Self.titles(cli) == [["x", "y"]])
    }

    @Test func badInputIsOneLineAndChangesNothing() throws {
        let cli = try CLIHarness()
        #expect(try cli.run(["undo"]).stderr.hasPrefix("error: no database at"))
        #expect(try cli.run(["section", "add", "S"]).status == 0)
        let bytes = fileBytes(cli.database)
        #expect(try cli.run(["redo"]).stderr == "error: nothing to redo by \"cli\": they have undone nothing since their last edit\n")
        #expect(try cli.run(["undo", "--by", ""]).stderr == "error: invalid author \"\": it cannot be empty\n")
        #expect(try cli.run(["history", "--limit", "0"]).status == 1)
        #expect(fileBytes(cli.database) == bytes)
    }

    /// Two processes: this one's store (author "app") and the `liststore` binary, each editing between
    /// the other's edits and undos. Restored rows keep their ids and go back between their neighbours.
    @Test func undoAcrossTwoProcessesWithEditsInBetween() throws {
        let cli = try CLIHarness()
        let app = try ListStore.open(at: cli.database, author: "app")
        let section = try app.insertSection(title: "S").id
        let (ids, _) = try app.insertRows(["r0", "r1", "r2", "r3"], intoSection: section)
        try app.write(actionName: "Delete 2 Rows") { try $0.deleteRows(ids: [ids[1], ids[2]]) }
        for step in [["add", "0", "cli0", "--at", "0"], ["move", "0:2", "0:0"], ["section", "add", "T", "--at", "0"]] {
            let run = try cli.run(step, process: true)
            try #require(run.status == 0, "\(step): \(run.stderr)")
        }
        #expect(try Self.titles(app) == [[], ["r3", "cli0", "r0"]])
        let changes = try app.undo()
        #expect(Set(changes.insertedRows.map(\.row.id)) == [ids[1], ids[2]])
        #expect(try Self.titles(app) == [[], ["r3", "cli0", "r0", "r1", "r2"]])
        #expect(try app.snapshot().sections[1].rows.map(\.id).suffix(2) == [ids[1], ids[2]])
        #expect(try app.checkInvariants().isEmpty)
        // The binary undoes its own three edits; the app's restored rows stay. r3 goes back right after
        // r0, the row before it when the binary moved it (r1 and r2 were not there then).
        for _ in 0..<3 { #expect(try cli.run(["undo"], process: true).status == 0) }
        #expect(try Self.titles(app) == [["r0", "r3", "r1", "r2"]])
        // The app deletes the section: the binary's redo (of its add of cli0) is refused, nothing changed;
        // once the app has undone its deletion, the redo puts cli0 back before r0 with its id.
        try app.deleteSections(ids: [section])
        let refused = try cli.run(["redo"], process: true)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.hasPrefix("error: cannot redo (history entry #") && refused.stderr.contains("was deleted or moved to another list since; nothing was changed"),
            "\(refused.stderr)")
        #expect(try app.sectionCount() == 0)
        try app.undo()
        #expect(try app.snapshot().sections[0].id == section)
        #expect(try app.snapshot().sections[0].rows.map(\.id) == [ids[0], ids[3], ids[1], ids[2]])
        #expect(try cli.run(["redo"], process: true).status == 0)
        #expect(try Self.titles(app) == [["cli0", "r0", "r3", "r1", "r2"]])
        #expect(try app.checkInvariants().isEmpty)
    }

    /// Failed before the fix: a history record edited by hand to an index no write could have (`fromIndex` -5, a section
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
        try HandEditTests.sql(cli, "UPDATE liststore_history SET record = '\(record)' WHERE id = (SELECT max(id) FROM liststore_history)")
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

    /// Failed before the fix: after `list delete B`, `history` prints B's entries exactly as the default list's
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
