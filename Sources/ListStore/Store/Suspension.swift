import Foundation
import SQLiteLayer

/// Suspending a store while its app is in the background, so that it holds nothing on its file.
extension ListStore {
    /// Closes every connection the store has on its file, so that the process holds no lock and no file
    /// descriptor on the database, its `-wal` or its `-shm` file, until ``resume()``: for an app about to
    /// be suspended with a store in an App Group container, which iOS terminates (`0xdead10cc`) if it
    /// still holds a lock on a file there. An idle WAL connection holds one (a shared lock on the `-shm`).
    ///
    /// The store, and every list handle of its file (``list(named:)``: they share its connections), then:
    /// - stops polling for other connections' commits; observations stay open, at their position;
    /// - interrupts the calls running now and waits for them to give up their connections, which takes
    ///   about a millisecond, not as long as they would have run: a write under way is rolled back
    ///   (nothing of it is written, as after any failed write) and throws a
    ///   ``ListStoreError/Family/misuse`` error (suspended), like a write waiting for another process's
    ///   lock and a read under way; a write that had committed when interrupted stays committed, its
    ///   observers told when the store resumes. (Finish an important write before the app is
    ///   suspended — inside a background task, for instance — and call `suspend()` after it.);
    /// - closes its read connections, then its writer connection, which, once the store has committed,
    ///   copies the `-wal` into the file as it closes (the `-wal` and `-shm` files go when no other
    ///   connection has the file open);
    /// - refuses every call from then on at once, without waiting for anything, with
    ///   a ``ListStoreError/Family/misuse`` error (suspended): nothing is read or written. An observation started while
    ///   suspended ends with that error; a ``ListObservation/resynchronize()`` asked for meanwhile is
    ///   answered after ``resume()``.
    ///
    /// Calling it on a suspended store does nothing, and so does calling it on an in-memory store (its
    /// connection is its data, and there is no file to lock) or from inside one of the store's own
    /// closures on the same thread (a `write` or `read` closure, which holds the connection it would
    /// close): check ``isSuspended``. `suspendsWithApplication()` (where UIKit is) calls it when the app
    /// enters the background.
    public func suspend() {
        guard path != StorePath.inMemory else { return }
        try? markingCall {
            try suspension.changingState {
                guard suspension.begin() else { return }
                hub.pausePolling()
                closeConnections()
            }
        }
    }

    /// Opens the store's connections again after ``suspend()``, recognising the file exactly as
    /// ``open(at:mode:busyTimeout:author:historyLimit:)`` does; then polling starts again if anyone observes
    /// other connections, with a poll at once, so that observers get what other processes committed
    /// meanwhile — each change once, in commit order, as if the store had never been suspended. Does
    /// nothing when the store is not suspended.
    ///
    /// A file that is no longer one this store may use — replaced meanwhile by another application's
    /// database or a file that is not SQLite (a ``ListStoreError/Family/fileUnusable`` error (not a list store)), by one of a
    /// newer ListStore, or deleted (a ``ListStoreError/Family/fileUnusable`` error (file replaced): no file is created) —
    /// throws, is left byte-for-byte untouched, and the store stays suspended with no connection open:
    /// every call throws that error until a `resume()` succeeds (call it again once the file is back).
    /// Another ListStore file put at the path is opened as opening would: observers that can no longer
    /// follow its change log get a ``ListUpdate/reset(_:)``.
    public func resume() throws {
        try markingCall {
            try suspension.changingState {
                guard suspension.isSuspended else { return }
                do {
                    try reopenConnections()
                } catch {
                    suspension.failedToResume(error as? ListStoreError)
                    throw error
                }
                // The writer's data_version is forgotten before any call can read it, then calls are let in.
                let poller = hub.resumePolling()
                let deferred = suspension.end()
                resumeObservation(poller: poller, resynchronizing: deferred)
            }
        }
    }

    /// Whether the store is suspended: true from the moment ``suspend()`` begins (every call is refused
    /// from then on) until ``resume()`` succeeds. Shared by every list handle of the store.
    public var isSuspended: Bool { suspension.isSuspended }
}

/// Whether a store (and every list handle of its file) is suspended, and what waits for its resumption.
final class Suspension: Sendable {
    private struct State: Sendable {
        var isSuspended = false
        /// Why the last ``ListStore/resume()`` failed: calls throw it rather than ``ListStoreError/suspended(path:)``.
        var resumeFailure: ListStoreError?
        /// Observers (and their lists) that asked for a fresh state while suspended.
        var deferredResynchronizations: [UUID: Int64] = [:]
    }

    private let state = Locked(State())
    /// Stops the writer connection's work (``ListStore/suspend()``).
    private let writer: Locked<Interruption>

    init(writer: Interruption) { self.writer = Locked(writer) }

    /// The interruption of the writer connection ``ListStore/resume()`` opened.
    func watchWriter(_ interruption: Interruption) { writer.withLock { $0 = interruption } }

    /// Interrupts the write or read running on the writer connection: it rolls back and throws
    /// ``ListStoreError/suspended(path:)`` (nothing commits after this), so ``ListStore/suspend()`` does not wait for its end.
    func interruptWriter() { writer.withLock { $0 }.interrupt() }
    /// Serialises ``ListStore/suspend()`` and ``ListStore/resume()``: one closes or opens the connections at a time.
    private let changes = Locked(())
    /// The notification observers of ``ListStore/suspendsWithApplication()``, removed when the store goes.
    let applicationObservers = Locked<[any NSObjectProtocol]>([])

    deinit {
        for observer in applicationObservers.withLock({ $0 }) { NotificationCenter.default.removeObserver(observer) }
    }

    var isSuspended: Bool { state.withLock { $0.isSuspended } }

    /// Throws, without waiting for anything, while suspended: why the last resume failed, else
    /// ``ListStoreError/suspended(path:)``.
    func refuseIfSuspended(_ path: String) throws {
        let refusal = state.withLock { state in state.isSuspended ? state.resumeFailure ?? .suspended(path: path) : nil }
        if let refusal { throw refusal }
    }

    /// Runs `body` while no other thread suspends or resumes the store.
    func changingState<T>(_ body: () throws -> T) throws -> T {
        try changes.withLock { _ in try body() }
    }

    /// Marks the store suspended: every call is refused from now on. False if it already was.
    func begin() -> Bool {
        state.withLock { state in
            guard !state.isSuspended else { return false }
            state.isSuspended = true
            return true
        }
    }

    /// Remembers why resuming failed (nil: say ``ListStoreError/suspended(path:)`` as before).
    func failedToResume(_ error: ListStoreError?) {
        state.withLock { $0.resumeFailure = error }
    }

    /// Lets calls in again; returns the fresh states asked for meanwhile.
    func end() -> [UUID: Int64] {
        state.withLock { state in
            state.isSuspended = false
            state.resumeFailure = nil
            defer { state.deferredResynchronizations = [:] }
            return state.deferredResynchronizations
        }
    }

    /// Keeps observer `id`'s request for a fresh state of `list` until the store resumes, if it is
    /// suspended now; false (nothing kept) if it is not.
    func deferResynchronization(_ id: UUID, list: Int64) -> Bool {
        state.withLock { state in
            guard state.isSuspended else { return false }
            state.deferredResynchronizations[id] = list
            return true
        }
    }
}
