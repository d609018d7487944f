import Foundation

/// A value that one thread at a time may use: the library's lock, in place of the standard library's
/// `Mutex`, which first shipped with iOS 18 and macOS 15 — `Locked` works wherever Foundation's
/// `NSLock` does, so the library's deployment targets stay at iOS 17 and macOS 14.
///
/// Like `Mutex`, it hands its value out only inside ``withLock(_:)``, so it may guard a value that is
/// not `Sendable` itself (a connection, a continuation) and still be shared between threads.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A lock guarding `value`.
    package init(_ value: sending Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. Not re-entrant: calling `withLock` on the same
    /// instance from inside `body` deadlocks, as it would with `Mutex`.
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Runs `body` with exclusive access to the value if no other thread holds the lock now; returns nil
    /// at once, without running `body`, if one does.
    package func withLockIfAvailable<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&value)
    }
}
