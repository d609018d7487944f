import Foundation
import Testing

@testable import ListStore

/// `merge PEER_FILE` and `sync --segments DIR` as a person at a terminal uses them: two copies that each added a
/// list "Trip" end with one list holding both sections, and the output says what happened to the lists too.
@Suite struct MergeCommandTests {
    /// The harness's file and a copy of it, each of which then adds a list "Trip" with a section of its own.
    static func twoCopiesAddingTrip() throws -> (cli: CLIHarness, laptop: String) {
        let cli = try CLIHarness()
        for arguments in [["section", "add", "Inbox"], ["add", "0", "a", "b"]] { try #require(try cli.run(arguments).status == 0) }
        let laptop = cli.directory.appendingPathComponent("laptop.sqlite").path
        try FileManager.default.copyItem(atPath: cli.database, toPath: laptop)
        for (database, section) in [(cli.database, "Packing"), (laptop, "Tickets")] {
            for arguments in [["list", "add", "Trip"], ["--list", "Trip", "section", "add", section]] {
                let run = try cli.run(["--db", database] + arguments)
                try #require(run.status == 0, "\(arguments): \(run.stderr)")
            }
        }
        return (cli, laptop)
    }

    @Test func mergingCopiesThatEachAddedAListOfOneNameGivesOneListAndSaysSo() throws {
        let (cli, laptop) = try Self.twoCopiesAddingTrip()
        let merged = try cli.run(["merge", laptop])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout == "this list: nothing changed\nnow 1 section, 2 rows\nlists now 0 \"default\" (default): 1 section, 2 rows; 1 \"Trip\": 2 sections, 0 rows\n")
        let json = try CLIHarness.json(try cli.run(["--db", laptop, "--json", "merge", cli.database]).stdout)
        let lists = try #require(json["lists"] as? [[String: Any]])
        #expect(lists.map { $0["name"] as? String } == ["default", "Trip"])
        #expect(lists.map { $0["sections"] as? Int } == [1, 2])
        for database in [cli.database, laptop] {
            #expect(try cli.run(["--db", database, "--list", "Trip", "show"]).stdout == "[0] Packing (0 rows)\n    (no rows)\n[1] Tickets (0 rows)\n    (no rows)\n")
        }
        // Merging again: nothing, and no line about the lists.
        #expect(try cli.run(["merge", laptop]).stdout == "nothing changed\nnow 1 section, 2 rows\n")
    }

    @Test func syncThroughASharedFolderOfSegmentsConvergesAndReportsEachCopy() throws {
        let (cli, laptop) = try Self.twoCopiesAddingTrip()
        let shared = cli.directory.appendingPathComponent("shared").path
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let first = try cli.run(["sync", "--segments", shared, "--rounds", "1"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("wrote ") && first.stdout.hasSuffix(".liststore-segment\n"), "\(first.stdout)")
        let second = try cli.run(["--db", laptop, "--json", "sync", "--segments", shared, "--rounds", "1"])
        #expect(second.status == 0, "\(second.stderr)")
        let lines = second.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(lines)")
        let copy = try CLIHarness.json(lines[0])
        #expect((copy["peer"] as? String)?.hasPrefix("copy ") == true)
        #expect(copy["segmentsRead"] as? Int == 1)
        #expect((try CLIHarness.json(lines[1])["wrote"] as? String)?.hasSuffix(".liststore-segment") == true)
        _ = try cli.run(["sync", "--segments", shared, "--rounds", "1"])
        for database in [cli.database, laptop] {
            #expect(try cli.run(["--db", database, "lists"]).stdout == "0 \"default\" (default): 1 section, 2 rows\n1 \"Trip\": 2 sections, 0 rows\n")
        }
        #expect(
            try cli.run(["--db", laptop, "--list", "Trip", "show"]).stdout == (try cli.run(["--list", "Trip", "show"]).stdout))
        // Both --peers and --segments, or neither: one line, exit 1.
        let both = try cli.run(["sync", "--segments", shared, "--peers", shared, "--rounds", "1"])
        #expect(both.status == 1)
        #expect(both.stderr.hasPrefix("error: sync needs one of --peers DIR"), "\(both.stderr)")
        let notAFolder = try cli.run(["sync", "--segments", laptop, "--rounds", "1"])
        #expect(notAFolder.status == 1)
        #expect(notAFolder.stderr.contains("it is not a folder (--segments names the shared folder of segment files)"), "\(notAFolder.stderr)")
    }
}
