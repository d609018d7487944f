import Foundation
import ListStore

/// A fresh temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("liststore-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// A deterministic random number generator (SplitMix64), so randomized tests replay exactly.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension ListSnapshot {
    /// Titles only, section by section: the easiest shape to compare in seed scenarios.
    var titles: [[String]] { sections.map { $0.rows.map(\.title) } }
}

/// Reads the whole file, to prove a failed operation left it byte-for-byte unchanged.
func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
