import Foundation
import ListStore
import StoreShorthands
import Testing

@testable import ListStoreCLI

/// `liststore batch`: one edit per line, one transaction, the failing line named, nothing changed on failure.
@Suite struct BatchTests {
    static func export(_ cli: CLIHarness) throws -> String { try cli.run(["export"]).stdout }

    @Test func linesSeeTheLinesBeforeThemAndMakeOneChangeSet() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let batch = """
            # a comment, then a blank line

            section add 'New fruit'
            add 3 "Blood orange" Kiwi 'it'\\''s' --payload '{"ripe": true}'
            edit 3:0 --title "Blood orange (Sicily)"   # the row the line before added
            add id:3 Peru
            delete 2:0 2:1
            move 0:0 3:0
            section rename 1 Monsters
            """
        let run = try cli.run(["batch"], stdin: Data(batch.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "applied 7 commands in one transaction (--json lists the changes)\nnow 4 sections, 26 rows\n")
        // The same batch with --json: one change set. The row moved into the new section is listed as
        // deleted (a new section's rows are not listed).
        let twin = try CLIHarness()
        try twin.run(["demo"])
        let json = try CLIHarness.json(try twin.run(["--json", "batch"], stdin: Data(batch.utf8)).stdout)
        let changes = try #require(json["changes"] as? [String: Any])
        func entries(_ group: String, _ kind: String) -> [[String: Any]] { (changes[group] as? [String: Any])?[kind] as? [[String: Any]] ?? [] }
        #expect(entries("sections", "inserted").map { $0["index"] as? Int } == [3])
        #expect(entries("sections", "updated").map { $0["index"] as? Int } == [1])
        #expect(entries("rows", "deleted").map { $0["path"] as? [Int] } == [[0, 0], [2, 0], [2, 1]])
        #expect(entries("rows", "inserted").map { $0["path"] as? [Int] } == [[2, 6]])
        #expect(json["counts"] as? [String: Int] == ["sections": 4, "rows": 26])
        #expect(
            try cli.run(["show", "3"]).stdout == """
                [3] New fruit (4 rows)
                    3:0  野蠻人
                    3:1  Blood orange (Sicily)  {"ripe":true}
                    3:2  Kiwi                   {"ripe":true}
                    3:3  it's                   {"ripe":true}

                """)
        #expect(try cli.run(["show", "1"]).stdout.hasPrefix("[1] Monsters"))
        #expect(try cli.run(["check"]).status == 0)
    }

    /// The same commands, run one by one on the command line and as one batch, give the same store
    /// (ids included) and each its documented output.
    @Test func aLineMeansWhatTheCommandMeans() throws {
        let single = try CLIHarness()
        let batched = try CLIHarness()
        var random = SeededGenerator(seed: 2_024)
        var lines: [String] = []
        var commands: [[String]] = []
        for cli in [single, batched] { try cli.run(["demo"]) }
        for step in 0..<60 {
            // Commands valid on the demo store's evolving shape are generated from a model of its counts.
            let state = try CLIHarness.json(try single.run(["--json", "show"]).stdout)["sections"] as? [[String: Any]] ?? []
            let counts = state.map { ($0["rows"] as? [Any])?.count ?? 0 }
            let nonEmpty = counts.indices.filter { counts[$0] > 0 }
            let command: [String]
            switch (Int.random(in: 0..<7, using: &random), nonEmpty.randomElement(using: &random)) {
            case (0, _), (_, nil):
                let section = Int.random(in: 0..<max(1, counts.count), using: &random)
                command = ["add", String(section), "t \(step)", "it's \"\(step)\"", "--at", "0"]
            case (1, let s?):
                let row = Int.random(in: 0..<counts[s], using: &random)
                let ids = (state[s]["rows"] as? [[String: Any]])?.compactMap { ($0["id"] as? NSNumber)?.int64Value } ?? []
                command = ["delete", "id:\(ids[row])", "\(s):\(counts[s] - 1 == row ? 0 : counts[s] - 1)"]
            case (2, let s?):
                command = ["move", "\(s):0", "\(counts.count - 1):0"]
            case (3, let s?):
                command = ["edit", "\(s):\(counts[s] - 1)", "--title", "e#\(step) \\ $HOME", "--payload", "{\"n\": \(step)}"]
            case (4, _):
                command = ["section", "add", "S \(step)", "--at", "0"]
            case (5, _):
                command = ["section", "move", "0", String(counts.count - 1)]
            default:
                command = ["add", "--every-section", "every \(step)"]
            }
            guard try single.run(command).status == 0 else { continue }
            commands.append(command)
            lines.append(command.map(Self.shellQuoted).joined(separator: " "))
        }
        #expect(commands.count > 40)
        let run = try batched.run(["--json", "batch", "-"], stdin: Data(lines.joined(separator: "\n").utf8))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.export(single) == Self.export(batched))
        let counts = try CLIHarness.json(run.stdout)["counts"] as? [String: Int]
        let shown = try CLIHarness.json(try batched.run(["--json", "show"]).stdout)["sections"] as? [[String: Any]] ?? []
        #expect(counts == ["sections": shown.count, "rows": shown.reduce(0) { $0 + (($1["rows"] as? [Any])?.count ?? 0) }])
    }

    /// Single quotes around everything, `'` as `'\''`: what Python's shlex.quote and most scripts write.
    static func shellQuoted(_ word: String) -> String {
        word.allSatisfy { $0.isLetter || $0.isNumber || ":-".contains($0) } ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    @Test func theFirstFailingLineUndoesEverythingAndIsNamed() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let before = try cli.dump()
        let cases: [(input: String, status: Int32, message: String)] = [
            ("add 0 x\nadd 0 y\ndelete 9:9\nadd 0 z", 1, "error: line 3: section 9 does not exist"),
            ("add 0 x\n\n# c\ndelete id:999", 1, "error: line 4: row #999 does not exist"),
            ("delete 0:0\ndelete 0:5", 1, "error: line 2: row 0:5 does not exist"),  // 0:5 existed before line 1
            ("add 0 x\nadd 0 ''", 1, "error: line 2: invalid title \"\""),
            ("add 0 x\nedit 0:0 --payload '{bad'", 1, "error: line 2: --payload is not valid JSON"),
            ("add 0 x\nfrobnicate", 2, "error: line 2: unknown command \"frobnicate\""),
            ("add 0 x\nadd 0", 2, "error: line 2: add needs a SECTION and at least one TITLE"),
            ("add 0 x\ndelete id:x", 2, "error: line 2: \"id:x\" is not an id"),
            ("add 0 x\nadd 0 \"open", 2, "error: line 2: a double quote (\") is not closed on this line"),
            ("add 0 'open", 2, "error: line 1: a single quote (') is not closed"),
            ("add 0 x\\", 2, "error: line 1: the line ends with a backslash"),
            ("add 0 x\nadd 0 y --json", 2, "error: line 2: --json is a global option"),
            ("add 0 x\n--db other.sqlite add 0 y", 2, "error: line 2: --db is a global option"),
            ("add 0 x\nadd 0 y --help", 2, "error: line 2: --help is a global option"),
            ("add 0 -", 2, "error: line 1: - (titles from standard input) cannot be used in a batch"),
            ("add 0 x\n--", 2, "error: line 2: no command given"),
            ("add 0 x\nadd 0 a\u{0}b", 1, "error: line 2: the line contains a NUL byte"),
        ]
        for (input, status, message) in cases {
            let run = try cli.run(["batch"], stdin: Data(input.utf8))
            #expect(run.status == status, "\(input): \(run.stderr)")
            #expect(run.stderr.hasPrefix(message) && run.stderr.filter { $0 == "\n" }.count == 1, "\(input): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            let json = try cli.run(["--json", "batch"], stdin: Data(input.utf8))
            #expect(try CLIHarness.json(json.stdout)["status"] as? Int == Int(status))
        }
        var invalid = Data("add 0 x\nadd 0 ".utf8)
        invalid.append(contentsOf: [0xC3, 0x28])
        #expect(try cli.run(["batch"], stdin: invalid).stderr.hasPrefix("error: line 2: the line is not valid UTF-8"))
        #expect(try cli.dump() == before)
    }

    @Test func onlyEditsMayAppearInABatch() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let before = try cli.dump()
        for command in [
            "show", "show 0", "export", "export out.json", "import in.json", "watch", "batch", "batch x.txt", "init", "demo",
            "check", "repair", "backup copy.sqlite",
        ] {
            let run = try cli.run(["batch"], stdin: Data("add 0 fine\n\(command)\n".utf8))
            let name = command.split(separator: " ")[0]
            #expect(run.status == 2, "\(command): \(run.stderr)")
            #expect(run.stderr.hasPrefix("error: line 2: \(name) cannot be used in a batch; a line must be an edit: "), "\(run.stderr)")
        }
        #expect(try cli.dump() == before)
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("copy.sqlite").path))
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("out.json").path))
    }

    @Test func fromAFileOrStandardInput() throws {
        let cli = try CLIHarness()
        let file = cli.directory.appendingPathComponent("edits.txt")
        try Data("section add A\r\nadd 0 x y\r\n".utf8).write(to: file)  // CRLF lines
        let run = try cli.run(["batch", "edits.txt"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "applied 2 commands in one transaction (--json lists the changes)\nnow 1 section, 2 rows\n")
        #expect(
            try cli.run(["batch", "-"], stdin: Data("\u{FEFF}add 0 z\n".utf8)).stdout == "applied 1 command in one transaction (--json lists the changes)\nnow 1 section, 3 rows\n")
        #expect(try cli.run(["batch"], stdin: Data()).stdout == "applied 0 commands in one transaction (--json lists the changes)\nnow 1 section, 3 rows\n")
        #expect(try cli.run(["show", "0"]).stdout.contains("0:2  z"))

        let fresh = try CLIHarness()
        let missing = try fresh.run(["batch", "nothere.txt"])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("error: cannot read nothere.txt: No such file or directory"))
        #expect(try fresh.run(["batch", "."]).stderr.hasPrefix("error: cannot read .: it is a folder"))
        #expect(try fresh.run(["batch"], stdin: Data("add 0 x\n".utf8)).status == 1)
        #expect(!FileManager.default.fileExists(atPath: fresh.database), "a failed batch leaves no new file")
    }

    @Test func jsonOutputIsOneChangeSetWithCounts() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let run = try cli.run(["--json", "batch"], stdin: Data("delete 2:1\nadd 2 Zambia\ndelete 2:0\n".utf8))
        let json = try CLIHarness.json(run.stdout)
        #expect(json["counts"] as? [String: Int] == ["sections": 3, "rows": 23])
        let rows = try #require((json["changes"] as? [String: Any])?["rows"] as? [String: Any])
        #expect((rows["deleted"] as? [[String: Any]])?.map { $0["path"] as? [Int] } == [[2, 0], [2, 1]])
        #expect((rows["inserted"] as? [[String: Any]])?.map { $0["path"] as? [Int] } == [[2, 6]])
        #expect((rows["inserted"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Zambia"])
        // The same shape as a single command's output.
        let single = try CLIHarness.json(try cli.run(["--json", "add", "0", "x"]).stdout)
        #expect(Set(json.keys) == Set(single.keys))
    }

    @Test func aLongBatchWithoutJSONReportsCountsNotEveryChange() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "A"])
        let run = try cli.run(["batch"], stdin: Data(String(repeating: "add 0 x\n", count: 25).utf8))
        #expect(run.stdout == "applied 25 commands in one transaction (--json lists the changes)\nnow 1 section, 25 rows\n")
    }

    @Test func wordsAreSplitLikeAShell() throws {
        let cases: [(String, [String])] = [
            ("add 0 x", ["add", "0", "x"]),
            ("  add\t0   x  ", ["add", "0", "x"]),
            ("add 0 'two words' \"and three words\"", ["add", "0", "two words", "and three words"]),
            ("a 'it'\\''s'", ["a", "it's"]),
            ("a \"say \\\"hi\\\"\"", ["a", "say \"hi\""]),
            ("a \"\\\\ \\$ \\` \\n \\x\"", ["a", "\\ $ ` \\n \\x"]),
            ("a 'no \\ escapes \" here'", ["a", "no \\ escapes \" here"]),
            ("a \\'x \\\" \\# \\\\ b\\ c", ["a", "'x", "\"", "#", "\\", "b c"]),
            ("a 'x'\"y\"z", ["a", "xyz"]),
            ("a '' \"\"", ["a", "", ""]),
            ("a # comment 'open", ["a"]),
            ("# whole line", []),
            ("", []),
            ("a C#7 x#y", ["a", "C#7", "x#y"]),
            ("a $HOME ~ * ; | & < > `x`", ["a", "$HOME", "~", "*", ";", "|", "&", "<", ">", "`x`"]),
            ("a 野蠻人 'é ü'", ["a", "野蠻人", "é ü"]),
        ]
        for (line, words) in cases {
            #expect(try ShellWords.split(line) == words, "\(line)")
        }
        for line in ["a 'open", "a \"open", "a \"x\\\"", "a \\"] {
            #expect(throws: ShellWords.Failure.self, "\(line)") { try ShellWords.split(line) }
        }
    }
}
