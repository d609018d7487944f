import Foundation
import ListStoreCLI

exit(CLI.deliver(CLI.runProcess()))
