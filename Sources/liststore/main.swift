import Foundation
import ListStoreCLI

let result = CLI.runProcess()
FileHandle.standardOutput.write(Data(result.output.utf8))
FileHandle.standardError.write(Data(result.error.utf8))
exit(result.status)
