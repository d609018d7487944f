import Foundation

@testable import ListStoreCLI

/// Runs the CLI in this process, through its entry point, with `stdin` as standard input.
func runInProcess(_ arguments: [String], stdin: Data = Data()) -> CLI.Result {
    CLI.run(
        arguments,
        environment: CLIEnvironment(
            variables: [:], readStandardInput: { stdin }, standardErrorIsTerminal: false,
            writeProgress: { _ in }))
}

/// `text` written to a new file in `directory`, for commands that read a file (`batch` reads standard
/// input from the process's own descriptor, which in-process runs cannot feed).
func inputFile(_ text: String, in directory: TemporaryDirectory, named name: String = "input.txt") throws -> String {
    let path = directory.path(name)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
}
