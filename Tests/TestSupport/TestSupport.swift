import Foundation

/// A fresh temporary directory, removed (with everything in it) when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates a new, empty directory under the system's temporary directory.
    public init(prefix: String = "liststore-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        // Tests may have made files read-only; removal needs write permission again.
        if let files = FileManager.default.enumerator(atPath: url.path) {
            for case let file as String in files {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.appendingPathComponent(file).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// A deterministic random number generator (SplitMix64), so randomized tests replay exactly.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    /// The seed it started from: failure messages name it, so a failing run can be replayed.
    public let seed: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Reads the whole file, to prove a failed operation left it byte-for-byte unchanged.
public func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Lets a task group's child advance an iterator that the caller then keeps using.
private final class IteratorBox<Element: Sendable>: @unchecked Sendable {
    var iterator: AsyncThrowingStream<Element, any Error>.Iterator
    init(_ iterator: AsyncThrowingStream<Element, any Error>.Iterator) { self.iterator = iterator }
    func next() async throws -> Element? { try await iterator.next() }
}

/// The stream's next element, or nil when it ended; throws `TimedOut` after `timeout` (generous: other
/// tests may load the machine), so a missing element fails a test instead of hanging the suite.
public func nextElement<Element: Sendable>(
    _ iterator: inout AsyncThrowingStream<Element, any Error>.Iterator,
    timeout: Duration = .seconds(60)
) async throws -> Element? {
    let box = IteratorBox(iterator)
    let result: Element?? = try await withThrowingTaskGroup(of: Element??.self) { group in
        group.addTask { .some(try await box.next()) }
        group.addTask {
            try await Task.sleep(for: timeout)
            return .none
        }
        let first = try await group.next() ?? .none
        group.cancelAll()
        return first
    }
    iterator = box.iterator
    guard let result else { throw TimedOut(seconds: timeout) }
    return result
}

/// A wait that did not end in time.
public struct TimedOut: Error, CustomStringConvertible {
    /// How long it waited.
    public let seconds: Duration
    public var description: String { "timed out after \(seconds)" }
}
