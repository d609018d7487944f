import Foundation
import ListStore
import StoreShorthands
import Testing

/// End to end, a restored backup beside a crashed file's old `-wal` (another
/// ListStore file's). `show` used to print a mix of both files; every command now refuses with one
/// `error:` line saying what to do, and leaves both files byte for byte as they were.
@Suite struct StaleWALCLITests {
    /// The harness database restored from a backup of another store, with the `-wal` of a third store
    /// that is still open (as a crashed writer leaves it) copied beside it; returns that open store.
    static func restoreBesideAStrangersWAL(_ cli: CLIHarness) throws -> ListStore {
        let backup = cli.directory.appendingPathComponent("backup.sqlite").path
        try #require(try cli.run(["--db", backup, "section", "add", "Restored"]).status == 0)
        try #require(try cli.run(["--db", backup, "add", "0", "from the backup"]).status == 0)
        let crashed = cli.directory.appendingPathComponent("crashed.sqlite").path
        let store = try ListStore.open(at: crashed)
        try store.insertSection(title: "Crashed")
        try store.insertRows((0..<20).map { "from the crashed file \($0)" }, intoSection: 0)
        try FileManager.default.copyItem(atPath: backup, toPath: cli.database)
        try FileManager.default.copyItem(atPath: crashed + "-wal", toPath: cli.database + "-wal")
        return store
    }

    @Test func everyCommandRefusesAnotherListStoreFilesWAL() throws {
        let cli = try CLIHarness()
        let crashed = try Self.restoreBesideAStrangersWAL(cli)
        let bytes = try #require(cli.bytes())
        let walBytes = try #require(cli.bytes(cli.database + "-wal"))
        // The harness's default --db is the relative name, which messages repeat.
        let advice = "move liststore.sqlite-wal and liststore.sqlite-shm away"
        for arguments in [["show"], ["export"], ["check"], ["add", "0", "x"], ["init"], ["repair"]] {
            let run = try cli.run(arguments, process: true)  // the binary's own words: paths as typed
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
            #expect(
                run.stderr.hasPrefix("error: liststore.sqlite-wal does not belong to liststore.sqlite") && run.stderr.split(separator: "\n").count == 1,
                "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(advice), "\(run.stderr)")
        }
        let json = try cli.run(["--json", "show"], process: true)
        #expect(json.status == 1 && json.stdout.contains("does not belong to") && json.stdout.contains(advice), "\(json.stdout)")
        #expect(cli.bytes() == bytes)
        #expect(cli.bytes(cli.database + "-wal") == walBytes)
        // Moved away, as the message says: the file is the backup, whole.
        try FileManager.default.removeItem(atPath: cli.database + "-wal")
        try? FileManager.default.removeItem(atPath: cli.database + "-shm")
        let show = try cli.run(["show"])
        #expect(show.status == 0 && show.stdout.contains("from the backup") && !show.stdout.contains("crashed"), "\(show.stdout)\(show.stderr)")
        _ = crashed
    }

    @Test func aFileWithItsOwnWALOpensAsUsual() throws {
        let cli = try CLIHarness()
        let store = try ListStore.open(at: cli.database)
        try store.insertSection(title: "Live")
        try store.insertRow("committed, still in the -wal", intoSection: 0)
        #expect(FileManager.default.fileExists(atPath: cli.database + "-wal"))
        let show = try cli.run(["show"])
        #expect(show.status == 0 && show.stdout.contains("committed, still in the -wal"), "\(show.stdout)\(show.stderr)")
        #expect(try cli.run(["add", "0", "more"]).status == 0)
        #expect(try cli.run(["check"]).status == 0)
    }
}
