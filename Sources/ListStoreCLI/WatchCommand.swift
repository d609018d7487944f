import Foundation
import ListStore

/// `watch`: one line per committed change, from any process or the `sqlite3` shell, until interrupted.
enum WatchCommand {
    /// How often the database is checked for commits by other connections.
    static let pollInterval: Duration = .milliseconds(100)

    static let count = Option.index("--count", value: "N", help: "stop after N changes")

    @Sendable static func run(_ command: ParsedCommand, _ context: CommandContext) throws -> CommandOutput {
        let limit = try command[count]
        if limit == 0 { return .streamed }
        let store = try context.openForReading(recognisingInFirstRead: false)
        guard !store.isImmutableSnapshot else {
            // Without locks and a -shm file SQLite never sees other connections' commits: waiting would
            // print nothing forever.
            throw CommandFailure(
                "cannot watch \(context.databasePath): it can only be read as a fixed snapshot (SQLite cannot create its -shm file in that folder and no -wal file exists), so changes would never be seen; watch it as a user who can write the folder"
            )
        }
        let json = context.json
        let write = context.write
        let finished = DispatchSemaphore(value: 0)
        let delivered = Locked(0)
        let failure = Locked<(any Error)?>(nil)
        // Writes one change's line (or, for nil, a line that is not a change: the first document);
        // true once `--count` changes were written.
        let emit = { @Sendable (line: String, isChange: Bool) throws -> Bool in
            try write(line + "\n")
            guard isChange else { return false }
            let count = delivered.withLock {
                $0 += 1
                return $0
            }
            return limit.map { count >= $0 } ?? false
        }
        // Said once the observation has started (its first element arrived): every commit from then on is shown.
        let environment = context.environment
        let watching = "watching \(context.databasePath) for changes (Ctrl-C to stop)\n"
        let reader: Task<Void, Never>
        if json {
            // --json: first the state watching starts from, exactly as `show --json` prints it — and, like
            // it, written as it is scanned (inside the read that fixes where the stream continues from), so
            // that no store is too big to watch.
            let stream = store.observe(includingOtherConnections: true, pollInterval: pollInterval) { scan in
                try TransferCommands.writeDocument(scanning: scan, indexPaths: true, to: write)
                environment.writeProgress(watching)
            }
            reader = Task {
                do {
                    loop: for try await update in stream {
                        switch update {
                        case .initial:
                            continue  // never: the first document was written as it was scanned
                        case .changes(let changes):
                            let document = JSONValue.object([("changes", JSONShapes.changes(changes))] + JSONShapes.version(changes.version))
                            if try emit(document.serialized(), true) { break loop }
                        case .reset(let snapshot):
                            let document = JSONValue.object([("reset", JSONShapes.list(snapshot.sections))] + JSONShapes.version(snapshot.version))
                            if try emit(document.serialized(), true) { break loop }
                        }
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
                finished.signal()
            }
        } else {
            // Without --json nothing of the state is printed, so nothing of it is read: a marker, and resets
            // that carry no state (the line's counts come from two counts).
            let stream = store.observeWithoutSnapshots(includingOtherConnections: true, pollInterval: pollInterval)
            reader = Task {
                do {
                    loop: for try await event in stream {
                        switch event {
                        case .started:
                            environment.writeProgress(watching)  // watching starts here, nothing read
                        case .changes(let changes):
                            if try emit("\(timestamp()) " + HumanText.changes(changes).split(separator: "\n").joined(separator: "; "), true) { break loop }
                        case .invalidated:
                            let now: String
                            do {
                                now = "now " + (try await store.readInBackground { StoreCounts(sections: try $0.sectionCount(), rows: try $0.totalRowCount()) }).text
                            } catch let error as ListStoreError where { if case .listDeleted = error.reason { true } else { false } }() {
                                now = "the list was deleted"  // the stream ends with listDeleted next: this line tells the deletion first
                            }
                            if try emit("\(timestamp()) reloaded: changed outside ListStore; \(now)", true) { break loop }
                        }
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
                finished.signal()
            }
        }
        finished.wait()
        reader.cancel()
        let count = delivered.withLock { $0 }
        if let error = failure.withLock({ $0 }) {
            if error is StandardOutputClosed { throw error }  // the reader went away: stop quietly
            throw CommandFailure("stopped watching \(context.databasePath) after \(count) change\(count == 1 ? "" : "s"): \(CLIAdvice.message(for: error))")
        }
        guard let limit, count >= limit else {
            // The stream ends by itself only when the store can no longer be read.
            throw CommandFailure(
                "stopped watching \(context.databasePath) after \(count) change\(count == 1 ? "" : "s"): the database can no longer be read; check it with `liststore check`")
        }
        return .streamed
    }

    private static func timestamp() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        return formatter.string(from: Date())
    }
}
