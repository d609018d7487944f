import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The history's bound (UndoAndRedo.md, "The bound") when writes count an author's entries
/// only every `limit / 8` writes: never more than `limit + 2 × (limit / 8)` of an author's transactions
/// in a list, never fewer than `limit` once that many were made, and the last `limit` always undoable.
@Suite struct HistoryBoundTests {
    static func kept(_ path: String, author: String) throws -> Int {
        try Connection(path: path, mode: .readOnly).scalarInt(
            "SELECT count(*) FROM liststore_history WHERE author = ?1 AND kind IN ('do', 'redo')", [.text(author)]) ?? -1
    }

    @Test(arguments: [16, 100]) func theBoundHolds(limit: Int) throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("bound.sqlite")
        let store = try ListStore.open(at: path, author: "app", historyLimit: limit)
        let other = try ListStore.open(at: path, author: "other", historyLimit: limit)
        let section = try store.insertSection(title: "S").id
        var most = 0
        for n in 0..<(3 * limit) {
            try store.insertRow("r\(n)", intoSection: section)
            if n % 3 == 0 { try other.insertRow("o\(n)", intoSection: section) }
            let kept = try Self.kept(path, author: "app")
            most = max(most, kept)
            #expect(kept >= min(n + 2, limit), "after \(n + 2) transactions")
        }
        #expect(most <= limit + 2 * (limit / 8), "at most \(most)")
        #expect(most > limit, "pruned only once limit / 8 more gathered")
        for _ in 0..<limit { try store.undo() }
    }

    /// An author or action name refuses exactly the control characters (general category Cc), now
    /// found by value: the same scalars as Unicode's property says.
    @Test func controlCharactersAreTheUnicodeOnes() throws {
        var differing: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            var name = "a"
            name.unicodeScalars.append(scalar)
            let refused = (try? HistoryNames.checkedAuthor(name)) == nil
            if refused != (scalar.properties.generalCategory == .control) { differing.append(value) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10).map { String($0, radix: 16) })")
    }
}
