import CSQLite
import Foundation

/// Stops a connection's work from another thread, for a store suspended while its app goes to the
/// background: the statement running fails with `SQLITE_INTERRUPT` (SQLite's `sqlite3_interrupt`), a
/// wait for another connection's lock ends at once (``BusyWait``), and no further statement starts
/// (``Statement/step()``), so the transaction under way rolls back instead of running to its end.
/// ROLLBACK still runs; nothing commits.
///
/// SQLite alone would not do: its interrupt is forgotten when no statement is running at that moment
/// (between two statements of a transaction), so the connection keeps this flag of its own.
package final class Interruption: @unchecked Sendable {
    private let lock = NSLock()
    /// The connection's handle until it closes: `sqlite3_interrupt` must not run while it closes.
    private var handle: OpaquePointer?
    private var interrupted = false

    init(_ handle: OpaquePointer) { self.handle = handle }

    /// Interrupts the connection; it stays interrupted until it closes.
    package func interrupt() {
        lock.withLock {
            guard let handle else { return }
            interrupted = true
            sqlite3_interrupt(handle)
        }
    }

    /// Whether ``interrupt()`` was called.
    package var wasInterrupted: Bool { lock.withLock { interrupted } }

    /// Called as the connection closes: interrupting does nothing from then on. Returns whether it was interrupted.
    func closing() -> Bool {
        lock.withLock {
            handle = nil
            return interrupted
        }
    }
}
