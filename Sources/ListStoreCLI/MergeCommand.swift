import Foundation
import ListStore

/// `merge PEER_FILE`: merges another copy of the list into the database (``ListStore/merge(from:)``).
enum MergeCommand {
    /// The other copy.
    static let peer = Argument("PEER_FILE")

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let store = try context.openExistingForWriting()
        let changes = try store.merge(from: URL(fileURLWithPath: context.file(command[peer])))
        return try mutationOutput(changes, store)
    }
}
