import Foundation
import ListStoreCLI
import Testing

/// `indexes` and `index add | remove` (issue 19, item 3): a payload field indexed from the command line
/// gives `find --where` the same rows as before, edits keep it current, and every refusal is one line
/// that changes nothing.
@Suite struct IndexCommandTests {
    func run(_ cli: CLIHarness, _ arguments: [String]) -> CLI.Result { runInProcess(["--db", cli.database] + arguments) }

    /// `find --json`'s rows, without the version.
    static func rows(_ json: String) -> Substring { json.prefix { $0 != "]" } }

    @Test func anIndexedFieldFindsTheSameRowsAndEditsKeepItCurrent() throws {
        let cli = try CLIHarness()
        #expect(run(cli, ["demo"]).status == 0)
        for (path, payload) in [("2:0", #"{"region":"americas"}"#), ("2:1", #"{"region":"europe"}"#), ("2:2", #"{"region":"americas"}"#)] {
            #expect(run(cli, ["edit", path, "--payload", payload]).status == 0)
        }
        let unindexed = run(cli, ["--json", "find", "--where", "region=americas"])
        #expect(unindexed.status == 0)
        #expect(run(cli, ["indexes"]).output == "no payload field is indexed\n")
        let added = run(cli, ["index", "add", "region"])
        #expect(added.status == 0 && added.output == "indexed region; indexed: region\n", "\(added)")
        #expect(run(cli, ["index", "add", "region"]).output == "region was already indexed; nothing changed; indexed: region\n")
        #expect(run(cli, ["--json", "indexes"]).output == #"{"indexes":["region"],"titles":false}"# + "\n")
        // The same rows and paths (the version is the index's commit).
        #expect(Self.rows(run(cli, ["--json", "find", "--where", "region=americas"]).output) == Self.rows(unindexed.output))
        // An edit after the index: the new row is found through it.
        #expect(run(cli, ["add", "2", "Chile", "--payload", #"{"region":"americas"}"#]).status == 0)
        let found = run(cli, ["find", "--where", "region=americas"])
        #expect(found.output.contains("Chile") && found.output.hasSuffix("3 rows found\n"), "\(found.output)")
        let removed = run(cli, ["index", "remove", "region"])
        #expect(removed.status == 0 && removed.output == "dropped the index on region; indexed: none\n", "\(removed)")
        #expect(run(cli, ["find", "--where", "region=americas"]) == found)
    }

    @Test func refusalsAreOneLineAndChangeNothing() throws {
        let cli = try CLIHarness()
        let missing = run(cli, ["index", "remove", "city"])
        #expect(missing.status == 1 && missing.error.hasPrefix("error: no database at"), "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: cli.database))
        #expect(run(cli, ["demo"]).status == 0)
        let before = run(cli, ["--json", "show"]).output
        for (arguments, message) in [
            (["index", "remove", "city"], #"error: payload field "city" has no index; nothing was changed"#),
            (["index", "add", "a..b"], "error: invalid payload field \"a..b\": it has an empty part"),
            (["index", "add", "x'y"], "error: invalid payload field"),
        ] {
            let refused = run(cli, arguments)
            #expect(refused.status == 1 && refused.error.hasPrefix(message) && refused.error.split(separator: "\n").count == 1, "\(arguments): \(refused)")
        }
        #expect(run(cli, ["--json", "show"]).output == before)
        #expect(run(cli, ["indexes"]).output == "no payload field is indexed\n")
    }
}
