import CSQLite
import Foundation

/// Records the SQL that connections on files under a folder prepare and run, so that a test can check
/// every statement the library runs against the oldest SQLite it supports, or count what a command runs.
/// Off unless a test starts it; several tests may record at once, each under its own folder. While off,
/// preparing a statement or opening a connection costs one uncontended lock.
package enum StatementRecorder {
    /// A statement as prepared: its text and how many parameters it binds.
    package struct Recorded: Hashable, Sendable {
        package let sql: String
        package let parameterCount: Int
    }

    private struct Recording {
        var prepared: Set<Recorded> = []
        /// Every statement run, in order (the first step of each execution, as `SQLITE_TRACE_STMT` reports it).
        var executed: [String] = []
    }

    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var recordings: [String: Recording] = [:]

        /// The folder being recorded that `path` lies under.
        func folder(of path: String) -> String? { recordings.keys.first { path.hasPrefix($0) } }
    }

    private static let state = State()

    private static func key(_ folder: String) -> String { folder.hasSuffix("/") ? folder : folder + "/" }

    /// Records statements prepared and run from now on by connections whose path lies under `folder`.
    package static func start(folder: String) {
        state.lock.withLock { state.recordings[key(folder)] = Recording() }
    }

    /// Stops recording under `folder` and returns the statements prepared there since ``start(folder:)``.
    @discardableResult
    package static func stop(folder: String) -> Set<Recorded> {
        state.lock.withLock { state.recordings.removeValue(forKey: key(folder))?.prepared ?? [] }
    }

    /// The statements connections under `folder` have run since ``start(folder:)``, in order, one entry
    /// per execution (statements of scripts included, triggers' bodies not); recording goes on.
    package static func executed(folder: String) -> [String] {
        state.lock.withLock { state.recordings[key(folder)]?.executed ?? [] }
    }

    static func record(sql: String, parameterCount: Int32, path: String) {
        state.lock.withLock {
            guard let folder = state.folder(of: path) else { return }
            state.recordings[folder]?.prepared.insert(Recorded(sql: sql, parameterCount: Int(parameterCount)))
        }
    }

    /// Called by each new connection: while its path is being recorded, it reports every statement it runs.
    static func attach(_ handle: OpaquePointer, path: String) {
        guard let folder = state.lock.withLock({ state.folder(of: path) }) else { return }
        let context = Unmanaged.passRetained(folder as NSString).toOpaque()  // one small string per traced connection, kept
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_STMT),
            { _, context, _, text in
                // For SQLITE_TRACE_STMT the last argument is the statement's text; a trigger's body starts with "--".
                guard let context, let text else { return 0 }
                let sql = String(cString: text.assumingMemoryBound(to: CChar.self))
                guard !sql.hasPrefix("--") else { return 0 }
                let folder = Unmanaged<NSString>.fromOpaque(context).takeUnretainedValue() as String
                StatementRecorder.state.lock.withLock { StatementRecorder.state.recordings[folder]?.executed.append(sql) }
                return 0
            }, context)
    }
}
