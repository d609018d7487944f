import Foundation
import Testing

/// The harness's own bounds: a process that hangs fails its test instead of hanging the suite.
@Suite struct HarnessTests {
    @Test func aProcessThatOutlivesItsTimeoutIsKilledAndReported() throws {
        let cli = try CLIHarness()
        let started = Date()
        let error = try #require(throws: CLIHarness.TimedOut.self) {
            try CLIHarness.process("/bin/sleep", ["600"], in: cli.directory, timeout: 0.5)
        }
        #expect(error.description.hasPrefix("/bin/sleep 600 still ran after"))
        // Killed, not waited for: far less than the 600 s it asked for, however loaded the machine.
        #expect(Date().timeIntervalSince(started) < 300)
    }

    @Test func aProcessThatEndsInTimeGivesItsStatusAndOutput() throws {
        let cli = try CLIHarness()
        let run = try CLIHarness.process("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], in: cli.directory, timeout: 120)
        #expect(run.status == 3)
        #expect(run.stdout == "out\n")
        #expect(run.stderr == "err\n")
    }
}

/// The in-process runner gives what the binary gives: the same status, standard output and standard
/// error for the same command lines, standard input and environment, in the same folder.
@Suite struct InProcessHarnessTests {
    struct Step {
        let arguments: [String]
        var stdin = ""
        var environment: [String: String] = [:]
    }

    /// Every kind of input and output the CLI has: relative paths (the default database, --db, files read
    /// and written, LISTSTORE_DB), standard input for add, import and batch, streamed and collected output,
    /// exit statuses 0, 1 and 2, --json errors.
    static func steps(_ unique: String) -> [Step] {
        [
            Step(arguments: ["show"]), Step(arguments: ["init"]), Step(arguments: ["demo"]), Step(arguments: ["show"]),
            Step(arguments: ["--json", "show", "1"]), Step(arguments: ["add", "0", "-"], stdin: "from\r\nstandard input\n"),
            Step(arguments: ["batch"], stdin: "add 1 x\nsection add 'B b'\n"), Step(arguments: ["--json", "batch", "-"], stdin: "delete 1:0\n"),
            Step(arguments: ["batch"], stdin: "add 0 x\ndelete 9:9\n"), Step(arguments: ["export", "\(unique).json"]),
            Step(arguments: ["--db", "copy.sqlite", "import", "\(unique).json"]), Step(arguments: ["import", "-", "--replace"], stdin: "{\"sections\":[{\"title\":\"A\"}]}"),
            Step(arguments: ["show"], environment: ["LISTSTORE_DB": "copy.sqlite"]), Step(arguments: ["backup", "\(unique).sqlite"]),
            Step(arguments: ["--db", "\(unique).sqlite", "check"]), Step(arguments: ["--db", "no/such/folder/x.sqlite", "init"]),
            Step(arguments: ["show", "9"]), Step(arguments: ["--json", "show", "9"]), Step(arguments: ["frobnicate"]), Step(arguments: ["--json", "add"]),
            Step(arguments: ["import", "missing.json"]), Step(arguments: ["batch", "missing.txt"]), Step(arguments: ["export", "missing/out.json"]),
            Step(arguments: ["--version"]), Step(arguments: ["add", "--help"]),
        ]
    }

    @Test func aRunInThisProcessGivesWhatTheBinaryGives() throws {
        let inProcess = try CLIHarness()
        let binary = try CLIHarness()
        let unique = "harness-\(UUID().uuidString)"
        let workingDirectory = FileManager.default.currentDirectoryPath
        for step in Self.steps(unique) {
            let ours = try inProcess.run(step.arguments, stdin: Data(step.stdin.utf8), environment: step.environment)
            let theirs = try binary.run(step.arguments, stdin: Data(step.stdin.utf8), environment: step.environment, process: true)
            #expect(ours.status == theirs.status, "\(step.arguments)")
            #expect(ours.stdout == theirs.stdout, "\(step.arguments)")
            #expect(ours.stderr == theirs.stderr, "\(step.arguments)")
        }
        let files = { (cli: CLIHarness) in try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).sorted() }
        #expect(try files(inProcess) == files(binary))
        #expect(try files(inProcess).contains("\(unique).json"), "relative paths are the harness directory's")
        // The same file content, but for the file's identity. The change log's entries are compared parsed: the order of the keys in
        // their JSON changes from process to process (Swift's hashing is seeded per process).
        func content(_ cli: CLIHarness) throws -> (lines: [Substring], log: [NSDictionary]) {
            let lines = try cli.dump().split(separator: "\n")
            let isLog = { (line: Substring) in line.hasPrefix("INSERT INTO liststore_log VALUES(") }
            let log = try lines.filter(isLog).map { line -> NSDictionary in
                guard let start = line.firstRange(of: "'[")?.lowerBound else { return ["line": line] }  // no events
                let events = line[line.index(after: start)...].dropLast(3)  // less `');`
                return ["line": line[..<start], "events": try JSONSerialization.jsonObject(with: Data(events.utf8))]
            }
            // Every file has a random identity of its own (schema version 4), and is claimed as a replica by its own
            // device, inode and lineage (schema 14); their presence is compared.
            // Merge stamps (schemas 15, 16) count quarter milliseconds: the order keys holding them, the stamps and
            // the clock are compared as present.
            let identity = "INSERT INTO sqlite_sequence VALUES('liststore_file_identity',"
            let replica = "INSERT INTO liststore_replica VALUES(1,0,"
            let rest = lines.filter { !isLog($0) }.map {
                $0.hasPrefix(identity) ? Substring(identity + "…);") : $0.hasPrefix(replica) ? Substring(replica + "…);") : $0
            }.map {
                Substring($0.replacing(/X'[0-9A-Fa-f]+'/, with: "X'…'").replacing(/[0-9]{12,}/, with: "…"))
            }
            return (rest, log)
        }
        let (ours, theirs) = (try content(inProcess), try content(binary))
        let differing = zip(ours.lines, theirs.lines).first { $0 != $1 }.map { "\($0.0)\n\($0.1)" } ?? "\(ours.lines.count) and \(theirs.lines.count) lines"
        #expect(ours.lines == theirs.lines, "\(differing)")
        #expect(ours.log == theirs.log)
        #expect(!ours.log.isEmpty)
        for name in ["\(unique).json", "\(unique).sqlite"] {
            #expect(!FileManager.default.fileExists(atPath: "\(workingDirectory)/\(name)"), "\(name) was written to the test process's folder")
        }
        #expect(FileManager.default.currentDirectoryPath == workingDirectory)
    }

    @Test func aRunInThisProcessThatHangsFailsItsTestInTime() throws {
        let cli = try CLIHarness()
        try #require(try cli.run(["demo"]).status == 0)
        let started = Date()
        let error = try #require(throws: CLIHarness.TimedOut.self) {
            try cli.runInProcess(["watch", "--count", "1"], timeout: 1)  // waits for a change that has not come
        }
        #expect(error.description.hasPrefix("liststore (in process) watch --count 1 still ran after 1 s and was left running"))
        #expect(Date().timeIntervalSince(started) < 120)
        // Let the watch that was left running end: one of these changes arrives once it is watching.
        for index in 0..<10 {
            try #require(try cli.run(["add", "0", "seen \(index)"]).status == 0)
            usleep(200_000)
        }
    }
}
