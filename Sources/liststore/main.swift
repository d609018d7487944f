import Foundation
import ListStoreCLI

let result = CLI.run(Array(CommandLine.arguments.dropFirst()), environment: .process)
FileHandle.standardOutput.write(Data(result.output.utf8))
FileHandle.standardError.write(Data(result.error.utf8))
exit(result.status)
