import Foundation
import ListStore
import StoreShorthands
import Testing

@testable import ListStoreCLI

/// With `--json`, every command prints exactly one JSON document on standard output.
@Suite struct JSONModeTests {
    @Test func everyCommandPrintsOneJSONDocument() throws {
        let cli = try CLIHarness()
        let steps: [[String]] = [
            ["init"], ["demo"], ["show"], ["show", "1"], ["section", "add", "Extra", "--at", "1"], ["section", "rename", "1", "More"],
            ["section", "move", "1", "3"], ["add", "3", "a", "b"], ["add", "--every-section", "all"], ["edit", "3:0", "--title", "A"],
            ["move", "3:0", "0:0"], ["delete", "0:0", "3:0"], ["section", "delete", "3"], ["export"], ["export", "out.json"],
            ["import", "out.json", "--replace"],
        ]
        for step in steps {
            let run = try cli.run(step + ["--json"])
            #expect(run.status == 0, "\(step): \(run.stderr)")
            #expect(run.stdout.filter { $0 == "\n" }.count == 1, "\(step): one line")
            _ = try CLIHarness.json(run.stdout)
        }
    }

    @Test func largeImportsShowProgressOnlyOnATerminal() throws {
        let directory = try CLIHarness()
        let rows = (0..<12_000).map { "{\"title\":\"r\($0)\"}" }.joined(separator: ",")
        let document = Data("{\"sections\":[{\"title\":\"big\",\"rows\":[\(rows)]}]}".utf8)
        for terminal in [true, false] {
            let progress = Locked("")
            let environment = CLIEnvironment(
                variables: [:], readStandardInput: { document }, standardErrorIsTerminal: terminal,
                writeProgress: { text in progress.withLock { $0 += text } })
            let path = directory.directory.appendingPathComponent("big-\(terminal).sqlite").path
            let result = CLI.run(["--db", path, "import", "-"], environment: environment)
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.contains("now 1 section, 12000 rows"))
            let shown = progress.withLock { $0 }
            if terminal {
                #expect(shown.contains("\rimporting: 10000/12000 rows"))
                #expect(shown.hasSuffix("\rimporting: 12000/12000 rows\n"))
            } else {
                #expect(shown.isEmpty)
            }
        }
    }
}
