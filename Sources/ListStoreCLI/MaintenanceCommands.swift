import Foundation
import ListStore

/// `check`, `repair`, `backup`.
enum MaintenanceCommands {
    @Sendable static func check(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        guard context.databaseExists else { throw context.missingDatabase }
        try context.refuseDirectory()
        let store = try ListStore.open(at: context.databaseFile, mode: .inspect)
        let problems: [IntegrityProblem]
        do {
            problems = try store.checkInvariants()
        } catch let error as ListStoreError {
            problems = [IntegrityProblem("the file cannot be read: \(error)", isRepairable: false, remedy: "restore a backup")]
        }
        let json = JSONValue.object([
            ("ok", .bool(problems.isEmpty)), ("problems", .array(problems.map { .string($0.description) })),
            ("details", .array(problems.map(problemJSON))),
        ])
        guard problems.isEmpty else {
            let repairable = problems.filter(\.isRepairable).count
            var advice: [String] = []
            if repairable > 0 { advice.append("run `liststore repair` to fix \(repairable == problems.count ? (repairable == 1 ? "it" : "them") : "\(repairable) of them")") }
            if repairable < problems.count {
                advice.append("\(repairable == 0 ? "" : "the others ")need the change shown after `fix:`, which repair does not make because it would change data")
            }
            throw CheckFailed(
                lines: problems.map(problemLine),
                summary: "\(countText(problems.count, "problem")) found; " + advice.joined(separator: "; "), json: json)
        }
        let version = try store.fileSchemaVersion()
        let note: String
        switch version {
        case 0: note = "is empty: it has no ListStore schema yet (the first write creates it)"
        case ListStore.schemaVersion: note = "is sound: integrity, schema, positions, counts, titles, payloads, ids and the change log"
        default: note = "is sound for schema version \(version) (integrity and schema); the next write upgrades it to version \(ListStore.schemaVersion)"
        }
        return CommandOutput(human: "ok: \(context.databasePath) \(note)", json: json)
    }

    @Sendable static func repair(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        guard context.databaseExists else { throw context.missingDatabase }
        let report = try context.withStoreForWriting { store in try store.repair() }
        let fixes = report.fixes.map { "repaired: \($0)" }
        guard report.unresolved.isEmpty else {
            throw CheckFailed(
                lines: fixes + report.unresolved.map(problemLine),
                summary: (report.fixes.isEmpty ? "" : "repaired \(countText(report.fixes.count, "problem")); ")
                    + "\(countText(report.unresolved.count, "problem")) left that repair does not fix because it would change data: make the change shown after `fix:`",
                json: .object([
                    ("repaired", .array(report.fixes.map(JSONValue.string))), ("changes", JSONShapes.changes(report.changes)),
                    ("unresolved", .array(report.unresolved.map(problemJSON))),
                ]))
        }
        let human = report.fixes.isEmpty ? "nothing to repair: positions, counts, ids and the change log are in order" : fixes.joined(separator: "\n")
        return CommandOutput(
            human: human,
            json: .object([
                ("repaired", .array(report.fixes.map(JSONValue.string))), ("changes", JSONShapes.changes(report.changes)),
                ("unresolved", .array([])),
            ]))
    }

    private static func problemLine(_ problem: IntegrityProblem) -> String {
        "problem: \(problem.description)" + (problem.remedy.map { " — fix: \(CLIAdvice.remedy($0))" } ?? " — `liststore repair` fixes it")
    }

    private static func problemJSON(_ problem: IntegrityProblem) -> JSONValue {
        .object([
            ("problem", .string(problem.description)), ("repairable", .bool(problem.isRepairable)),
            ("remedy", problem.remedy.map(JSONValue.string) ?? .null),
        ])
    }

    private static func countText(_ count: Int, _ noun: String) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }

    /// `backup`'s FILE.
    static let backupDestination = Argument("FILE")

    @Sendable static func backup(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let destination = command[backupDestination]
        let store = try context.openForReading()
        try store.backup(to: context.file(destination))
        let counts = try StoreCounts(store)
        return CommandOutput(
            human: "backed up \(counts.text) to \(destination)",
            json: .object([("backup", .string(destination)), ("counts", counts.json)]))
    }
}

/// `check` found problems, or `repair` left some: exit status 1, each line on standard output, the
/// summary as the one-line error.
struct CheckFailed: Error, CustomStringConvertible {
    let lines: [String]
    let summary: String
    let json: JSONValue
    var description: String { summary }
}
