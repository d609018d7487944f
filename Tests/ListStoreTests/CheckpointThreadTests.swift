import Dispatch
import Foundation
import Testing

@testable import ListStore

/// A store's background checkpoints run on a thread of its own, started with the store: each ``run()``
/// runs the work once more, in order, on that one thread; ``stop()`` ends it after what it was asked for,
/// and it runs its `finally` once, on the same thread (where the checkpoint connection is closed), which
/// ``stop(waitingUntil:)`` waits for.
@Suite struct CheckpointThreadTests {
    @Test func eachRunRunsTheWorkOnceInOrderOnOneOtherThreadUntilStopped() throws {
        let thread = CheckpointThread()
        let runs = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let caller = Thread.current.description
        let finished = Locked<[String]>([])
        thread.start(
            {
                runs.withLock { $0.append(Thread.current.description) }
                done.signal()
            },
            finally: { finished.withLock { $0.append(Thread.current.description) } })
        for _ in 0..<5 { thread.run() }
        for _ in 0..<5 { try #require(done.wait(timeout: .now() + 60) == .success) }
        let threads = runs.withLock { $0 }
        #expect(threads.count == 5)
        #expect(Set(threads).count == 1)
        #expect(threads.first != caller)
        thread.stop(waitingUntil: .now() + 60)
        #expect(finished.withLock { $0 } == [threads.first ?? ""])
        thread.run()
        // Stopped: the work runs no more, nor the finally, and waiting again returns at once.
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut)
        #expect(runs.withLock { $0.count } == 5)
        thread.stop(waitingUntil: .now() + 60)
        #expect(finished.withLock { $0.count } == 1)
    }
}
