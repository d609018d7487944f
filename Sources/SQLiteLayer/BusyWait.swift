import CSQLite
import Foundation

/// How a connection waits for another connection's lock: it tries again every millisecond until its
/// timeout has passed since the first try.
///
/// SQLite's own busy timeout sleeps 1, 2, 5, … then 100 ms between tries, some 60 tries in 5 s; against
/// a writer that commits back to back and leaves the lock free for microseconds between its
/// transactions, each try found the lock taken, and a `liststore add` failed as busy after 5 s beside
/// an app writing without a pause. Trying every millisecond gives it thousands of chances instead, at a
/// wake-up a millisecond while it waits.
final class BusyWait {
    private let timeoutNanoseconds: UInt64
    private var firstTry: UInt64 = 0
    /// The connection's: an interrupted connection stops waiting.
    private let interruption: Interruption

    /// The pause between two tries.
    static let pauseMicroseconds: UInt32 = 1_000

    init(milliseconds: Int32, interruption: Interruption) {
        timeoutNanoseconds = UInt64(max(milliseconds, 0)) * 1_000_000
        self.interruption = interruption
    }

    /// Whether to try again after the `attempt`-th busy answer (0 for the first), pausing first.
    func shouldTryAgain(attempt: Int32) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if attempt == 0 { firstTry = now }
        let waited = now &- firstTry
        guard waited < timeoutNanoseconds, !interruption.wasInterrupted else { return false }
        let left = (timeoutNanoseconds - waited) / 1_000
        usleep(UInt32(min(UInt64(Self.pauseMicroseconds), max(left, 1))))
        return true
    }

    /// Installs `wait` as the busy handler of `handle` (the connection keeps `wait` alive).
    static func install(_ wait: BusyWait, on handle: OpaquePointer) {
        sqlite3_busy_handler(
            handle,
            { context, attempt in
                guard let context else { return 0 }
                return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().shouldTryAgain(attempt: attempt) ? 1 : 0
            }, Unmanaged.passUnretained(wait).toOpaque())
    }
}
