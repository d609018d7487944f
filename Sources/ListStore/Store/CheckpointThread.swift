import Dispatch
import Foundation

/// The thread a store's background checkpoints run on: its own, started with the store and waiting
/// between checkpoints. Dispatch's global queue started a thread of its own inside the commit that first
/// asked it for a checkpoint (140–160 µs of that commit, three times a one-row insert), and waking one of
/// its idle threads cost 25–50 µs of each commit that asked; waking this one is a semaphore's signal.
final class CheckpointThread: Sendable {
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Locked(false)

    /// Starts the thread; it runs `work` once for each ``run()``, in order, until ``stop()``.
    func start(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread { [wake, stopping] in
            while true {
                wake.wait()
                if stopping.withLock({ $0 }) { return }
                work()
            }
        }
        thread.name = "ListStore checkpoints"
        thread.qualityOfService = .utility
        thread.start()
    }

    /// Has the thread run its work once more (after what it was asked for before).
    func run() { wake.signal() }

    /// Ends the thread once it has run what it was asked for before.
    func stop() {
        stopping.withLock { $0 = true }
        wake.signal()
    }
}
