import Foundation

/// Records the SQL that connections on files under one folder prepare, so that a test can check every
/// statement the library runs against the oldest SQLite it supports. Off unless a test starts it; while
/// off, preparing a statement costs one uncontended lock.
package enum StatementRecorder {
    /// A statement as prepared: its text and how many parameters it binds.
    package struct Recorded: Hashable, Sendable {
        package let sql: String
        package let parameterCount: Int
    }

    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var folder: String?
        var recorded: Set<Recorded> = []
    }

    private static let state = State()

    /// Records statements prepared from now on by connections whose path lies under `folder`.
    package static func start(folder: String) {
        state.lock.withLock {
            state.folder = folder.hasSuffix("/") ? folder : folder + "/"
            state.recorded = []
        }
    }

    /// Stops recording and returns what was recorded since ``start(folder:)``.
    package static func stop() -> Set<Recorded> {
        state.lock.withLock {
            state.folder = nil
            defer { state.recorded = [] }
            return state.recorded
        }
    }

    static func record(sql: String, parameterCount: Int32, path: String) {
        state.lock.withLock {
            guard let folder = state.folder, path.hasPrefix(folder) else { return }
            state.recorded.insert(Recorded(sql: sql, parameterCount: Int(parameterCount)))
        }
    }
}
