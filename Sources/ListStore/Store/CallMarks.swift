import Foundation

/// Which stores the current thread is inside a call on: what ``ListStore``'s re-entrancy check asks on
/// every call. One POSIX thread-specific slot for the whole library holds the marks of the thread's
/// calls in progress (a handful at most, usually one), so a check costs a slot read and a short scan —
/// not a thread-dictionary entry named by a string built for the call, and no allocation: a thread's
/// marks are made on its first call and kept for the next ones, and the slot's destructor releases
/// them when the thread ends, so nothing outlives a thread.
enum CallMarks {
    /// The marks of one thread's calls in progress, in the order they began.
    private final class Marks {
        var held: [ObjectIdentifier] = []
    }

    /// The slot, or nil when the system had no key left to give (then the thread dictionary serves).
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(
            &key,
            { slot in
                // Run by the system as the thread ends (with the slot's value, never nil there).
                if let slot = slot as UnsafeMutableRawPointer? { Unmanaged<Marks>.fromOpaque(slot).release() }
            }) == 0 ? key : nil
    }()

    /// Runs `body` marked as inside a call on `store` (its writer lock's identity, shared by its list
    /// handles); throws ``ListStoreError/reentrantCall`` when the thread already is.
    static func marking<T>(_ store: ObjectIdentifier, _ body: () throws -> T) throws -> T {
        guard let key else { return try markingInDictionary(store, body) }
        let marks: Marks
        if let slot = pthread_getspecific(key) {
            marks = Unmanaged<Marks>.fromOpaque(slot).takeUnretainedValue()
            guard !marks.held.contains(store) else { throw ListStoreError.reentrantCall }
        } else {
            marks = Marks()
            let slot = Unmanaged.passRetained(marks)
            guard pthread_setspecific(key, slot.toOpaque()) == 0 else {
                slot.release()
                return try markingInDictionary(store, body)  // no memory for the slot: as before, for this call
            }
        }
        marks.held.append(store)
        defer {
            // The last mark is this call's (calls end in the reverse order they began); its storage is kept.
            if let last = marks.held.lastIndex(of: store) { marks.held.remove(at: last) }
        }
        return try body()
    }

    /// ``marking(_:_:)`` through the thread's dictionary.
    private static func markingInDictionary<T>(_ store: ObjectIdentifier, _ body: () throws -> T) throws -> T {
        let threadStorage = Thread.current.threadDictionary
        let key = "ListStore.lock.\(UInt(bitPattern: store.hashValue))"
        guard threadStorage[key] == nil else { throw ListStoreError.reentrantCall }
        threadStorage[key] = true
        defer { threadStorage.removeObject(forKey: key) }
        return try body()
    }
}
