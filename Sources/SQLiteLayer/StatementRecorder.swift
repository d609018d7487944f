import CSQLite
import Foundation

/// Records the SQL that connections on files under a folder prepare and run, so that a test can check
/// every statement the library runs against the oldest SQLite it supports, or count what a command runs.
/// Off unless a test starts it; several tests may record at once, each under its own folder. While off,
/// preparing a statement or opening a connection costs one uncontended lock.
package enum StatementRecorder {
    /// One statement run by a profiled connection (``start(folder:profiling:)``): its text, how long its
    /// execution took (from its first step, `SQLITE_TRACE_STMT`, to its reset, `SQLITE_TRACE_PROFILE`, by
    /// the uptime clock: SQLite's own profile time counts whole milliseconds), when it ended (the uptime
    /// clock, in nanoseconds), which connection ran it and how many result rows it returned
    /// (`SQLITE_TRACE_ROW`): what the library read, for a test that bounds it. `changes` is, for a
    /// statement that can write, `sqlite3_changes64` when it ended: for an INSERT, UPDATE or DELETE the
    /// rows it inserted, updated or deleted (0 for a statement that only reads; for other statements
    /// that can write, such as a PRAGMA, the last such count, which means nothing).
    package struct Profiled: Sendable {
        package let sql: String
        package let rows: Int
        package let changes: Int
        package let nanoseconds: Int64
        package let endedAt: UInt64
        package let connection: UInt
    }

    /// A statement as prepared: its text and how many parameters it binds.
    package struct Recorded: Hashable, Sendable {
        package let sql: String
        package let parameterCount: Int
    }

    private struct Recording {
        var prepared: Set<Recorded> = []
        /// Every statement run, in order (the first step of each execution, as `SQLITE_TRACE_STMT` reports it).
        var executed: [String] = []
        /// Whether connections opened from now on also report each statement's time (``Profiled``).
        var profiling = false
        var profiled: [Profiled] = []
        /// When each statement now running under profiling began (SQLite's own clock counts milliseconds).
        var started: [UInt: UInt64] = [:]
        /// The result rows each statement now running under profiling has returned so far.
        var rows: [UInt: Int] = [:]
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
    /// With `profiling`, connections opened from now on under `folder` report each statement's time
    /// instead of its text, taken with ``takeProfiled(folder:)``: for a benchmark that looks for what
    /// made one call slow.
    package static func start(folder: String, profiling: Bool = false) {
        state.lock.withLock { state.recordings[key(folder)] = Recording(profiling: profiling) }
    }

    /// The statements profiled under `folder` since the last call (or since ``start(folder:profiling:)``).
    package static func takeProfiled(folder: String) -> [Profiled] {
        state.lock.withLock {
            let taken = state.recordings[key(folder)]?.profiled ?? []
            state.recordings[key(folder)]?.profiled.removeAll(keepingCapacity: true)
            return taken
        }
    }

    /// Stops recording under `folder` and returns the statements prepared there since ``start(folder:)``.
    @discardableResult
    package static func stop(folder: String) -> Set<Recorded> {
        state.lock.withLock { state.recordings.removeValue(forKey: key(folder))?.prepared ?? [] }
    }

    /// The statements connections under `folder` have prepared since ``start(folder:)``; recording goes on.
    package static func prepared(folder: String) -> Set<Recorded> {
        state.lock.withLock { state.recordings[key(folder)]?.prepared ?? [] }
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
        guard
            let (folder, profiling) = state.lock.withLock({ () -> (String, Bool)? in
                state.folder(of: path).map { ($0, state.recordings[$0]?.profiling ?? false) }
            })
        else { return }
        let context = Unmanaged.passRetained(folder as NSString).toOpaque()  // one small string per traced connection, kept
        let mask = UInt32(SQLITE_TRACE_STMT) | (profiling ? UInt32(SQLITE_TRACE_PROFILE) | UInt32(SQLITE_TRACE_ROW) : 0)
        sqlite3_trace_v2(
            handle, mask,
            { type, context, statement, detail in
                guard let context else { return 0 }
                let folder = Unmanaged<NSString>.fromOpaque(context).takeUnretainedValue() as String
                let now = DispatchTime.now().uptimeNanoseconds
                let key = UInt(bitPattern: statement)
                if type == UInt32(SQLITE_TRACE_ROW) {
                    StatementRecorder.state.lock.withLock { StatementRecorder.state.recordings[folder]?.rows[key, default: 0] += 1 }
                    return 0
                }
                if type == UInt32(SQLITE_TRACE_PROFILE) {
                    guard let statement, let text = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
                    let sql = String(cString: text)
                    let connection = UInt(bitPattern: sqlite3_db_handle(OpaquePointer(statement)))
                    let changes = sqlite3_stmt_readonly(OpaquePointer(statement)) == 0 ? Int(sqlite3_changes64(sqlite3_db_handle(OpaquePointer(statement)))) : 0
                    StatementRecorder.state.lock.withLock {
                        let rows = StatementRecorder.state.recordings[folder]?.rows.removeValue(forKey: key) ?? 0
                        guard let began = StatementRecorder.state.recordings[folder]?.started.removeValue(forKey: key) else { return }
                        StatementRecorder.state.recordings[folder]?.profiled.append(
                            Profiled(sql: sql, rows: rows, changes: changes, nanoseconds: Int64(now - began), endedAt: now, connection: connection))
                    }
                    return 0
                }
                // For SQLITE_TRACE_STMT the last argument is the statement's text; a trigger's body starts with "--".
                guard let text = detail else { return 0 }
                let sql = String(cString: text.assumingMemoryBound(to: CChar.self))
                guard !sql.hasPrefix("--") else { return 0 }
                StatementRecorder.state.lock.withLock {
                    guard StatementRecorder.state.recordings[folder] != nil else { return }
                    if StatementRecorder.state.recordings[folder]?.profiling == true {
                        StatementRecorder.state.recordings[folder]?.started[key] = now
                        StatementRecorder.state.recordings[folder]?.rows[key] = nil
                    } else {
                        StatementRecorder.state.recordings[folder]?.executed.append(sql)
                    }
                }
                return 0
            }, context)
    }
}
