import Foundation
import ListStore

/// The `liststore` program: parses a command line, runs it against the repository API and renders
/// the result. It never talks to SQLite itself.
package enum CLI {
    /// The program's version.
    package static let version = "0.1.0"

    /// What a run printed and how it ended.
    package struct Result: Sendable, Equatable {
        /// Exit status: 0 success, 1 the operation failed, 2 usage error.
        package var status: Int32
        /// Standard output.
        package var output: String
        /// Standard error.
        package var error: String
    }

    /// Runs this process's own command line, with standard input read within the CLI's size limits
    /// (see `InputLimits`): what `main` calls, before ``deliver(_:output:error:)``.
    ///
    /// It first ignores two signals whose default is to kill the process without a word: `SIGXFSZ`, so a
    /// write past the file size limit (`ulimit -f`) fails with `EFBIG` and is reported like a full disk,
    /// and `SIGPIPE`, so a reader that closed standard output early (`| head`) is seen as `EPIPE` and
    /// liststore stops writing quietly (see ``StandardOutputClosed``).
    package static func runProcess() -> Result {
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        var environment = CLIEnvironment.process
        environment.readStandardInput = BoundedReader.readStandardInput
        let arguments = (1..<Int(CommandLine.argc)).map { index -> [UInt8] in
            guard let argument = CommandLine.unsafeArgv[index] else { return [] }
            return Array(UnsafeBufferPointer(start: argument, count: strlen(argument))).map { UInt8(bitPattern: $0) }
        }
        return run(rawArguments: arguments, environment: environment)
    }

    /// Runs a command line given as the bytes of its arguments (without the program name). An argument
    /// that is not UTF-8 is refused (usage error) rather than read with its bad bytes replaced by U+FFFD,
    /// which would store, or look for, different text than the one typed.
    package static func run(rawArguments: [[UInt8]], environment: CLIEnvironment) -> Result {
        var arguments: [String] = []
        for (index, bytes) in rawArguments.enumerated() {
            guard let argument = String(strictUTF8: bytes) else {
                return failure(
                    status: 2,
                    message: "argument \(index + 1) (\(ArgumentBytes.shown(bytes))) is not valid UTF-8 text; "
                        + "pass it in UTF-8 (check the encoding of your terminal or script) (see `liststore --help`)",
                    json: rawArguments.contains(Array("--json".utf8)))
            }
            arguments.append(argument)
        }
        return run(arguments, environment: environment)
    }

    /// Runs one command line (without the program name).
    package static func run(_ arguments: [String], environment: CLIEnvironment) -> Result {
        let parser = CommandLineParser(commands: Commands.all)
        let wantsJSON = arguments.contains("--json")  // known even when parsing fails
        let invocation: Invocation
        let globals: GlobalOptions
        do {
            (invocation, globals) = try parser.parse(arguments)
        } catch {
            return failure(status: 2, message: "\(error)", json: wantsJSON)
        }
        switch invocation {
        case .version:
            return Result(status: 0, output: "liststore \(version) (schema version \(ListStore.schemaVersion))\n", error: "")
        case .help(let spec):
            return Result(status: 0, output: (spec?.help ?? Commands.programHelp) + "\n", error: "")
        case .groupHelp(let group):
            return Result(status: 0, output: Commands.groupHelp(group) + "\n", error: "")
        case .command(let command):
            let collected = Locked("")
            let write = environment.writeOutput ?? { text in collected.withLock { $0 += text } }
            let context = CommandContext(globals: globals, environment: environment, write: write)
            do {
                let output = try command.spec.run(command, context)
                if output.streamed { return Result(status: 0, output: collected.withLock { $0 }, error: "") }
                return Result(status: 0, output: (globals.json ? output.json.serialized() : output.human) + "\n", error: "")
            } catch is StandardOutputClosed {
                return Result(status: 0, output: "", error: "")  // the reader wanted no more: not an error
            } catch let failed as CheckFailed {
                let output = globals.json ? failed.json.serialized() + "\n" : failed.lines.joined(separator: "\n") + "\n"
                return Result(status: 1, output: output, error: "error: \(failed.description)\n")
            } catch {
                return failure(status: error is UsageError ? 2 : 1, message: CLIAdvice.message(for: error), json: globals.json)
            }
        }
    }

    /// Writes a run's output and error to the given descriptors (the process's own by default) and
    /// returns the exit status. A failed write to standard output is one more `error:` line and exit 1,
    /// unless the reader closed it (`EPIPE`): then it is quiet and the status stays as it was.
    package static func deliver(_ result: Result, output: Int32 = STDOUT_FILENO, error: Int32 = STDERR_FILENO) -> Int32 {
        var status = result.status
        var errorText = result.error
        do {
            try DescriptorWriter(descriptor: output).write(result.output)
        } catch let failure as DescriptorWriter.Failure where failure.code != EPIPE && status == 0 {
            errorText += "error: could not write to standard output: \(failure.reason); the command itself completed, only its output was lost\n"
            status = 1
        } catch {}  // a closed pipe, or a run that already failed and said why
        try? DescriptorWriter(descriptor: error).write(errorText)
        return status
    }

    private static func failure(status: Int32, message: String, json: Bool) -> Result {
        let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        let output = json ? JSONValue.object([("error", .string(line)), ("status", .int(status))]).serialized() + "\n" : ""
        return Result(status: status, output: output, error: "error: \(line)\n")
    }
}
