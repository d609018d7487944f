import Foundation
import ListStore
import StoreShorthands
import Testing

/// `id:N` wherever a command acts on a row or a section, and counts read in the mutation's own transaction.
@Suite struct IDAddressingTests {
    /// The ids of the rows of section `section` in order, and the section's id, from `show --json`.
    static func ids(_ cli: CLIHarness, section: Int) throws -> (section: Int64, rows: [Int64]) {
        let json = try CLIHarness.json(try cli.run(["--json", "show"]).stdout)
        let sections = try #require(json["sections"] as? [[String: Any]])
        let chosen = sections[section]
        let rows = try #require(chosen["rows"] as? [[String: Any]])
        return (try #require((chosen["id"] as? NSNumber)?.int64Value), rows.compactMap { ($0["id"] as? NSNumber)?.int64Value })
    }

    static func titles(_ cli: CLIHarness, section: Int) throws -> [String] {
        let json = try CLIHarness.json(try cli.run(["--json", "show", String(section)]).stdout)
        let sections = try #require(json["sections"] as? [[String: Any]])
        return try #require(sections.first?["rows"] as? [[String: Any]]).compactMap { $0["title"] as? String }
    }

    @Test func everyRowAndSectionCommandTakesIDs() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        // Countries: Argentina, Belgium, Canada, Denmark, Canada, Egypt, France, Germany.
        let countries = try Self.ids(cli, section: 2)
        let canada2 = countries.rows[4]
        let belgium = countries.rows[1]

        #expect(try cli.run(["delete", "id:\(canada2)", "2:0"]).status == 0)  // ids and index paths mixed
        #expect(try Self.titles(cli, section: 2) == ["Belgium", "Canada", "Denmark", "Egypt", "France", "Germany"])

        #expect(try cli.run(["edit", "id:\(belgium)", "--title", "België"]).status == 0)
        #expect(try cli.run(["move", "id:\(belgium)", "2:5"]).status == 0)
        #expect(try Self.titles(cli, section: 2) == ["Canada", "Denmark", "Egypt", "France", "Germany", "België"])
        #expect(try cli.run(["move", "id:\(belgium)", "0:0"]).status == 0)  // to another section
        #expect(try Self.titles(cli, section: 0).first == "België")

        #expect(try cli.run(["add", "id:\(countries.section)", "Peru", "Chile", "--at", "0"]).status == 0)
        #expect(try Self.titles(cli, section: 2).prefix(2) == ["Peru", "Chile"])

        let show = try cli.run(["show", "id:\(countries.section)"])
        #expect(show.status == 0 && show.stdout.hasPrefix("[2] Countries (7 rows)\n    2:0  Peru"))
        let shownJSON = try CLIHarness.json(try cli.run(["--json", "show", "id:\(countries.section)"]).stdout)
        #expect((shownJSON["sections"] as? [[String: Any]])?.first?["title"] as? String == "Countries")

        #expect(try cli.run(["section", "rename", "id:\(countries.section)", "Lands"]).status == 0)
        #expect(try cli.run(["section", "move", "id:\(countries.section)", "0"]).status == 0)
        #expect(try cli.run(["show", "0"]).stdout.hasPrefix("[0] Lands (7 rows)"))
        let roles = try Self.ids(cli, section: 1).section
        let deleted = try cli.run(["section", "delete", "id:\(countries.section)", "2"])  // id and index mixed
        #expect(deleted.status == 0 && deleted.stdout.contains("deleted 2 sections: 0, 2"))
        #expect(try Self.ids(cli, section: 0).section == roles)
    }

    @Test func malformedIDsAreUsageErrors() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let before = try cli.dump()
        let bad = ["id:", "id:-1", "id:x", "id:1x", "id: 1", "id:+1", "id:1234567890123456789", "id:99999999999999999999", "ID:1"]
        for text in bad {
            for arguments in [
                ["delete", text], ["delete", "0:0", text], ["edit", text, "--title", "x"], ["move", text, "0:0"],
                ["add", text, "x"], ["section", "rename", text, "x"], ["section", "move", text, "0"],
                ["section", "delete", text], ["show", text],
            ] {
                let run = try cli.run(arguments)
                #expect(run.status == 2, "\(arguments): \(run.stderr)")
                #expect(run.stderr.hasPrefix("error: ") && run.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(run.stderr)")
            }
        }
        #expect(try cli.run(["delete", "id:"]).stderr.contains("\"id:\" is not an id: write id:N"))
        // Destinations stay index paths (a row) and indexes (a section).
        #expect(try cli.run(["move", "0:0", "id:3"]).stderr.contains("must be an index path S:R"))
        #expect(try cli.run(["move", "0:0", "id:3"]).status == 2)
        #expect(try cli.run(["section", "move", "0", "id:3"]).status == 2)
        #expect(try cli.run(["add", "0", "x", "--at", "id:3"]).status == 2)
        #expect(try cli.dump() == before)
    }

    @Test func unknownIDsFailInOneLineAndChangeNothing() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let before = try cli.dump()
        for arguments in [
            ["delete", "id:999"], ["delete", "0:0", "id:999"], ["edit", "id:999", "--title", "x"], ["move", "id:999", "0:0"],
            ["add", "id:999", "x"], ["section", "rename", "id:999", "x"], ["section", "move", "id:999", "0"],
            ["section", "delete", "0", "id:999"], ["show", "id:999"], ["delete", "id:1", "0:0"],
            ["section", "delete", "id:1", "0"], ["move", "id:1", "0:99"],
        ] {
            let run = try cli.run(arguments)
            #expect(run.status == 1, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("error: ") && run.stderr.filter { $0 == "\n" }.count == 1, "\(arguments): \(run.stderr)")
        }
        #expect(try cli.run(["delete", "id:999"]).stderr == "error: row #999 does not exist (it may have been deleted); read the list again\n")
        #expect(try cli.run(["add", "id:999", "x"]).stderr.hasPrefix("error: section #999 does not exist"))
        #expect(try cli.run(["delete", "id:1", "0:0"]).stderr.contains("row #1 is given twice"))
        #expect(try cli.dump() == before)
        let json = try cli.run(["--json", "delete", "id:999"])
        #expect(try CLIHarness.json(json.stdout)["status"] as? Int == 1)
    }

    /// Between reading ids and the edit, another process inserts at the head (shifting every index
    /// path) and deletes a row: `delete id:N` and `edit id:N` still act on exactly the rows read.
    @Test func idsSurviveShiftsByAnotherProcess() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "Queue"])
        try cli.run(["add", "0", "a", "b", "c", "d", "e"])
        let read = try Self.ids(cli, section: 0).rows  // as a script would read them, then act later
        let other = try CLIHarness.process(
            try #require(CLIHarness.binary).path,
            ["--db", cli.database, "add", "0", "new-1", "new-2", "--at", "0"], in: cli.directory)
        #expect(other.status == 0)
        #expect(try cli.run(["delete", "0:0"]).status == 0)  // another edit: removes "new-1"
        // Index path 0:2 now names "b"; id of "c" still names "c".
        let deleted = try cli.run(["--json", "delete", "id:\(read[2])"])
        #expect(deleted.status == 0)
        let changes = try #require(CLIHarness.json(deleted.stdout)["changes"] as? [String: Any])
        #expect(((changes["rows"] as? [String: Any])?["deleted"] as? [[String: Any]])?.map { $0["path"] as? [Int] } == [[0, 3]])
        #expect(try cli.run(["edit", "id:\(read[0])", "--title", "A"]).status == 0)
        #expect(try Self.titles(cli, section: 0) == ["new-2", "A", "b", "d", "e"])
    }

    /// While a thread commits inserts as fast as it can, each `add` reports the row count of the state
    /// it committed: ids grow in commit order and nothing is deleted, so that count is the number of rows
    /// whose id is at most the added row's. (Counts read in a later transaction would include rows the
    /// thread committed in between.)
    @Test func countsComeFromTheMutationsOwnTransaction() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "Commands"])
        try cli.run(["section", "add", "Background"])
        let store = try ListStore.open(at: cli.database)
        let stop = Locked(false)
        let background = Thread {
            var step = 0
            while !stop.withLock({ $0 }) && step < 1_000_000 {
                _ = try? store.insertRow("b\(step)", intoSection: 1)
                step += 1
            }
        }
        background.start()
        var reports: [(id: Int64, rows: Int)] = []
        for step in 0..<60 {
            let run = try cli.run(["--json", "add", "0", "c\(step)"])
            guard run.status == 0 else {
                Issue.record("add failed: \(run.stderr)")
                continue
            }
            let json = try CLIHarness.json(run.stdout)
            let rows = try #require((json["counts"] as? [String: Any])?["rows"] as? Int)
            let inserted = (((json["changes"] as? [String: Any])?["rows"] as? [String: Any])?["inserted"] as? [[String: Any]])?.compactMap { ($0["id"] as? NSNumber)?.int64Value }
            reports.append((try #require(inserted?.first), rows))
        }
        stop.withLock { $0 = true }
        while !background.isFinished { usleep(10_000) }
        let ids = try store.snapshot().sections.flatMap { $0.rows.map(\.id.rawValue) }
        #expect(reports.count == 60)
        #expect(ids.count > reports.count, "the thread wrote meanwhile")
        for report in reports {
            #expect(report.rows == ids.filter { $0 <= report.id }.count, "add of row #\(report.id) reported \(report.rows) rows")
        }
    }
}
