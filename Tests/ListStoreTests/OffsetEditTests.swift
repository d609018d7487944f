import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

/// SwiftUI `List`'s arguments as edits of what was drawn (`AsOfTransaction.moveRows(fromOffsets:…)`,
/// `deleteRows(atOffsets:inSection:)`): random multi-row moves against a plain-array model of
/// SwiftUI's documented `move(fromOffsets:toOffset:)`, across sections, deletes, and refusals.
@Suite struct OffsetEditTests {
    /// SwiftUI's `Array.move(fromOffsets:toOffset:)` as documented: the elements at `offsets` go, in
    /// their order, to `destination` — an offset in the array *before* the move — and the others keep
    /// theirs: those before `destination`, the moved ones, those at or after it.
    static func swiftUIMove<T>(_ array: [T], fromOffsets offsets: IndexSet, toOffset destination: Int) -> [T] {
        let kept = array.indices.filter { !offsets.contains($0) }
        return kept.filter { $0 < destination }.map { array[$0] } + offsets.map { array[$0] } + kept.filter { $0 >= destination }.map { array[$0] }
    }

    /// The titles after the rows drawn at `paths` are dropped into section `target` at drawn offset
    /// `destination`: they leave their sections and arrive together there, in index-path order.
    static func dropped(_ titles: [[String]], _ paths: [ListIndexPath], into target: Int, at destination: Int) -> [[String]] {
        let moving = Set(paths)
        let moved = paths.sorted().map { titles[$0.section][$0.row] }
        return titles.enumerated().map { section, rows in
            let kept = rows.indices.filter { !moving.contains(ListIndexPath(section: section, row: $0)) }
            guard section == target else { return kept.map { rows[$0] } }
            return kept.filter { $0 < destination }.map { rows[$0] } + moved + kept.filter { $0 >= destination }.map { rows[$0] }
        }
    }

    /// A random non-empty set of offsets below `count` (often not contiguous).
    static func randomOffsets(below count: Int, _ random: inout SeededGenerator) -> IndexSet {
        var offsets = IndexSet((0..<count).filter { _ in Int.random(in: 0..<10, using: &random) < 3 })
        if offsets.isEmpty { offsets.insert(Int.random(in: 0..<count, using: &random)) }
        return offsets
    }

    static func store(sections sizes: [Int]) throws -> ListStore {
        let store = try ListStore.inMemory()
        try store.write { tx in
            for (section, size) in sizes.enumerated() {
                try tx.insertSection(title: "s\(section)")
                try tx.insertRows((0..<size).map { "r\(section).\($0)" }, intoSection: section)
            }
        }
        return store
    }

    @Test func theArrayModelIsSwiftUIsDocumentedMove() {
        let rows = ["a", "b", "c", "d", "e"]
        // Dragging the first row below the second: SwiftUI gives destination 2 (the offset before the move).
        #expect(Self.swiftUIMove(rows, fromOffsets: [0], toOffset: 2) == ["b", "a", "c", "d", "e"])
        #expect(Self.swiftUIMove(rows, fromOffsets: [4], toOffset: 0) == ["e", "a", "b", "c", "d"])
        #expect(Self.swiftUIMove(rows, fromOffsets: [1, 3], toOffset: 5) == ["a", "c", "e", "b", "d"])
        #expect(Self.swiftUIMove(rows, fromOffsets: [0, 2, 4], toOffset: 2) == ["b", "a", "c", "e", "d"])
        #expect(Self.swiftUIMove(rows, fromOffsets: [1, 2], toOffset: 2) == rows)
        #expect(Self.swiftUIMove(rows, fromOffsets: [1, 2], toOffset: 1) == rows)
        #expect(Self.swiftUIMove(rows, fromOffsets: [1, 2], toOffset: 3) == rows)
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func randomMultiRowMovesWithinASectionAreSwiftUIsMove(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let store = try Self.store(sections: [1, 7, 15, 4])
        for step in 0..<150 {
            let drawn = try store.snapshot()
            let section = Int.random(in: 0..<drawn.sections.count, using: &random)
            let count = drawn.sections[section].rows.count
            let offsets = Self.randomOffsets(below: count, &random)
            let destination = Int.random(in: 0...count, using: &random)
            let changes = try store.write(asOf: drawn.version) { try $0.moveRows(fromOffsets: offsets, toOffset: destination, inSection: section) }
            var expected = drawn.titles
            expected[section] = Self.swiftUIMove(expected[section], fromOffsets: offsets, toOffset: destination)
            let now = try store.snapshot()
            #expect(now.titles == expected, "seed \(seed), step \(step): \(Array(offsets)) → \(destination) in section \(section)")
            // The change set takes a mirror of the drawn state to the store's.
            #expect(try drawn.applying(changes) == now, "seed \(seed), step \(step): the change set")
        }
    }

    @Test(arguments: [4 as UInt64, 5, 6])
    func randomMovesAcrossSectionsDropTheRowsAtTheDrawnOffset(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let store = try Self.store(sections: [6, 0, 9])
        for step in 0..<120 {
            let drawn = try store.snapshot()
            let sources = drawn.sections.indices.filter { !drawn.sections[$0].rows.isEmpty }
            let section = try #require(sources.randomElement(using: &random))
            let target = Int.random(in: 0..<drawn.sections.count, using: &random)
            let offsets = Self.randomOffsets(below: drawn.sections[section].rows.count, &random)
            let destination = Int.random(in: 0...drawn.sections[target].rows.count, using: &random)
            let changes = try store.write(asOf: drawn.version) {
                try $0.moveRows(fromOffsets: offsets, inSection: section, toSection: target, atOffset: destination)
            }
            let paths = offsets.map { ListIndexPath(section: section, row: $0) }
            let context = "seed \(seed), step \(step): \(paths) → \(target):\(destination)"
            #expect(try store.snapshot().titles == Self.dropped(drawn.titles, paths, into: target, at: destination), "\(context)")
            if section == target {
                var expected = drawn.titles
                expected[section] = Self.swiftUIMove(expected[section], fromOffsets: offsets, toOffset: destination)
                #expect(try store.snapshot().titles == expected, "\(context): the same section is SwiftUI's move")
            }
            #expect(try drawn.applying(changes) == store.snapshot(), "\(context): the change set")
        }
    }

    @Test func randomSelectionsFromSeveralSectionsArriveTogetherInDrawnOrder() throws {
        var random = SeededGenerator(seed: 7)
        let store = try Self.store(sections: [5, 8, 3])
        for step in 0..<150 {
            let drawn = try store.snapshot()
            let all = drawn.sections.indices.flatMap { s in drawn.sections[s].rows.indices.map { ListIndexPath(section: s, row: $0) } }
            var paths = all.filter { _ in Int.random(in: 0..<10, using: &random) < 2 }
            if paths.isEmpty, let one = all.randomElement(using: &random) { paths = [one] }
            paths.shuffle(using: &random)  // any order: they arrive in drawn order
            let target = Int.random(in: 0..<drawn.sections.count, using: &random)
            let destination = Int.random(in: 0...drawn.sections[target].rows.count, using: &random)
            try store.write(asOf: drawn.version) { try $0.moveRows(at: paths, toSection: target, atOffset: destination) }
            #expect(try store.snapshot().titles == Self.dropped(drawn.titles, paths, into: target, at: destination), "step \(step): \(paths) → \(target):\(destination)")
        }
    }

    @Test func randomDeletesAtOffsetsDeleteTheDrawnRows() throws {
        var random = SeededGenerator(seed: 8)
        let store = try Self.store(sections: [30, 40])
        for step in 0..<40 {
            let drawn = try store.snapshot()
            let sources = drawn.sections.indices.filter { !drawn.sections[$0].rows.isEmpty }
            guard let section = sources.randomElement(using: &random) else { break }
            let offsets = Self.randomOffsets(below: drawn.sections[section].rows.count, &random)
            try store.write(asOf: drawn.version) { try $0.deleteRows(atOffsets: offsets, inSection: section) }
            var expected = drawn.titles
            expected[section] = expected[section].indices.filter { !offsets.contains($0) }.map { expected[section][$0] }
            #expect(try store.snapshot().titles == expected, "step \(step): \(Array(offsets)) of section \(section)")
        }
    }

    @Test func movesAndDeletesActOnTheDrawnRowsAfterAnotherConnectionInsertedAboveThem() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("offsets.sqlite")
        let app = try ListStore.open(at: path)
        try app.insertSection(title: "S")
        try app.insertRows(["a", "b", "c", "d", "e"], intoSection: 0)
        let other = try ListStore.open(at: path)
        // A drag of b and d to the top, as drawn; meanwhile two rows arrive above them, one between.
        var drawn = try app.snapshot()
        try other.insertRows(["x", "y"], intoSection: 0, at: 0)
        try other.insertRow("z", intoSection: 0, at: 4)  // x y a b z c d e
        try app.write(asOf: drawn.version) { try $0.moveRows(fromOffsets: [1, 3], toOffset: 0, inSection: 0) }
        #expect(try app.snapshot().titles == [["x", "y", "b", "d", "a", "z", "c", "e"]])
        // To the end, as drawn: after e, wherever it is now.
        drawn = try app.snapshot()
        try other.insertRow("w", intoSection: 0, at: 0)
        try app.write(asOf: drawn.version) { try $0.moveRows(fromOffsets: [0, 4], toOffset: 8, inSection: 0) }
        #expect(try app.snapshot().titles == [["w", "y", "b", "d", "z", "c", "e", "x", "a"]])
        // A swipe on what was drawn.
        drawn = try app.snapshot()
        try other.insertRow("v", intoSection: 0, at: 0)
        try app.write(asOf: drawn.version) { try $0.deleteRows(atOffsets: [1, 2], inSection: 0) }
        #expect(try app.snapshot().titles == [["v", "w", "d", "z", "c", "e", "x", "a"]])
    }

    /// Random drags as drawn while another connection inserts, deletes and moves rows after the draw:
    /// the moved rows (by id) arrive together in the drawn order in the section drawn as the target,
    /// every other row keeps its order as the other connection left it, and a drag of a row deleted
    /// since is refused with nothing changed.
    @Test func randomDragsAsDrawnWhileAnotherConnectionCommitsMoveTheDrawnRows() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("concurrent.sqlite")
        let app = try ListStore.open(at: path)
        try app.write { tx in
            for section in 0..<3 {
                try tx.insertSection(title: "s\(section)")
                try tx.insertRows((0..<8).map { "r\(section).\($0)" }, intoSection: section)
            }
        }
        let other = try ListStore.open(at: path)
        var random = SeededGenerator(seed: 9)
        var refused = 0
        var acted = 0
        for step in 0..<150 {
            let drawn = try app.snapshot()
            let sources = drawn.sections.indices.filter { !drawn.sections[$0].rows.isEmpty }
            let section = try #require(sources.randomElement(using: &random))
            let target = Int.random(in: 0..<drawn.sections.count, using: &random)
            let offsets = Self.randomOffsets(below: drawn.sections[section].rows.count, &random)
            let destination = Int.random(in: 0...drawn.sections[target].rows.count, using: &random)
            // The other connection's commits after the draw.
            var movedByOther: Set<RowID> = []
            for commit in 0..<Int.random(in: 1...3, using: &random) {
                try other.write { tx in
                    let s = Int.random(in: 0..<3, using: &random)
                    let count = try tx.rowCount(inSection: s)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0 where count > 2: try tx.deleteRows(at: [ListIndexPath(section: s, row: Int.random(in: 0..<count, using: &random))])
                    case 1 where count > 0:
                        let t = Int.random(in: 0..<3, using: &random)
                        let max = try tx.rowCount(inSection: t) - (t == s ? 1 : 0)
                        let from = ListIndexPath(section: s, row: Int.random(in: 0..<count, using: &random))
                        movedByOther.insert(try tx.row(at: from).id)
                        try tx.moveRow(from: from, to: ListIndexPath(section: t, row: Int.random(in: 0...max, using: &random)))
                    default: try tx.insertRow("o\(step).\(commit)", intoSection: s, at: Int.random(in: 0...count, using: &random))
                    }
                }
            }
            let moved = offsets.map { drawn.sections[section].rows[$0].id }
            let before = try app.snapshot()
            let context = "step \(step): \(Array(offsets)) of \(section) → \(target):\(destination)"
            do {
                try app.write(asOf: drawn.version) { try $0.moveRows(fromOffsets: offsets, inSection: section, toSection: target, atOffset: destination) }
            } catch let error as ListStoreError {
                guard case .drawnRowDeleted(_, let id, _) = error.reason else { throw error }
                #expect(moved.contains(id) && before.indexPath(of: id) == nil, "\(context)")
                #expect(try app.snapshot() == before, "\(context): a refusal changed something")
                refused += 1
                continue
            }
            acted += 1
            let after = try app.snapshot()
            let targetRows = after.sections[target].rows.map(\.id)
            // Together, in drawn order, in the target section.
            let first = try #require(targetRows.firstIndex(of: moved[0]), "\(context)")
            #expect(Array(targetRows[first..<min(first + moved.count, targetRows.count)]) == moved, "\(context): not together in drawn order")
            // Everything else as the other connection left it.
            let movedSet = Set(moved)
            #expect(
                after.sections.map { $0.rows.map(\.id).filter { !movedSet.contains($0) } } == before.sections.map { $0.rows.map(\.id).filter { !movedSet.contains($0) } },
                "\(context)")
            // Right before the row drawn below the gap while it stays where it was; after the row drawn
            // above it while that one stays (also when the one below moved away or was deleted).
            let drawnTarget = drawn.sections[target].rows.map(\.id)
            let stays = { (id: RowID) in !movedByOther.contains(id) && before.indexPath(of: id) != nil }
            if let below = drawnTarget[destination...].first(where: { !movedSet.contains($0) }), stays(below) {
                #expect(targetRows.firstIndex(of: below) == first + moved.count, "\(context): not right before the row drawn below the gap")
            }
            if let above = drawnTarget[..<destination].last(where: { !movedSet.contains($0) }), stays(above) {
                #expect(targetRows.firstIndex(of: above).map { $0 < first } == true, "\(context): not after the row drawn above the gap")
            }
        }
        #expect(refused > 0 && acted > 100, "refused \(refused), acted \(acted)")
    }

    @Test func rowsGoneOrPlacesOutOfRangeAreRefusedAndNothingChanges() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("refusals.sqlite")
        let app = try ListStore.open(at: path)
        try app.insertSection(title: "S")
        try app.insertSection(title: "T")
        try app.insertRows(["a", "b", "c"], intoSection: 0)
        let other = try ListStore.open(at: path)
        let drawn = try app.snapshot()
        try other.deleteRows(at: [ListIndexPath(section: 0, row: 2)])
        let before = try app.snapshot()
        #expect(throws: ListStoreError.drawnRowDeleted(ListIndexPath(section: 0, row: 2), id: drawn.sections[0].rows[2].id, asOf: drawn.version)) {
            try app.write(asOf: drawn.version) { try $0.moveRows(fromOffsets: [0, 2], toOffset: 0, inSection: 0) }
        }
        #expect(throws: ListStoreError.drawnRowDeleted(ListIndexPath(section: 0, row: 2), id: drawn.sections[0].rows[2].id, asOf: drawn.version)) {
            try app.write(asOf: drawn.version) { try $0.deleteRows(atOffsets: [0, 2], inSection: 0) }
        }
        let now = try app.snapshot()
        #expect(throws: ListStoreError.drawnRowDestinationOutOfRange(ListIndexPath(section: 0, row: 3), maxRow: 2, asOf: now.version)) {
            try app.write(asOf: now.version) { try $0.moveRows(fromOffsets: [0], toOffset: 3, inSection: 0) }
        }
        #expect(throws: ListStoreError.drawnRowIndexOutOfRange(ListIndexPath(section: 0, row: 2), rowCount: 2, asOf: now.version)) {
            try app.write(asOf: now.version) { try $0.moveRows(fromOffsets: [0, 2], inSection: 0, toSection: 1, atOffset: 0) }
        }
        #expect(throws: ListStoreError.duplicateIndexPath(ListIndexPath(section: 0, row: 0))) {
            try app.write(asOf: now.version) {
                try $0.moveRows(at: [ListIndexPath(section: 0, row: 0), ListIndexPath(section: 0, row: 0)], toSection: 1, atOffset: 0)
            }
        }
        #expect(try app.snapshot() == before)
        // The same edits on rows that are all still there act.
        try app.write(asOf: now.version) { try $0.moveRows(fromOffsets: [0, 1], inSection: 0, toSection: 1, atOffset: 0) }
        #expect(try app.snapshot().titles == [[], ["a", "b"]])
    }
}
