import Foundation
import Testing

/// Bad input: a clear one-line error, the right exit status, and the database byte-for-byte unchanged.
@Suite struct BadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let status: Int32
        let message: String
        var stdin = ""
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let cases: [Case] = [
        Case(arguments: ["delete", "0:99"], status: 1, message: "row 0:99 does not exist: section 0 has 6 rows (0…5)"),
        Case(arguments: ["delete", "0:1", "9:0"], status: 1, message: "section 9 does not exist: the store has 3 sections (0…2)"),
        Case(arguments: ["delete", "-1:0"], status: 2, message: "\"-1:0\" is not an index path"),
        Case(arguments: ["delete", "0:-1"], status: 2, message: "\"0:-1\" is not an index path"),
        Case(arguments: ["delete", "0:x"], status: 2, message: "\"0:x\" is not an index path"),
        Case(arguments: ["delete", ":1"], status: 2, message: "\":1\" is not an index path"),
        Case(arguments: ["delete", "0:1", "2:3", "0:1"], status: 1, message: "index path 0:1 is given twice"),
        Case(arguments: ["delete"], status: 2, message: "delete is missing an argument"),
        Case(arguments: ["move", "0:0"], status: 2, message: "move is missing an argument"),
        Case(arguments: ["move", "0:0", "0:6"], status: 1, message: "cannot put a row at 0:6: in section 0 the row index must be 0…5"),
        Case(arguments: ["show", "7"], status: 1, message: "section 7 does not exist"),
        Case(arguments: ["show", "x"], status: 2, message: "SECTION must be a non-negative whole number"),
        Case(arguments: ["section", "delete", "1", "5"], status: 1, message: "section 5 does not exist"),
        Case(arguments: ["section", "move", "0", "3"], status: 1, message: "section 3 does not exist"),
        Case(arguments: ["section", "add", "X", "--at", "9"], status: 1, message: "cannot insert a section at 9"),
        Case(arguments: ["section", "frobnicate"], status: 2, message: "unknown subcommand \"frobnicate\" of section"),
        Case(arguments: ["section"], status: 2, message: "section needs a subcommand"),
        Case(arguments: ["add", "9", "x"], status: 1, message: "section 9 does not exist"),
        Case(arguments: ["add", "0", "x", "--at", "7"], status: 1, message: "cannot put a row at 0:7"),
        Case(arguments: ["add", "0", ""], status: 1, message: "invalid title \"\": a title cannot be empty"),
        Case(arguments: ["add", "0", "ok", "--payload", "{bad"], status: 1, message: "--payload is not valid JSON"),
        Case(arguments: ["add", "0"], status: 2, message: "add needs a SECTION and at least one TITLE"),
        Case(arguments: ["add", "0", "x", "--colour", "red"], status: 2, message: "add has no option \"--colour\""),
        Case(arguments: ["add", "0", "x", "--at"], status: 2, message: "--at needs a value"),
        Case(arguments: ["add", "--every-section"], status: 2, message: "add is missing an argument"),
        Case(arguments: ["add", "0", "-"], status: 1, message: "standard input had no titles", stdin: "\n\n"),
        Case(arguments: ["edit", "0:0"], status: 2, message: "edit needs --title and/or --payload"),
        Case(arguments: ["edit", "5:0", "--title", "x"], status: 1, message: "section 5 does not exist"),
        Case(arguments: ["edit", "0:0", "--payload", "[1,"], status: 1, message: "--payload is not valid JSON"),
        Case(arguments: ["frobnicate"], status: 2, message: "unknown command \"frobnicate\""),
        Case(arguments: [], status: 2, message: "no command given"),
        Case(arguments: ["--db"], status: 2, message: "--db needs a PATH"),
        Case(arguments: ["--verbose", "show"], status: 2, message: "unknown option \"--verbose\""),
        Case(arguments: ["import", "missing.json"], status: 1, message: "cannot read missing.json"),
        Case(arguments: ["import", "-"], status: 1, message: "standard input is not valid JSON", stdin: "{\"sections\": [}"),
        Case(arguments: ["import", "-", "--replace"], status: 1, message: "sections[0] has an unknown member \"titel\"", stdin: "{\"sections\":[{\"titel\":\"x\"}]}"),
        Case(arguments: ["import", "-"], status: 1, message: "the store is not empty", stdin: "{\"sections\":[]}"),
        Case(
            arguments: ["import", "-", "--replace"], status: 1, message: "is given twice",
            stdin: "{\"sections\":[{\"title\":\"a\",\"rows\":[{\"id\":1,\"title\":\"x\"},{\"id\":1,\"title\":\"y\"}]}]}"),
        Case(arguments: ["import", "-", "--replace"], status: 1, message: "nested deeper than", stdin: String(repeating: "[", count: 5000)),
        Case(arguments: ["add", "0", "'; DROP TABLE rows; --", "--at", "99"], status: 1, message: "cannot put a row at 0:99"),
    ]

    @Test(arguments: cases)
    func refusedWithAClearErrorAndNothingChanged(_ badCase: Case) throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let dump = try cli.dump()
        let bytes = try #require(cli.bytes())
        for json in [false, true] {
            let run = try cli.run((json ? ["--json"] : []) + badCase.arguments, stdin: Data(badCase.stdin.utf8))
            #expect(run.status == badCase.status, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("error: "))
            #expect(run.stderr.contains(badCase.message), "\(run.stderr)")
            #expect(run.stderr.filter { $0 == "\n" }.count == 1, "one line: \(run.stderr)")
            if json {
                let error = try CLIHarness.json(run.stdout)
                #expect((error["error"] as? String)?.contains(badCase.message) == true)
            } else {
                #expect(run.stdout.isEmpty)
            }
        }
        #expect(try cli.dump() == dump)
        #expect(cli.bytes() == bytes)
    }

    @Test func aMissingDatabaseFolderIsReportedAndNothingIsCreated() throws {
        let cli = try CLIHarness()
        let run = try cli.run(["--db", "no/such/folder/lists.sqlite", "init"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("the folder no/such/folder does not exist"))
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("no").path))
    }

    @Test func pathsThatAreFoldersOrMissAFolder() throws {
        let cli = try CLIHarness()
        try FileManager.default.createDirectory(at: cli.directory.appendingPathComponent("d"), withIntermediateDirectories: true)
        for arguments in [["--db", "d", "init"], ["--db", "d", "show"], ["--db", "d", "check"], ["--db", cli.directory.path, "add", "0", "x"]] {
            let run = try cli.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.contains("is a folder, not a database file"), "\(arguments): \(run.stderr)")
        }
        // A one-letter relative path (this once crashed Foundation's path functions).
        #expect(try cli.run(["--db", "x", "init"], process: true).status == 0)  // the path as typed reaches the library
        try cli.run(["demo"])
        let export = try cli.run(["export", "missing/out.json"])
        #expect(export.status == 1)
        #expect(export.stderr.contains("the folder missing does not exist"))
        let folder = try cli.run(["import", "d"])
        #expect(folder.status == 1)
        #expect(folder.stderr.contains("it is a folder"))
    }

    @Test func anImportDocumentMayStartWithAByteOrderMark() throws {
        let cli = try CLIHarness()
        let run = try cli.run(["import", "-"], stdin: Data([0xEF, 0xBB, 0xBF] + Array("{\"sections\":[{\"title\":\"A\"}]}".utf8)))
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func aFailedFirstCommandLeavesNoNewFileBehind() throws {
        let cli = try CLIHarness()
        let run = try cli.run(["add", "0", "x"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("section 0 does not exist: the store has 0 sections"))
        #expect(!FileManager.default.fileExists(atPath: cli.database))
    }

    @Test func filesThatAreNotListStoresAreRefusedAndUntouched() throws {
        let cli = try CLIHarness()
        let text = cli.directory.appendingPathComponent("notes.txt")
        try Data("shopping: milk, eggs\n".utf8).write(to: text)
        let other = cli.directory.appendingPathComponent("other.sqlite").path
        let made = try CLIHarness.process("/usr/bin/env", ["sqlite3", other, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada');"], in: cli.directory)
        try #require(made.status == 0)
        for path in [text.path, other] {
            let before = try #require(cli.bytes(path))
            for arguments in [["init"], ["show"], ["add", "0", "x"], ["import", "-"]] {
                let run = try cli.run(["--db", path] + arguments, stdin: Data("{\"sections\":[]}".utf8))
                #expect(run.status == 1)
                #expect(run.stderr.contains("is not a ListStore database"), "\(run.stderr)")
                #expect(cli.bytes(path) == before)
            }
        }
    }

    @Test func aReadOnlyDatabaseAllowsReadsAndRefusesWritesCleanly() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        // Root ignores file permissions, so run as an unprivileged user where we are root.
        let user: Int? = getuid() == 0 ? 65534 : nil
        let attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o755]
        try FileManager.default.setAttributes(attributes, ofItemAtPath: cli.directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: cli.database)
        let before = try #require(cli.bytes())
        let show = try cli.run(["show", "2"], asUser: user)
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("2:0  Argentina"))
        let write = try cli.run(["delete", "2:0"], asUser: user)
        #expect(write.status == 1)
        #expect(write.stderr.hasPrefix("error: "))
        #expect(write.stderr.contains("read-only") || write.stderr.contains("cannot write"), "\(write.stderr)")
        #expect(cli.bytes() == before)
    }
}
