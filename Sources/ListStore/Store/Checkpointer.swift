import Dispatch
import Foundation
import SQLiteLayer

/// Checkpoints the store's `-wal` file into the main file off the writer's path.
///
/// SQLite's automatic checkpoint runs inside the commit that takes the `-wal` past 1,000 frames: that
/// write's caller waits while SQLite copies every page into the main file and syncs it (about 40 ms for a
/// thousand pages here, more than the write itself). The writer connection runs without it: after each
/// commit, SQLite's WAL hook tells ``committed(_:)`` how many frames the `-wal` holds, and past
/// ``Settings/threshold`` a passive checkpoint runs on a connection of its own on a background thread,
/// opened on that thread once the `-wal` nears the threshold (``Settings/opensAhead``) and kept (opening
/// one for each checkpoint cost every checkpoint SQLite's setting up and tearing down of a connection,
/// which slowed the writer's commits meanwhile: both threads allocate through SQLite's one allocator
/// lock). A passive checkpoint takes no lock anyone waits for: writers go on appending, readers go on
/// reading (a reader's state is never copied over), and it never starts the `-wal` again from its
/// beginning past a reader — Litestream's, for one. The next write that begins once
/// everything is copied starts the `-wal` again from its beginning, as after SQLite's own checkpoint.
///
/// Bounded: writes that follow each other faster than the background checkpoints keep the `-wal` from
/// ever being fully copied when a write begins (each checkpoint leaves the frames committed while it
/// ran), so it would never start again from its beginning and would grow. Once it holds
/// ``Settings/catchUp`` frames, a running background checkpoint is not followed at once by another:
/// the first commit after it copies what it left itself, passively, without waiting for anyone (the
/// frames of the writes made while it ran: what the ceiling's checkpoint would copy after waiting),
/// and the write after that starts the `-wal` again. Only if the `-wal` still reaches
/// ``Settings/ceiling`` frames, and grew through a write that began with a checkpoint already due,
/// does the committing thread wait for a running background checkpoint and checkpoint passively
/// itself, as SQLite's automatic checkpoint does. (One large write into a `-wal`
/// that started again, a bulk insert, is still checkpointed in the background.) Closing the store waits
/// for a running checkpoint (bounded) and closes the checkpoint connection, so that the writer is the last
/// connection and its close checkpoints what is left and removes the `-wal`.
final class Checkpointer: Sendable {
    /// When checkpoints run.
    struct Settings: Sendable {
        /// Frames in the `-wal` from which a commit starts a background checkpoint (SQLite's automatic
        /// checkpoint runs from 1,000).
        var threshold = 1_000
        /// Frames in the `-wal` from which a running background checkpoint is not followed by another:
        /// the first commit after it copies the frames it left itself, so that the `-wal` starts again
        /// from its beginning. (Waiting for it there, at the ceiling, cost that commit milliseconds.)
        var catchUp = 3_000
        /// Frames in the `-wal` from which the committing thread waits for a running background
        /// checkpoint and checkpoints itself, when the `-wal` grew through writes while a checkpoint
        /// was due (background checkpoints not keeping up even so).
        var ceiling = 4_000
        /// Frames in the `-wal` from which the background checkpoints' connection is opened, ahead of the
        /// first checkpoint: opened inside it, it slowed the writer's commits meanwhile (both threads
        /// allocating through SQLite's one allocator lock), and a store that never checkpoints (a command
        /// making one edit) never opens it.
        var opensAhead: Int { threshold / 4 }
        /// How long closing waits for a background checkpoint to finish.
        var closingWait: DispatchTimeInterval = .seconds(30)
        /// Runs on the background thread before it opens its connection (tests hold it there).
        var beforeOpening: (@Sendable () -> Void)? = nil
        /// Runs on the background thread before each checkpoint, its connection open (tests hold it there).
        var beforeCheckpoint: (@Sendable () -> Void)? = nil
        /// Runs on the background thread after each checkpoint, before it counts as finished (tests hold
        /// it there, so that the writes made meanwhile are left in the `-wal`).
        var afterCheckpoint: (@Sendable () -> Void)? = nil

        static let standard = Settings()
    }

    private struct State {
        /// A background checkpoint is scheduled or running.
        var running = false
        /// A commit took the `-wal` past the threshold while one ran: it runs once more.
        var again = false
        /// The background thread was asked to open its connection ahead (``Settings/opensAhead``).
        var openedAhead = false
        /// What the background thread is asked to do now is open its connection, not checkpoint.
        var opening = false
        /// The frames in the `-wal` after the previous commit.
        var frames = 0
        /// The store is closing: no checkpoint starts any more.
        var closed = false
        /// The `-wal` reached ``Settings/catchUp`` frames while a background checkpoint ran: the first
        /// commit after it checkpoints on the committing thread.
        var catchUpDue = false
        /// Checkpoints finished (background and on the committing thread), for tests.
        var finished = 0
        /// Commits that waited for a background checkpoint (at the ceiling), for tests.
        var waited = 0
        /// Checkpoints run on the committing thread (catching up, or at the ceiling), for tests and benchmarks.
        var onCommittingThread = 0
        /// Connections the background thread opened, for tests.
        var opened = 0
        /// Background checkpoints another connection's checkpoint held off, for tests.
        var heldOff = 0
    }

    let settings: Settings
    private let state = Locked(State())
    /// Entered while a background checkpoint is scheduled or running.
    private let running = DispatchGroup()
    /// Opens the checkpoint's connection: read-write, checked to hold the store's files.
    private let open: @Sendable () throws -> Connection
    /// Whether the kept connection still holds the store's files, and the path still names them: checked
    /// before each checkpoint, as opening a connection for each checkpoint checked it.
    private let stillHolds: @Sendable (Connection) -> Bool
    /// Where background checkpoints run.
    private let thread = CheckpointThread()
    /// The background checkpoints' connection, once opened: used and closed on ``thread`` only.
    private let kept = KeptConnection()

    /// A connection used on one thread only (the checkpoint thread), which is what makes handing it there safe.
    private final class KeptConnection: @unchecked Sendable {
        var connection: Connection?
    }

    init(settings: Settings, open: @escaping @Sendable () throws -> Connection, stillHolds: @escaping @Sendable (Connection) -> Bool) {
        self.settings = settings
        self.open = open
        self.stillHolds = stillHolds
        thread.start({ [weak self] in self?.runInBackground() }, finally: { [kept] in kept.connection = nil })
    }

    deinit { thread.stop() }

    /// Replaces `writer`'s automatic checkpoint with this one.
    func watch(_ writer: Connection) {
        writer.replaceAutomaticCheckpoint { [self] commit in committed(commit) }
    }

    /// After a commit of the writer connection, on its thread (the write lock released).
    private func committed(_ commit: Connection.WALCommit) {
        enum Step {
            case none, background, catchUp, here
        }
        let frames = commit.frames
        let settings = settings
        let step = state.withLock { state -> Step in
            let before = state.frames
            state.frames = frames
            if frames >= settings.opensAhead && frames < settings.threshold && !state.openedAhead && !state.running && !state.closed {
                state.catchUpDue = false  // below the threshold: the -wal started again
                state.openedAhead = true
                state.opening = true
                state.running = true
                running.enter()
                return .background
            }
            guard frames >= settings.threshold, !state.closed else {
                state.catchUpDue = false
                return .none
            }
            // A checkpoint was due before this write began and the -wal only grew since (a write that
            // began once everything was copied would have started it again from its beginning).
            if frames >= settings.ceiling && before >= settings.threshold && frames > before { return .here }
            if state.catchUpDue && !state.running {
                state.catchUpDue = false
                return .catchUp
            }
            if state.running {
                if state.opening {
                    // Only the connection is being opened: the checkpoint follows it in the background.
                    state.again = true
                } else if frames >= settings.catchUp {
                    state.catchUpDue = true
                    state.again = false
                } else if !state.catchUpDue {
                    state.again = true
                }
                return .none
            }
            state.running = true
            running.enter()
            return .background
        }
        switch step {
        case .none:
            return
        case .background:
            thread.run()
        case .catchUp:
            // No checkpoint runs: nobody to wait for, and only the frames committed while the last one ran to copy.
            _ = commit.checkpointPassively()
            state.withLock {
                $0.finished += 1
                $0.onCommittingThread += 1
            }
        case .here:
            state.withLock { $0.waited += 1 }
            _ = running.wait(timeout: .now() + settings.closingWait)
            _ = commit.checkpointPassively()
            state.withLock {
                $0.finished += 1
                $0.onCommittingThread += 1
            }
        }
    }

    private func runInBackground() {
        defer { running.leave() }
        if state.withLock({ $0.opening }) {
            if kept.connection == nil && !state.withLock({ $0.closed }) { openKept() }
            // A commit past the threshold meanwhile asked for a checkpoint once this is done.
            let due = state.withLock { state -> Bool in
                state.opening = false
                return Self.runsAgain(&state)
            }
            if !due { return }
        }
        while true {
            let closing = state.withLock { $0.closed }
            if !closing { checkpointOnce() }
            let again = state.withLock { state -> Bool in
                if !closing { state.finished += 1 }
                return Self.runsAgain(&state)
            }
            if !again { return }
        }
    }

    /// After the background thread's work, under the lock: whether a commit asked for a checkpoint
    /// meanwhile (it runs now, on the same thread), else the thread counts as idle.
    private static func runsAgain(_ state: inout State) -> Bool {
        if state.again && !state.closed {
            state.again = false
            return true
        }
        state.running = false
        return false
    }

    /// One passive checkpoint on the kept connection (opened now if there is none), best effort, as SQLite's
    /// automatic one: a checkpoint that cannot run now leaves the pages in the `-wal`, where they are read
    /// as well. One that fails (not merely held off by another connection's checkpoint) closes the
    /// connection, and so does one that finds the store's files moved; the next opens a new one, checked
    /// to hold them.
    private func checkpointOnce() {
        if let connection = kept.connection, !stillHolds(connection) { kept.connection = nil }
        if kept.connection == nil { openKept() }
        guard let connection = kept.connection else { return }
        settings.beforeCheckpoint?()
        switch connection.passiveCheckpoint() {
        case .checkpointed: break
        case .busy: state.withLock { $0.heldOff += 1 }  // another connection's checkpoint: no reason to open another one
        case .failed: kept.connection = nil
        }
        settings.afterCheckpoint?()
    }

    /// Opens the background checkpoints' connection (on their thread), best effort: without one, no checkpoint runs.
    private func openKept() {
        settings.beforeOpening?()
        kept.connection = try? open()
        if kept.connection != nil { state.withLock { $0.opened += 1 } }
    }

    /// Waits (at most ``Settings/closingWait``) until no background checkpoint runs: before a checkpoint
    /// of another mode (which fails at once while one holds SQLite's checkpoint lock), and for tests
    /// that compare the file's bytes.
    func waitUntilIdle() {
        _ = running.wait(timeout: .now() + settings.closingWait)
    }

    /// How many checkpoints have finished so far, for tests.
    var finishedCount: Int { state.withLock { $0.finished } }

    /// How many frames the `-wal` held after the writer's last commit, for tests.
    var framesAtLastCommit: Int { state.withLock { $0.frames } }

    /// How many checkpoints ran on the committing thread (catching up, or at the ceiling), for tests and benchmarks.
    var onCommittingThreadCount: Int { state.withLock { $0.onCommittingThread } }

    /// How many background checkpoints another connection's checkpoint held off, for tests.
    var heldOffCount: Int { state.withLock { $0.heldOff } }

    /// How many connections background checkpoints have opened, for tests (one, unless a checkpoint failed).
    var openedCount: Int { state.withLock { $0.opened } }

    /// How many commits waited for a background checkpoint (at ``Settings/ceiling``), for tests.
    var waitedCount: Int { state.withLock { $0.waited } }

    /// Stops starting checkpoints, waits (at most ``Settings/closingWait`` in all) for a running one and closes
    /// the checkpoint connection: before the writer connection closes, so that it is the last connection
    /// and may checkpoint on close.
    func close() {
        let closedBefore = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        guard !closedBefore else { return }
        let deadline = DispatchTime.now() + settings.closingWait
        _ = running.wait(timeout: deadline)
        thread.stop(waitingUntil: deadline)
    }
}

extension StoreOpener {
    /// A new connection for a checkpoint of the file this opener opened, holding exactly `files` (those
    /// of the store's first connection): read-write (a checkpoint writes the main file), with no
    /// checkpoint on close, and used for nothing else.
    func openCheckpointer(holding files: Connection.OpenedFiles) throws -> Connection {
        let connection = try connect(.readWrite)
        // The first read opens the -wal file, which the checkpoint copies and whose identity is checked.
        _ = try connection.readTransaction { try connection.scalarInt("PRAGMA schema_version") }
        try connection.verifyHolding(files)
        return connection
    }
}
