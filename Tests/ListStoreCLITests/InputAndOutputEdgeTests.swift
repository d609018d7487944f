import Foundation
import Testing

@testable import ListStoreCLI

/// The edges of what the CLI reads and writes: `export -`, symbolic links, arguments that are not UTF-8,
/// byte order marks, endless standard input, huge titles, used-up ids.
@Suite struct InputAndOutputEdgeTests {
    func expectUnchanged(_ cli: CLIHarness, _ before: Data?, _ run: CLIHarness.Run, status: Int32 = 1, _ message: String) {
        #expect(run.status == status, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("error: ") && run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.filter { $0 == "\n" }.count == 1, "one line: \(run.stderr)")
        #expect(cli.bytes() == before)
    }

    @Test func exportDashIsStandardOutput() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let run = try cli.run(["export", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == (try cli.run(["export"])).stdout)
        _ = try CLIHarness.json(run.stdout)
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("-").path))
    }

    @Test func exportWritesThroughASymbolicLinkAndNeverOverTheDatabase() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let files = FileManager.default
        let folder = cli.directory.appendingPathComponent("real")
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent("lists.json").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        try files.setAttributes([.posixPermissions: 0o640], ofItemAtPath: target)
        let link = cli.directory.appendingPathComponent("link.json").path
        try files.createSymbolicLink(atPath: link, withDestinationPath: "real/lists.json")  // relative, as `ln -s` makes them

        let run = try cli.run(["export", "link.json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("through the link, to ./real/lists.json"), "\(run.stdout)")
        #expect(try files.destinationOfSymbolicLink(atPath: link) == "real/lists.json")  // still the link
        let written = try #require(files.contents(atPath: target))
        #expect(written == Data(try cli.run(["export"]).stdout.utf8))
        #expect((try files.attributesOfItem(atPath: target))[.posixPermissions] as? Int == 0o640)

        // A dangling link: the file it names is created.
        try files.createSymbolicLink(atPath: cli.directory.appendingPathComponent("new.json").path, withDestinationPath: "real/new.json")
        #expect(try cli.run(["export", "new.json"]).status == 0)
        #expect(files.fileExists(atPath: folder.appendingPathComponent("new.json").path))

        // Links to the database, or loops, are refused and change nothing.
        let before = cli.bytes()
        try files.createSymbolicLink(atPath: cli.directory.appendingPathComponent("db.json").path, withDestinationPath: cli.database)
        expectUnchanged(cli, before, try cli.run(["export", "db.json"]), "refusing to export over the database itself (db.json)")
        try files.createSymbolicLink(atPath: cli.directory.appendingPathComponent("loop.json").path, withDestinationPath: "loop.json")
        expectUnchanged(cli, before, try cli.run(["export", "loop.json"]), "too many symbolic links")
        expectUnchanged(cli, before, try cli.run(["export", "real"]), "cannot write real: it is a folder")
    }

    /// Runs the binary through `sh`, whose `printf` can put bytes that are not UTF-8 into an argument.
    func runWithRawArgument(_ cli: CLIHarness, _ before: [String], _ octalEscaped: String, _ after: [String] = []) throws -> CLIHarness.Run {
        let binary = try #require(CLIHarness.binary)
        let quoted = { (words: [String]) in words.map { "'\($0)'" }.joined(separator: " ") }
        let script = "exec \"$0\" \(quoted(before)) \"$(printf '\(octalEscaped)')\" \(quoted(after))"
        return try CLIHarness.process("/bin/sh", ["-c", script, binary.path], in: cli.directory)
    }

    @Test func argumentsThatAreNotUTF8AreRefusedByPosition() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let before = cli.bytes()
        let run = try runWithRawArgument(cli, ["add", "0"], "caf\\351")
        expectUnchanged(cli, before, run, status: 2, #"argument 3 ("caf\xE9") is not valid UTF-8 text"#)
        let json = try runWithRawArgument(cli, ["--json", "section", "rename", "0"], "\\377\\376x")
        expectUnchanged(cli, before, json, status: 2, #"argument 5 ("\xFF\xFEx") is not valid UTF-8"#)
        #expect((try CLIHarness.json(json.stdout)["status"] as? Int) == 2)
        let valid = try runWithRawArgument(cli, ["add", "0"], "caf\\303\\251")  // é in UTF-8
        #expect(valid.status == 0, "\(valid.stderr)")
    }

    @Test func aByteOrderMarkIsNotPartOfTheFirstTitle() throws {
        let cli = try CLIHarness()
        try cli.run(["section", "add", "A"])
        let run = try cli.run(["add", "0", "-"], stdin: Data([0xEF, 0xBB, 0xBF] + Array("Hello\r\nWorld\n".utf8)))
        #expect(run.status == 0, "\(run.stderr)")
        let every = try cli.run(["add", "--every-section", "-"], stdin: Data([0xEF, 0xBB, 0xBF] + Array("All\n".utf8)))
        #expect(every.status == 0, "\(every.stderr)")
        let shown = try cli.run(["export"]).stdout
        #expect(shown.contains(#""title":"Hello","#) && shown.contains(#""title":"All","#) && !shown.contains("\u{FEFF}"), "\(shown)")
    }

    /// Runs the binary with standard input connected to `device` (e.g. /dev/zero, which never ends).
    func runReading(_ device: String, _ cli: CLIHarness, _ arguments: [String]) throws -> CLIHarness.Run {
        let binary = try #require(CLIHarness.binary)
        return try CLIHarness.process("/bin/sh", ["-c", "exec \"$0\" \"$@\" < \(device)", binary.path] + arguments, in: cli.directory)
    }

    @Test func endlessStandardInputIsRefusedAtOnce() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let before = cli.bytes()
        expectUnchanged(cli, before, try runReading("/dev/zero", cli, ["import", "-", "--replace"]), "standard input has a NUL byte at byte 0")
        expectUnchanged(cli, before, try runReading("/dev/zero", cli, ["import", "/dev/zero", "--replace"]), "/dev/zero has a NUL byte at byte 0")
        expectUnchanged(cli, before, try runReading("/dev/zero", cli, ["add", "0", "-"]), "line 1 of standard input contains a NUL byte")
    }

    @Test func piecesLargerThanTheLimitAreRefusedSayingSo() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let before = cli.bytes()
        let huge = String(repeating: "a", count: InputLimits.maximumPiece + 1)
        let line = try cli.run(["add", "0", "-"], stdin: Data(("ok\n" + huge + "\n").utf8))
        expectUnchanged(cli, before, line, "line 2 of standard input is longer than 64 MiB")
        let title = try cli.run(["import", "-", "--replace"], stdin: Data(#"{"sections":[{"title":"\#(huge)"}]}"#.utf8))
        expectUnchanged(cli, before, title, "standard input: sections[0] has a \"title\" longer than 64 MiB")
        let payload = try cli.run(["import", "-", "--replace"], stdin: Data(#"{"sections":[{"title":"a","rows":[{"title":"b","payload":"\#(huge)"}]}]}"#.utf8))
        expectUnchanged(cli, before, payload, "sections[0].rows[0] has a \"payload\" longer than 64 MiB")
    }

    @Test func theReaderStopsJustPastItsLimitAndAtTheFirstNUL() throws {
        for (input, limit, expected) in [
            (Array(repeating: UInt8(ascii: "a"), count: 200_000), 100_000, 100_001),
            (Array(repeating: UInt8(ascii: "a"), count: 5_000), 100_000, 5_000),
            (Array("ab".utf8) + [0] + Array(repeating: UInt8(ascii: "c"), count: 90_000), 100_000, 3),
        ] {
            let temporary = try TemporaryDirectory()
            let path = temporary.path("input")
            try Data(input).write(to: URL(fileURLWithPath: path))
            let file = try #require(FileHandle(forReadingAtPath: path))
            defer { try? file.close() }
            let data = BoundedReader.read(descriptor: file.fileDescriptor, limit: limit)
            #expect(data.count == expected)
            #expect(Array(data) == Array(input.prefix(expected)))
        }
        #expect(
            InputLimits.tooLarge("standard input", "nothing was imported").description
                == "standard input is larger than 1 GiB, the most liststore reads; nothing was imported — split it into smaller parts")
    }

    @Test func aTenMegabyteTitleIsShownCut() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        try HandEditTests.sql(cli, "UPDATE rows SET title = hex(zeroblob(5000000)) WHERE id = 1; UPDATE rows SET title = replace(hex(zeroblob(1000000)), '0', '界') WHERE id = 2")
        for arguments in [["show"], ["show", "0"]] {
            let run = try cli.run(arguments)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.utf8.count < 5_000, "\(arguments): the titles are cut")
            #expect(run.stdout.contains("0:0  " + String(repeating: "0", count: 59) + "…"))
            #expect(run.stdout.contains("0:1  " + String(repeating: "界", count: 29) + "…"))
        }
        let json = try CLIHarness.json(try cli.run(["--json", "show", "0"]).stdout)
        #expect((HandEditTests.rows(json).first?["title"] as? String)?.utf8.count == 10_000_000)  // whole in JSON
    }

    @Test func usedUpIdsAreNamedNotReportedAsAFullDisk() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        try HandEditTests.sql(
            cli,
            """
            INSERT INTO rows (id, section_id, position, title) VALUES (9223372036854775807, 1,
                (SELECT coalesce(max(position), -1048576) + 1048576 FROM rows WHERE section_id = 1), 'last');
            """)
        let before = cli.bytes()
        for arguments in [["add", "0", "x"], ["add", "--every-section", "x"], ["--json", "add", "1", "x", "--at", "0"]] {
            let run = try cli.run(arguments)
            expectUnchanged(cli, before, run, "cannot add a row: the ids of table rows are used up")
            #expect(run.stderr.contains("UPDATE sqlite_sequence SET seq = (SELECT max(id) FROM rows) WHERE name = 'rows'"))
            #expect(!run.stderr.contains("disk"))
        }
        #expect(try cli.run(["section", "add", "S"]).status == 0)  // sections still have ids to give

        try HandEditTests.sql(cli, "INSERT INTO sections (id, position, title) VALUES (9223372036854775807, (SELECT count(*) FROM sections), 'far')")
        let full = cli.bytes()
        expectUnchanged(cli, full, try cli.run(["section", "add", "T"]), "cannot add a section: the ids of table sections are used up")

        // Following the advice makes room again.
        try HandEditTests.sql(
            cli,
            """
            UPDATE rows SET id = 1000 WHERE id = 9223372036854775807;
            UPDATE sqlite_sequence SET seq = (SELECT max(id) FROM rows) WHERE name = 'rows';
            """)
        #expect(try cli.run(["add", "0", "x"]).status == 0)

        // An import that runs out of ids says where.
        let copy = cli.directory.appendingPathComponent("copy.sqlite").path
        let document = #"{"sections":[{"title":"a","rows":[{"id":9223372036854775807,"title":"x"},{"title":"y"}]}]}"#
        let imported = try cli.run(["--db", copy, "import", "-"], stdin: Data(document.utf8))
        #expect(imported.status == 1)
        // ListStore's connections run without triggers (schema 7), so the failing INSERT has no statement journal
        // and SQLITE_FULL rolls back the whole transaction; the importer remembers that it gave the largest id.
        #expect(imported.stderr.contains("standard input: sections[0].rows[1]: cannot add a row: the ids of table rows are used up"), "\(imported.stderr)")
        #expect(imported.stderr.hasPrefix("error: ") && imported.stderr.split(separator: "\n").count == 1, "\(imported.stderr)")
        #expect(!FileManager.default.fileExists(atPath: copy))
    }
}
