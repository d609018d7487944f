import Foundation
import ListStore

/// `sync --peers DIR`: merges, again and again, every copy of the list in a folder — the files other
/// devices' Litestream replicas are restored into, or copies a file-sync engine carries — into the
/// database (``ListStore/merge(from:)``), one merge per copy, each its own transaction.
enum SyncCommand {
    static let peers = Option<String>("--peers", value: "DIR", help: "the folder holding the other copies of the list")
    static let every = Option.index("--every", value: "SECONDS", help: "the pause between two rounds (default 5)")
    static let rounds = Option.index("--rounds", value: "N", help: "stop after N rounds (default: until interrupted)")

    /// What one round did with one file of the folder.
    enum Outcome {
        case merged(ChangeSet)
        case failed(String)
    }

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        guard let folder = try command[peers] else { throw CommandFailure("sync needs --peers DIR: the folder holding the other copies of the list") }
        let directory = context.file(folder)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure("cannot sync from \(directory): it is not a folder (--peers names the folder holding the other copies of the list)")
        }
        let limit = try command[rounds]
        let pause = try command[every] ?? 5
        if limit == 0 { return .streamed }
        let store = try context.openExistingForWriting()
        let json = context.json
        var round = 0
        var failures = 0
        while limit.map({ round < $0 }) ?? true {
            if round > 0 { Thread.sleep(forTimeInterval: TimeInterval(pause)) }
            round += 1
            for (name, outcome) in try syncRound(store, folder: directory) {
                if case .failed = outcome { failures += 1 }
                try context.write(line(name, outcome, json: json) + "\n")
            }
        }
        guard failures == 0 else {
            throw CommandFailure("\(failures) merge\(failures == 1 ? "" : "s") of \(directory) failed (each said why above); nothing was changed by them")
        }
        return .streamed
    }

    /// Merges each file of `folder` that may be a copy of the list, in name order: the database's own
    /// files (itself, its -wal, -shm and -journal) and hidden or temporary files are left alone.
    static func syncRound(_ store: ListStore, folder: String) throws -> [(name: String, outcome: Outcome)] {
        let own = try? FileManager.default.attributesOfItem(atPath: store.path)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        return names.compactMap { name -> (String, Outcome)? in
            guard !name.hasPrefix("."), !["-wal", "-shm", "-journal", ".tmp"].contains(where: { name.hasSuffix($0) }) else { return nil }
            let path = (folder as NSString).appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular else {
                return nil
            }
            if let own, own[.systemNumber] as? Int == attributes[.systemNumber] as? Int, own[.systemFileNumber] as? Int == attributes[.systemFileNumber] as? Int {
                return nil
            }
            do {
                return (name, .merged(try store.merge(from: URL(fileURLWithPath: path))))
            } catch {
                return (name, .failed(CLIAdvice.message(for: error)))
            }
        }
    }

    /// One output line: `phone.sqlite: 3 rows inserted…`, or with --json `{"peer":…,"changes":…}`.
    static func line(_ name: String, _ outcome: Outcome, json: Bool) -> String {
        switch (outcome, json) {
        case (.merged(let changes), false):
            return "\(name): " + (changes.isEmpty ? "nothing new" : HumanText.changes(changes).split(separator: "\n").joined(separator: "; "))
        case (.failed(let message), false):
            return "\(name): not merged: \(message)"
        case (.merged(let changes), true):
            return JSONValue.object([("peer", .string(name)), ("changes", JSONShapes.changes(changes))] + JSONShapes.version(changes.version)).serialized()
        case (.failed(let message), true):
            return JSONValue.object([("peer", .string(name)), ("error", .string(message))]).serialized()
        }
    }
}
