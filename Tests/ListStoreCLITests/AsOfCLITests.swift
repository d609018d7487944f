import Foundation
import ListStore
import StoreShorthands
import Testing

/// `--as-of VERSION`: a command's index paths name what `show --json` showed at VERSION, whatever another
/// process committed since. Most runs are in this process (the other "process" is another command run);
/// one case runs the other writer, and one the watcher, as real processes.
@Suite struct AsOfCLITests {
    /// The demo store (sections 0 roles, 1 monsters, 2 countries), the version `show --json` prints,
    /// and the titles of each section as drawn then.
    struct Drawn {
        let version: Int
        let titles: [[String]]
    }

    static func draw(_ cli: CLIHarness) throws -> Drawn {
        let document = try CLIHarness.json(try cli.run(["--json", "show"]).stdout)
        let version = try #require(document["version"] as? Int, "show --json has no version: \(document.keys)")
        let sections = try #require(document["sections"] as? [[String: Any]])
        return Drawn(version: version, titles: sections.map { (($0["rows"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } })
    }

    static func titles(_ cli: CLIHarness) throws -> [[String]] { try draw(cli).titles }

    static func demo() throws -> CLIHarness {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        return cli
    }

    @Test func showAndEditsPrintTheVersionTheyDescribe() throws {
        let cli = try Self.demo()
        let drawn = try Self.draw(cli)
        let section = try CLIHarness.json(try cli.run(["--json", "show", "1"]).stdout)
        #expect(section["version"] as? Int == drawn.version)
        let edit = try CLIHarness.json(try cli.run(["--json", "add", "0", "x"]).stdout)
        let after = try #require(edit["version"] as? Int)
        #expect(after > drawn.version)
        #expect(try Self.draw(cli).version == after)
        // A show --json document, version and all, still imports.
        let document = try cli.run(["--json", "show"]).stdout
        let copy = cli.directory.appendingPathComponent("copy.json")
        try Data(document.utf8).write(to: copy)
        #expect(try cli.run(["--db", "copy.sqlite", "import", copy.path]).status == 0)
    }

    @Test func aSwipeDeletesTheRowShownAfterAnotherCommandInsertedAboveIt() throws {
        let cli = try Self.demo()
        let drawn = try Self.draw(cli)
        try #require(try cli.run(["add", "2", "Atlantis", "--at", "0"]).status == 0)
        let run = try cli.run(["delete", "2:3", "--as-of", "\(drawn.version)"])
        #expect(run.status == 0, "\(run.stderr)")
        var expected = drawn.titles[2]
        expected.remove(at: 3)
        #expect(try Self.titles(cli)[2] == ["Atlantis"] + expected)
        // Without --as-of the same path names the row above it now.
        #expect(try Self.titles(cli)[2][3] != drawn.titles[2][3])
    }

    @Test func aRealProcessCommitsBetweenTheDrawAndTheEdit() throws {
        let cli = try Self.demo()
        let drawn = try Self.draw(cli)
        let other = try cli.run(["move", "2:0", "0:0"], process: true)
        try #require(other.status == 0, "\(other.stderr)")
        let inserted = try cli.run(["section", "add", "New", "--at", "0"], process: true)
        try #require(inserted.status == 0, "\(inserted.stderr)")
        // Drawn: 2:4 dropped at 1:0 (the top of the monsters), and 2:0 — moved away since — edited.
        #expect(try cli.run(["move", "2:4", "1:0", "--as-of", "\(drawn.version)"], process: true).status == 0)
        #expect(try cli.run(["edit", "2:0", "--title", "Moved", "--as-of", "\(drawn.version)"]).status == 0)
        let now = try Self.titles(cli)
        #expect(now[1].first == "Moved")  // the roles, with the moved country on top
        #expect(now[2].first == drawn.titles[2][4])  // the monsters
        // The countries without the two moved away (by index: the demo has two rows titled Canada).
        #expect(now[3] == drawn.titles[2].enumerated().filter { ![0, 4].contains($0.offset) }.map(\.element))
    }

    @Test func dragsWithinAndAcrossSectionsAndSectionMovesLandWhereTheyWereDropped() throws {
        let cli = try Self.demo()
        let drawn = try Self.draw(cli)
        try #require(try cli.run(["delete", "0:0"]).status == 0)
        try #require(try cli.run(["section", "move", "2", "0"]).status == 0)
        // Drawn: 0:1 dropped at 0:3 (between drawn rows 3 and 4 of section 0).
        #expect(try cli.run(["move", "0:1", "0:3", "--as-of", "\(drawn.version)"]).status == 0)
        var roles = Array(drawn.titles[0].dropFirst())
        let moved = roles.remove(at: 0)
        roles.insert(moved, at: 2)
        #expect(try Self.titles(cli)[1] == roles)
        // Drawn: section 2 (countries, now first) dropped at 1, between roles and monsters as drawn.
        let version = try Self.draw(cli).version
        try #require(try cli.run(["section", "add", "Top", "--at", "0"]).status == 0)
        #expect(try cli.run(["section", "move", "0", "2", "--as-of", "\(version)"]).status == 0)
        let order = try CLIHarness.json(try cli.run(["--json", "show"]).stdout)["sections"] as? [[String: Any]]
        #expect(order?.compactMap { $0["title"] as? String } == ["Top", "Heroica roles", "Heroica monsters", "Countries"])
        // Across sections, as drawn at `version`: the first role dropped at the top of the countries.
        #expect(try cli.run(["move", "1:0", "0:0", "--as-of", "\(version)"]).status == 0)
        #expect(try Self.titles(cli)[3].first == roles[0])
    }

    @Test func aRowOrSectionDeletedSinceIsRefusedWithTheFileUnchanged() throws {
        let cli = try Self.demo()
        let drawn = try Self.draw(cli)
        let document = try CLIHarness.json(try cli.run(["--json", "show"]).stdout)
        let rows = try #require((document["sections"] as? [[String: Any]])?[2]["rows"] as? [[String: Any]])
        let id = try #require(rows[3]["id"] as? Int)
        try #require(try cli.run(["delete", "2:3"]).status == 0)
        try #require(try cli.run(["section", "delete", "1"]).status == 0)
        let before = try cli.dump()
        let bytes = cli.bytes()
        for command in [["delete", "2:1", "2:3"], ["edit", "2:3", "--title", "x"], ["move", "2:3", "0:0"]] {
            let run = try cli.run(command + ["--as-of", "\(drawn.version)"])
            #expect(run.status == 1)
            #expect(
                run.stderr
                    == "error: the row you saw at 2:3 (row #\(id)) was deleted after version \(drawn.version) (by another process or connection, or an earlier edit of this write); nothing was changed — redraw from the current state and try again\n"
            )
        }
        for command in [["section", "rename", "1", "x"], ["add", "1", "x", "--at", "0"], ["delete", "1:0"]] {
            let run = try cli.run(command + ["--as-of", "\(drawn.version)"])
            #expect(run.status == 1)
            #expect(run.stderr.hasPrefix("error: the section you saw at 1 (section #"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
        let batch = cli.directory.appendingPathComponent("edits.txt")
        try Data("delete 0:0\ndelete 2:3\n".utf8).write(to: batch)
        let run = try cli.run(["batch", "--as-of", "\(drawn.version)", batch.path])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("error: line 2: the row you saw at 2:3"), "\(run.stderr)")
        #expect(try cli.dump() == before)
        #expect(cli.bytes() == bytes)
    }

    @Test func aVersionTheLogCannotTranslateIsRefused() throws {
        let cli = try Self.demo()
        let drawn = try Self.draw(cli)
        let bytes = cli.bytes()
        let future = try cli.run(["delete", "0:0", "--as-of", "\(drawn.version + 10)"])
        #expect(future.status == 1)
        #expect(future.stderr.hasPrefix("error: cannot act on index paths as of version \(drawn.version + 10): the file's last commit is version \(drawn.version)"))
        #expect(future.stderr.split(separator: "\n").count == 1)
        let bad = try cli.run(["delete", "0:0", "--as-of", "-1"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--as-of value must be a version"))
        let untranslatable = try cli.run(["move", "id:1", "0:0", "--as-of", "\(drawn.version)"])
        #expect(untranslatable.status == 2)
        let line = cli.directory.appendingPathComponent("line.txt")
        try Data("delete 0:0 --as-of 1\n".utf8).write(to: line)
        #expect(try cli.run(["batch", line.path]).status == 2)
        #expect(cli.bytes() == bytes)
        // An import is a change no change set describes: index paths drawn before it cannot be translated.
        let export = cli.directory.appendingPathComponent("all.json")
        try #require(try cli.run(["export", export.path]).status == 0)
        try #require(try cli.run(["import", "--replace", export.path]).status == 0)
        let afterImport = try cli.run(["delete", "0:0", "--as-of", "\(drawn.version)"])
        #expect(afterImport.status == 1)
        #expect(afterImport.stderr.contains("does not describe"), "\(afterImport.stderr)")
    }

    @Test func aBatchAsOfAddressesEveryLineAsShown() throws {
        let cli = try Self.demo()
        let drawn = try Self.draw(cli)
        try #require(try cli.run(["add", "0", "Bard", "--at", "0"]).status == 0)
        let batch = cli.directory.appendingPathComponent("edits.txt")
        // Every line as drawn: deleting 0:0 does not renumber what the next lines name.
        try Data("delete 0:0\ndelete 0:1\nedit 0:2 --title Third\nadd 0 Last --at \(drawn.titles[0].count)\n".utf8).write(to: batch)
        let run = try cli.run(["--json", "batch", "--as-of", "\(drawn.version)", batch.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try CLIHarness.json(run.stdout)["version"] as? Int == (try Self.draw(cli).version))
        #expect(try Self.titles(cli)[0] == ["Bard", "Third"] + drawn.titles[0].dropFirst(3) + ["Last"])
    }

    @Test func watchDocumentsCarryTheVersion() throws {
        let cli = try Self.demo()
        let binary = try #require(CLIHarness.binary)
        let output = cli.directory.appendingPathComponent("watch.out")
        try Data().write(to: output)
        let watcher = Process()
        watcher.executableURL = binary
        watcher.arguments = ["--db", cli.database, "--json", "watch", "--count", "1"]
        watcher.standardOutput = try FileHandle(forWritingTo: output)
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        defer { if watcher.isRunning { watcher.terminate() } }
        let initial = WatchTests.waitForLines(1, in: output, timeout: 60)
        try #require(initial.count == 1)
        #expect(try CLIHarness.json(initial[0])["version"] as? Int == (try Self.draw(cli).version))
        let edit = try CLIHarness.json(try cli.run(["--json", "delete", "1:0"]).stdout)
        let lines = WatchTests.waitForLines(2, in: output, timeout: 60)
        try #require(lines.count == 2)
        #expect(try CLIHarness.json(lines[1])["version"] as? Int == edit["version"] as? Int)
    }
}
