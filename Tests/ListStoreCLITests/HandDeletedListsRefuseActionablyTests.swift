import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

@testable import ListStoreCLI

/// A list deleted by hand (the sqlite3 shell) leaves a file whose list edits refuse in one actionable
/// line, changing nothing, until `repair` — never a raw SQLite error (several lists, schema 8). Each
/// failure found before the fix comes with a control that passes on any version.
@Suite struct HandDeletedListsRefuseActionablyTests {
    static func sqlite(_ cli: CLIHarness, _ statements: String) throws {
        let run = try CLIHarness.process("/usr/bin/env", ["sqlite3", cli.database, statements], in: cli.directory)
        try #require(run.status == 0, "sqlite3 failed: \(run.stderr)")
    }

    /// Failed before the fix: the file's lists default, A, B; then `DELETE FROM lists WHERE name = 'A'` in the sqlite3 shell
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

    /// Failed before the fix: the default list (id 1) deleted in the sqlite3 shell: `check` reports it ("`liststore repair`
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
}
