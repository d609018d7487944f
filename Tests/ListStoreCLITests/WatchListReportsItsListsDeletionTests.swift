import Foundation
import SQLiteLayer
import Testing

@testable import ListStoreCLI

/// `watch --list` of a list that is deleted prints a line for the deletion and stops (exit 1), whether
/// ListStore or the sqlite3 shell deletes it.
@Suite struct WatchListReportsItsListsDeletionTests {
    func run(_ cli: CLIHarness, _ arguments: [String]) -> CLI.Result { runInProcess(["--db", cli.database] + arguments) }

    /// `watch --list other` (human output) while the list is deleted: the lines it printed and its exit status.
    func watchWhileDeleting(byShell: Bool) throws -> (lines: [String], status: Int32?) {
        let cli = try CLIHarness()
        #expect(run(cli, ["demo"]).status == 0)
        for arguments in [["list", "add", "other"], ["--list", "other", "section", "add", "S"], ["--list", "other", "add", "0", "r"]] {
            #expect(run(cli, arguments).status == 0)
        }
        let binary = try #require(CLIHarness.binary)
        let watcher = try BackgroundProcess(binary.path, ["--db", cli.database, "watch", "--list", "other"], in: cli.directory, name: "watch")
        defer { watcher.kill() }
        try #require(watcher.waitForLines(errors: true) { $0.contains { $0.hasPrefix("watching") } }.count == 1, "watch did not start")
        if byShell {
            try cli.handEdit(foreignKeys: true, "DELETE FROM lists WHERE name = 'other'")
        } else {
            #expect(run(cli, ["list", "delete", "other"]).status == 0)
        }
        let status = watcher.waitForExit(timeout: 30)
        return (watcher.lines(), status)
    }

    /// FAILED before the fix in `WatchCommand`: when the sqlite3 shell deleted the watched list, `watch --list`
    /// printed no line for it and said "stopped watching … after 0 changes" — reading the counts for its
    /// "reloaded" line threw `listDeleted` first — where `--json` prints the reset and a deletion by
    /// ListStore prints "deleted 1 section". Now it prints "reloaded: changed outside ListStore; the list was
    /// deleted", then stops (exit 1).
    @Test func watchListPrintsADeletionByTheShell() throws {
        let (lines, status) = try watchWhileDeleting(byShell: true)
        #expect(status == 1)
        #expect(lines.count == 1 && lines[0].hasSuffix("reloaded: changed outside ListStore; the list was deleted"), "\(lines)")
    }

    /// Control (ListStore deletes the list): passes before and after.
    @Test func watchListPrintsADeletionByListStore() throws {
        let (lines, status) = try watchWhileDeleting(byShell: false)
        #expect(status == 1)
        #expect(lines.count == 1 && lines[0].hasSuffix("deleted 1 section: 0"), "\(lines)")
    }
}
