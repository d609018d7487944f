import Dispatch
import Foundation

/// The thread a store's background checkpoints run on: its own, started with the store and waiting
/// between checkpoints. Dispatch's global queue started a thread of its own inside the commit that first
/// asked it for a checkpoint (140–160 µs of that commit, three times a one-row insert), and waking one of
/// its idle threads cost 25–50 µs of each commit that asked; waking this one is a semaphore's signal.
final class CheckpointThread: Sendable {
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    private let stopping = Locked(false)
    private let endWaited = Locked(false)

    /// Starts the thread; it runs `work` once for each ``run()``, in order, until ``stop()``, then `finish` once.
    func start(_ work: @escaping @Sendable () -> Void, finally finish: @escaping @Sendable () -> Void) {
        let thread = Thread { [wake, stopping, ended] in
            while true {
                wake.wait()
                if stopping.withLock({ $0 }) { break }
                work()
            }
            finish()
            ended.signal()
        }
        thread.name = "ListStore checkpoints"
        thread.qualityOfService = .utility
        thread.start()
    }

    /// Has the thread run its work once more (after what it was asked for before).
    func run() { wake.signal() }

    /// Ends the thread once it has run what it was asked for before, without waiting for it.
    func stop() {
        stopping.withLock { $0 = true }
        wake.signal()
    }

    /// ``stop()``, then waits (until `deadline` at the latest, and only the first time) until the thread
    /// has run its `finish`.
    func stop(waitingUntil deadline: DispatchTime) {
        stop()
        let waitedBefore = endWaited.withLock { waited in
            defer { waited = true }
            return waited
        }
        guard !waitedBefore else { return }
        _ = ended.wait(timeout: deadline)
    }
}
