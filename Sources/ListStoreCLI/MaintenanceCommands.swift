import Foundation
import ListStore

/// `check`, `repair`, `backup`.
enum MaintenanceCommands {
    @Sendable static func check(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        guard context.databaseExists else { throw context.missingDatabase }
        try context.refuseDirectory()
        let store = try ListStore.open(at: context.databasePath, mode: .inspect)
        let problems: [String]
        do {
            problems = try store.checkInvariants().map(\.description)
        } catch let error as ListStoreError {
            problems = ["the file cannot be read: \(error)"]
        }
        let json = JSONValue.object([("ok", .bool(problems.isEmpty)), ("problems", .array(problems.map(JSONValue.string)))])
        guard problems.isEmpty else {
            throw CheckFailed(problems: problems, json: json)
        }
        return CommandOutput(human: "ok: integrity, foreign keys, positions and payloads of \(context.databasePath) are sound", json: json)
    }

    @Sendable static func repair(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        guard context.databaseExists else { throw context.missingDatabase }
        let store = try context.openForWriting()
        let report = try store.repair()
        let human = report.fixes.isEmpty ? "nothing to repair: every position is in order" : report.fixes.joined(separator: "\n")
        return CommandOutput(human: human, json: .object([
            ("repaired", .array(report.fixes.map(JSONValue.string))), ("changes", JSONShapes.changes(report.changes)),
        ]))
    }

    @Sendable static func backup(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let destination = command.positionals[0]
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw CommandFailure("\(destination) already exists; choose a new FILE (a backup never overwrites)")
        }
        let store = try context.openForReading()
        try store.backup(to: destination)
        let counts = try StoreCounts(store)
        return CommandOutput(human: "backed up \(counts.text) to \(destination)",
                             json: .object([("backup", .string(destination)), ("counts", counts.json)]))
    }
}

/// `check` found problems: exit status 1, each problem on its own line.
struct CheckFailed: Error, CustomStringConvertible {
    let problems: [String]
    let json: JSONValue
    var description: String { "\(problems.count) problem\(problems.count == 1 ? "" : "s") found: " + problems.joined(separator: "; ") + "; run `liststore repair` for position problems" }
}
