import Foundation
import ListStore

/// `sync --peers DIR`: merges, again and again, every copy of the list in a folder — the files other
/// devices' Litestream replicas are restored into, or copies a file-sync engine carries — into the
/// database (``ListStore/merge(from:)``), one merge per copy, each its own transaction.
/// `sync --segments DIR`: exchanges segment files through a shared folder instead
/// (``ListStore/sync(throughFolder:)``).
enum SyncCommand {
    static let peers = Option<String>("--peers", value: "DIR", help: "the folder holding the other copies of the list")
    static let segments = Option<String>("--segments", value: "DIR", help: "the shared folder the copies write their segment files into")
    static let every = Option.index("--every", value: "SECONDS", help: "the pause between two rounds (default 5)")
    static let rounds = Option.index("--rounds", value: "N", help: "stop after N rounds (default: until interrupted)")

    /// What one round did with one file of the folder.
    enum Outcome {
        case merged(ChangeSet)
        case failed(String)
        /// Another copy's segments read (this many) and merged.
        case mergedSegments(ChangeSet, read: Int)
        /// This file's segment written into the shared folder.
        case wrote
    }

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let peerFolder = try command[peers]
        let segmentFolder = try command[segments]
        guard (peerFolder == nil) != (segmentFolder == nil), let folder = peerFolder ?? segmentFolder else {
            throw CommandFailure(
                "sync needs one of --peers DIR (the folder holding the other copies of the list) or --segments DIR (the shared folder of segment files)")
        }
        let directory = context.file(folder)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure(
                "cannot sync through \(directory): it is not a folder (\(peerFolder == nil ? "--segments names the shared folder of segment files" : "--peers names the folder holding the other copies of the list"))"
            )
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
            let outcomes = peerFolder == nil ? try segmentRound(store, folder: directory) : try syncRound(store, folder: directory)
            for (name, outcome) in outcomes {
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

    /// Merges the other copies' new segments in `folder`, then writes this file's (``ListStore/sync(throughFolder:)``):
    /// one outcome per other copy (`copy 123`), and one for the segment written (`wrote NAME`).
    static func segmentRound(_ store: ListStore, folder: String) throws -> [(name: String, outcome: Outcome)] {
        let sync = try store.sync(throughFolder: URL(fileURLWithPath: folder, isDirectory: true))
        var outcomes: [(name: String, outcome: Outcome)] = sync.copies.flatMap { copy -> [(name: String, outcome: Outcome)] in
            let name = "copy \(copy.replica)"
            var found: [(name: String, outcome: Outcome)] = []
            if let changes = copy.changes { found.append((name, .mergedSegments(changes, read: copy.segmentsRead))) }
            if let problem = copy.problem { found.append((name, .failed(problem))) }
            return found
        }
        if let written = sync.written { outcomes.append(("wrote \(written.lastPathComponent)", .wrote)) }
        return outcomes
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
        case (.mergedSegments(let changes, let read), false):
            return line("\(name) (\(read) segment\(read == 1 ? "" : "s") read)", .merged(changes), json: false)
        case (.mergedSegments(let changes, let read), true):
            return JSONValue.object(
                [("peer", .string(name)), ("segmentsRead", .int(read)), ("changes", JSONShapes.changes(changes))] + JSONShapes.version(changes.version)
            ).serialized()
        case (.wrote, false):
            return name
        case (.wrote, true):
            return JSONValue.object([("wrote", .string(String(name.dropFirst("wrote ".count))))]).serialized()
        }
    }
}
