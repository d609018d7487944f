import Foundation
import ListStore
import StoreShorthands
import Testing

@testable import ListStoreCLI

/// The one writer of standard output, in process: a failed write (here `/dev/full`) ends a streamed
/// command, or the delivery of a finished one, in one `error:` line and exit 1; a writable output gets
/// every byte. (The same through the binary, and closed pipes, are in ``OutputFailureTests``.)
@Suite struct OutputWriterTests {
    static func environment(output: Int32) -> CLIEnvironment {
        CLIEnvironment(
            variables: [:], readStandardInput: { Data() }, standardErrorIsTerminal: false, writeProgress: { _ in },
            writeOutput: { try StandardOutput(descriptor: output).write($0) })
    }

    static func devFull() throws -> FileHandle {
        try #require(FileHandle(forWritingAtPath: "/dev/full"), "/dev/full is needed")
    }

    @Test func aStreamedListingToAFullOutputIsOneErrorLine() throws {
        let directory = try TemporaryDirectory(prefix: "output-full")
        let path = directory.path("lists.sqlite")
        try FileSystemFaults.makeStore(at: path)
        let full = try Self.devFull()
        defer { try? full.close() }
        for arguments in [["show"], ["show", "0"], ["--json", "show"], ["export"], ["export", "-"]] {
            let result = CLI.run(["--db", path] + arguments, environment: Self.environment(output: full.fileDescriptor))
            #expect(result.status == 1, "\(arguments)")
            #expect(result.error == "error: could not write to standard output: the disk is full; the output is incomplete\n", "\(arguments)")
        }
    }

    @Test func aResultToAFullOutputIsOneErrorLineAndTheEditStands() throws {
        let directory = try TemporaryDirectory(prefix: "output-full")
        let path = directory.path("lists.sqlite")
        try FileSystemFaults.makeStore(at: path, sections: 1, rows: 3)
        let full = try Self.devFull()
        defer { try? full.close() }
        let errors = try TemporaryDirectory(prefix: "output-full-err")
        let errorPath = errors.path("err")
        try Data().write(to: URL(fileURLWithPath: errorPath))
        let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer { try? errorHandle.close() }
        let result = CLI.run(["--db", path, "add", "0", "new row"], environment: Self.environment(output: full.fileDescriptor))
        #expect(result.status == 0)
        let status = CLI.deliver(result, output: full.fileDescriptor, error: errorHandle.fileDescriptor)
        #expect(status == 1)
        #expect(
            String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self)
                == "error: could not write to standard output: the disk is full; the command itself completed, only its output was lost\n")
        #expect(try ListStore.open(at: path, mode: .readOnly).rows(inSection: 0).last?.title == "new row")
    }

    @Test func aWritableOutputGetsEverything() throws {
        let directory = try TemporaryDirectory(prefix: "output-ok")
        let path = directory.path("lists.sqlite")
        try FileSystemFaults.makeStore(at: path, sections: 2, rows: 2_000)
        let outputPath = directory.path("out.txt")
        try Data().write(to: URL(fileURLWithPath: outputPath))
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        defer { try? output.close() }
        let result = CLI.run(["--db", path, "show"], environment: Self.environment(output: output.fileDescriptor))
        #expect(result.status == 0, "\(result.error)")
        let collected = CLI.run(
            ["--db", path, "show"],
            environment: CLIEnvironment(
                variables: [:], readStandardInput: { Data() },
                standardErrorIsTerminal: false, writeProgress: { _ in }))
        #expect(FileManager.default.contents(atPath: outputPath) == Data(collected.output.utf8))
    }
}
