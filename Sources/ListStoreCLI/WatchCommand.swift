import Foundation
import ListStore

/// `watch`: one line per committed change, from any process or the `sqlite3` shell, until interrupted.
enum WatchCommand {
    /// How often the database is checked for commits by other connections.
    static let pollInterval: Duration = .milliseconds(100)

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let limit = try command.values["--count"].map { try command.parseIndex($0, "--count value") }
        if limit == 0 { return .streamed }
        let store = try context.openForReading()
        let stream = store.changes(includingOtherConnections: true, pollInterval: pollInterval)
        let write = context.write
        let json = context.json
        context.environment.writeProgress("watching \(context.databasePath) for changes (Ctrl-C to stop)\n")
        let finished = DispatchSemaphore(value: 0)
        let reader = Task {
            var delivered = 0
            for await changes in stream {
                let line = json
                    ? JSONValue.object([("changes", JSONShapes.changes(changes))]).serialized()
                    : "\(timestamp()) " + HumanText.changes(changes).split(separator: "\n").joined(separator: "; ")
                write(line + "\n")
                delivered += 1
                if let limit, delivered >= limit { break }
            }
            finished.signal()
        }
        finished.wait()
        reader.cancel()
        return .streamed
    }

    private static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter.string(from: Date())
    }
}
