import Foundation
import ListStore
import StoreShorthands
import Testing

/// Writes that fail: a full standard output, a closed pipe, a full disk or the file size limit under
/// `export`, `import`, `add`, and FIFOs and devices as export targets. Each ends in one `error:` line
/// and exit 1 (or, for a reader that closed the pipe, quietly with exit 0), never in a runtime trap or a
/// signal, and leaves no file or temporary behind.
@Suite struct OutputFailureTests {
    static func devFull() throws -> FileHandle {
        try #require(FileHandle(forWritingAtPath: "/dev/full"), "/dev/full is needed")
    }

    // MARK: The same through the binary (the old code trapped: exit 132)

    @Test func theBinaryReportsAFullStandardOutput() throws {
        let cli = try CLIHarness()
        try FileSystemFaults.makeStore(at: cli.database, sections: 1, rows: 3)
        let full = try Self.devFull()
        defer { try? full.close() }
        for (arguments, message) in [(["show"], "the output is incomplete"), (["--json", "show", "0"], "the command itself completed, only its output was lost")] {
            let run = try FileSystemFaults.run(arguments, in: cli.directory, output: full)
            #expect(run.reason == .exit && run.status == 1, "\(arguments): \(run.reason) \(run.status)")
            #expect(run.stderr == "error: could not write to standard output: the disk is full; \(message)\n", "\(arguments)")
        }
    }

    @Test func aFullStandardErrorIsNoCrash() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let run = try CLIHarness.process("/bin/sh", ["-c", "exec \"$0\" nonsense 2>/dev/full", binary.path], in: cli.directory)
        #expect(run.status == 2, "a usage error, reported where it can be: \(run.status)")
    }

    // MARK: A reader that closes the pipe early (the old code died of SIGPIPE: exit 141)

    @Test func aClosedPipeEndsTheCommandQuietlyWithStatusZero() throws {
        let cli = try CLIHarness()
        try FileSystemFaults.makeStore(at: cli.database, sections: 3, rows: 3_000)  // far more than a pipe holds
        for arguments in [["show"], ["export"], ["--json", "show"]] {
            let pipe = Pipe()
            let reader = pipe.fileHandleForReading
            // The reader takes a little and goes away, as `head -c 100` does.
            let taken = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = try? reader.read(upToCount: 100)
                try? reader.close()
                taken.signal()
            }
            let run = try FileSystemFaults.run(arguments, in: cli.directory, output: pipe.fileHandleForWriting)
            try? pipe.fileHandleForWriting.close()
            #expect(taken.wait(timeout: .now() + 60) == .success)
            #expect(run.reason == .exit && run.status == 0, "\(arguments): \(run.reason) \(run.status)")
            #expect(run.stderr == "", "no error for a reader that closed early: \(run.stderr)")
        }
    }

    @Test func watchEndsQuietlyWhenItsReaderGoesAway() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let binary = try #require(CLIHarness.binary)
        let output = Pipe()
        let errors = Pipe()
        let process = Process()
        process.executableURL = binary
        process.arguments = ["watch"]
        process.currentDirectoryURL = cli.directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output.fileHandleForWriting
        process.standardError = errors.fileHandleForWriting
        try process.run()
        defer {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
        try output.fileHandleForWriting.close()
        try errors.fileHandleForWriting.close()
        try output.fileHandleForReading.close()  // the reader is gone before the first change
        // Changes until watch tries to write one and finds no reader (bounded: 60 s).
        let deadline = Date().addingTimeInterval(60)
        var edits = 0
        while process.isRunning && Date() < deadline {
            try cli.run(["add", "0", "change \(edits)"])
            edits += 1
            usleep(200_000)
        }
        try #require(!process.isRunning, "watch still ran after \(edits) changes without a reader")
        process.waitUntilExit()
        #expect(
            process.terminationReason == .exit && process.terminationStatus == 0,
            "\(process.terminationReason) \(process.terminationStatus)")
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!stderr.contains("error"), "\(stderr)")
    }

    @Test func aPipeReadToTheEndGetsEverything() throws {
        let cli = try CLIHarness()
        try FileSystemFaults.makeStore(at: cli.database, sections: 3, rows: 3_000)
        let pipe = Pipe()
        let received = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var data = Data()
        DispatchQueue.global().async {
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            received.signal()
        }
        let run = try FileSystemFaults.run(["export"], in: cli.directory, output: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        #expect(received.wait(timeout: .now() + 60) == .success)
        #expect(run.reason == .exit && run.status == 0)
        #expect(data == Data(try cli.run(["export"]).stdout.utf8))
    }

    // MARK: The file size limit (the old code died of SIGXFSZ: exit 153)

    @Test func theFileSizeLimitIsOneErrorLineForImportAddAndExport() throws {
        let cli = try CLIHarness()
        try FileSystemFaults.makeStore(at: cli.database)  // about 270 KB, its export about 190 KB
        let document = cli.directory.appendingPathComponent("doc.json").path
        try Data(try cli.run(["export"]).stdout.utf8).write(to: URL(fileURLWithPath: document))
        let before = try cli.dump()
        let limit = "the file size limit (ulimit -f) of 51200 bytes was reached"
        let cases: [([String], String)] = [
            (["export", "out.json"], "error: cannot write out.json: \(limit); nothing was changed (out.json is as it was) — raise the limit (ulimit -f) and try again\n"),
            (["--db", "new.sqlite", "import", "doc.json"], "error: \(limit) (disk I/O error); nothing was changed — raise the limit (ulimit -f) and try again\n"),
            (
                ["add", "0", "big", "--payload", "\"" + String(repeating: "y", count: 80_000) + "\""],
                "error: \(limit) (disk I/O error); nothing was changed — raise the limit (ulimit -f) and try again\n"
            ),
        ]
        for (arguments, message) in cases {
            let run = try FileSystemFaults.runLimited(blocks: 100, arguments, in: cli.directory)  // 50 KiB
            #expect(run.status == 1, "\(arguments.prefix(3)): killed by SIGXFSZ? \(run.status)")
            #expect(run.stderr == message, "\(arguments.prefix(3))")
        }
        #expect(try cli.dump() == before)
        #expect(
            FileSystemFaults.names(in: cli.directory.path).filter { !$0.hasPrefix("liststore.sqlite") } == ["doc.json"],
            "no export, no new database, no temporary")
        // The same commands under a limit they fit in.
        for arguments in cases.map(\.0) {
            let run = try FileSystemFaults.runLimited(blocks: 8_000, arguments, in: cli.directory)
            #expect(run.status == 0, "\(arguments.prefix(3)): \(run.stderr)")
        }
    }

    // MARK: A full disk under export (the old code trapped and left its temporary)

    @Test(.enabled(if: FileSystemFaults.canMountTmpfs, "needs root to mount a small tmpfs"))
    func exportToAFullDiskLeavesTheDestinationAndNoTemporary() throws {
        let cli = try CLIHarness()
        try FileSystemFaults.makeStore(at: cli.database)  // its export is about 190 KB
        let small = try FileSystemFaults.mountTmpfs(in: cli.directory, kilobytes: 128)
        defer { FileSystemFaults.unmount(small) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: small + "/lists.json"))
        let run = try cli.run(["export", "small/lists.json"])
        #expect(run.status == 1)
        #expect(run.stderr == "error: cannot write small/lists.json: the disk is full; nothing was changed (small/lists.json is as it was) — free some space and try again\n")
        #expect(FileSystemFaults.names(in: small) == ["lists.json"], "no temporary left")
        #expect(FileManager.default.contents(atPath: small + "/lists.json") == Data("old".utf8))
        // Where there is room, the same export replaces it.
        let large = try FileSystemFaults.mountTmpfs(in: cli.directory, name: "large", kilobytes: 1_024)
        defer { FileSystemFaults.unmount(large) }
        let fits = try cli.run(["export", "large/lists.json"])
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(FileSystemFaults.names(in: large) == ["lists.json"])
    }

    // MARK: FIFOs and devices as export targets

    @Test func exportRefusesAFIFOAndADeviceAndLeavesThem() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let fifo = cli.directory.appendingPathComponent("pipe").path
        try #require(mkfifo(fifo, 0o644) == 0)
        var targets = ["pipe": "a FIFO (named pipe)"]
        let device = cli.directory.appendingPathComponent("null").path
        if mknod(device, S_IFCHR | 0o666, (1 << 8) | 3) == 0 { targets["null"] = "a character device" }  // needs root
        for (name, kind) in targets {
            let run = try cli.run(["export", name])
            #expect(run.status == 1)
            #expect(
                run.stderr
                    == "error: cannot write \(name): it is \(kind), and export FILE writes a whole new file in its place; to write the document into it, use `liststore export - > \(name)`\n"
            )
            var info = stat()
            #expect(stat(cli.directory.appendingPathComponent(name).path, &info) == 0 && info.st_mode & S_IFMT != S_IFREG, "\(name) is still what it was")
        }
        #expect(FileSystemFaults.names(in: cli.directory.path).filter { !$0.hasPrefix("liststore.sqlite") } == targets.keys.sorted())
    }
}
