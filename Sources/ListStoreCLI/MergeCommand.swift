import Foundation
import ListStore

/// `merge PEER_FILE`: merges another copy of the list into the database (``ListStore/merge(from:)``).
enum MergeCommand {
    /// The other copy.
    static let peer = Argument("PEER_FILE")

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let store = try context.openExistingForWriting()
        let listsBefore = try store.lists()
        let changes = try store.merge(from: URL(fileURLWithPath: context.file(command[peer])))
        let output = try mutationOutput(changes, store)
        // The other lists' changes are not this list's change set: their summary, when it changed.
        let listsAfter = try store.lists()
        guard listsAfter != listsBefore, case .object(let members) = output.json else { return output }
        return CommandOutput(
            human: "this list: " + output.human + "\nlists now " + ListCommands.text(listsAfter), json: .object(members + [("lists", .array(listsAfter.map(ListCommands.json)))]))
    }
}
