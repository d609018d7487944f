import SQLiteLayer
import Testing

@testable import ListStore

/// The positions engine against a plain array (issue 18, item 5): seeded random inserts, moves and
/// deletes of one and of many rows at random indexes, with block and page sizes small enough that
/// every step splits or merges something. After every step: the store's rows are the model's, every
/// row's index path (`indexPath(of:)`) is its place in the model, the change set turns the state before
/// into the state after, and `check`'s position invariants hold.
@Suite(.tags(.slow)) struct PositionsModelTests {
    static let sizes: [RowBlockSizes] = [
        RowBlockSizes(blockCapacity: 2, pageCapacity: 2),
        RowBlockSizes(blockCapacity: 4, pageCapacity: 3),
        RowBlockSizes(blockCapacity: 7, pageCapacity: 5),
    ]

    @Test(arguments: [0, 1, 2])
    func randomEditsMatchAnArray(sizesIndex: Int) throws {
        let sizes = Self.sizes[sizesIndex]
        let directory = try TemporaryDirectory()
        let path = directory.path("positions.sqlite")
        let store = try ListStore.open(at: path, rowBlockSizes: sizes)
        var random = SeededGenerator(seed: 18_000 + UInt64(sizesIndex))
        var model: [[RowID]] = []
        var next = 0
        func title() -> String {
            next += 1
            return "r\(next)"
        }
        for section in 0..<3 { _ = try store.insertSection(title: "S\(section)") }
        model = [[], [], []]
        for step in 0..<1_500 {
            let before = try store.snapshot()
            let changes: ChangeSet
            let total = model.reduce(0) { $0 + $1.count }
            let choice = total < 8 ? 0 : Int.random(in: 0..<10, using: &random)
            let section = Int.random(in: 0..<model.count, using: &random)
            switch choice {
            case 0, 1, 2:
                let width = Int.random(in: 0..<6, using: &random) == 0 ? Int.random(in: 2...30, using: &random) : 1
                let at = Int.random(in: 0...model[section].count, using: &random)
                let rows = (0..<width).map { _ in NewRow(title: title()) }
                let result = try store.insertRows(rows, intoSection: section, at: at)
                model[section].insert(contentsOf: result.ids, at: at)
                changes = result.changes
            case 3, 4, 5:
                guard !model[section].isEmpty else { continue }
                let from = Int.random(in: 0..<model[section].count, using: &random)
                let targetSection = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<model.count, using: &random) : section
                let id = model[section].remove(at: from)
                let to = Int.random(in: 0...model[targetSection].count, using: &random)
                model[targetSection].insert(id, at: to)
                changes = try store.moveRow(from: ListIndexPath(section: section, row: from), to: ListIndexPath(section: targetSection, row: to))
            case 6, 7:
                guard !model[section].isEmpty else { continue }
                let count = Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 1...min(40, model[section].count), using: &random) : 1
                let doomed = Array(model[section].indices.shuffled(using: &random).prefix(count))
                changes = try store.deleteRows(at: doomed.map { ListIndexPath(section: section, row: $0) })
                for index in doomed.sorted(by: >) { model[section].remove(at: index) }
            case 8:
                // The "add to every section" button.
                let result = try store.appendRowToEverySection(NewRow(title: title()))
                for (offset, id) in result.ids.enumerated() { model[offset].append(id) }
                changes = result.changes
            default:
                // Many rows deleted by id across sections, scattered.
                let all = model.enumerated().flatMap { section, ids in ids.map { (section, $0) } }
                let doomed = Array(all.shuffled(using: &random).prefix(Int.random(in: 1...10, using: &random)))
                changes = try store.deleteRows(ids: doomed.map(\.1))
                let gone = Set(doomed.map(\.1))
                model = model.map { $0.filter { !gone.contains($0) } }
            }
            let after = try store.snapshot()
            let context = "sizes \(sizes), step \(step), choice \(choice)"
            try #require(after.sections.map { $0.rows.map(\.id) } == model, "\(context): the rows differ from the model")
            try #require(try before.applying(changes).sections == after.sections, "\(context): the change set does not lead from before to after")
            try store.read { reader in
                for (s, ids) in model.enumerated() {
                    for (r, id) in ids.enumerated() {
                        let found = try reader.indexPath(of: id)
                        guard found == ListIndexPath(section: s, row: r) else {
                            Issue.record("\(context): \(id) is at \(String(describing: found)), the model has \(s):\(r)")
                            return
                        }
                    }
                    let page = try reader.rows(inSection: s, range: 0..<ids.count)
                    #expect(page.map(\.id) == ids, "\(context): rows(inSection:range:) of section \(s)")
                }
            }
            let problems = try ModelBasedTests.positionProblems(store)
            try #require(problems.isEmpty, "\(context): \(problems)")
        }
        #expect(try store.checkInvariants().isEmpty)
    }
}

extension PositionsModelTests {
    /// The adversarial patterns of issue 18: thousands of inserts at one index, and alternating between
    /// two neighbours, run out the room between two rows again and again (20 halvings of the gap) and
    /// fill block after block; the order, the index paths and the invariants hold throughout.
    @Test(arguments: [false, true])
    func insertsAtOneIndexKeepFindingRoom(alternating: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("adversary.sqlite"), rowBlockSizes: RowBlockSizes(blockCapacity: 8, pageCapacity: 4))
        _ = try store.insertSection(title: "S")
        var model = try store.insertRows((0..<40).map { NewRow(title: "base \($0)") }, intoSection: 0).ids
        for step in 0..<3_000 {
            let index = alternating && step % 2 == 1 ? 21 : 20
            let id = try store.insertRows([NewRow(title: "n\(step)")], intoSection: 0, at: index).ids[0]
            model.insert(id, at: index)
            if step % 250 == 0 || step == 2_999 {
                try #require(try store.snapshot().sections[0].rows.map(\.id) == model, "step \(step)")
                let problems = try ModelBasedTests.positionProblems(store)
                try #require(problems.isEmpty, "step \(step): \(problems)")
                try store.read { reader in
                    for probe in stride(from: 0, to: model.count, by: 97) {
                        let found = try reader.indexPath(of: model[probe])
                        #expect(found?.row == probe)
                    }
                }
            }
        }
        #expect(try store.checkInvariants().isEmpty)
    }
}

extension PositionsModelTests {
    /// The same against a 100,000-row store with the standard sizes: single and multi-row inserts,
    /// moves within and across sections and scattered deletes at random indexes; every change set
    /// applied to a mirror, sampled index paths after every step, the whole state and `check` every 40.
    @Test func aHundredThousandRowsWithTheStandardSizes() throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: directory.path("large.sqlite"))
        _ = try store.insertSection(title: "big")
        _ = try store.insertSection(title: "small")
        var model = [try store.insertRows((0..<100_000).map { NewRow(title: "row \($0)") }, intoSection: 0).ids, [RowID]()]
        var mirror = try store.snapshot()
        var random = SeededGenerator(seed: 1_000_000)
        for step in 0..<240 {
            let section = Int.random(in: 0..<8, using: &random) == 0 ? 1 : 0
            let changes: ChangeSet
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let at = Int.random(in: 0...model[section].count, using: &random)
                let width = Int.random(in: 0..<4, using: &random) == 0 ? 300 : 1
                let result = try store.insertRows((0..<width).map { NewRow(title: "n\(step).\($0)") }, intoSection: section, at: at)
                model[section].insert(contentsOf: result.ids, at: at)
                changes = result.changes
            case 1, 2:
                guard !model[section].isEmpty else { continue }
                let from = Int.random(in: 0..<model[section].count, using: &random)
                let target = Int.random(in: 0..<3, using: &random) == 0 ? 1 - section : section
                let id = model[section].remove(at: from)
                let to = Int.random(in: 0...model[target].count, using: &random)
                model[target].insert(id, at: to)
                changes = try store.moveRow(from: ListIndexPath(section: section, row: from), to: ListIndexPath(section: target, row: to))
            default:
                guard model[section].count > 1_000 else { continue }
                let doomed = Array(Set((0..<1_000).map { _ in Int.random(in: 0..<model[section].count, using: &random) }))
                changes = try store.deleteRows(at: doomed.map { ListIndexPath(section: section, row: $0) })
                for index in doomed.sorted(by: >) { model[section].remove(at: index) }
            }
            try mirror.apply(changes)
            try store.read { reader in
                for _ in 0..<20 {
                    let s = Int.random(in: 0..<2, using: &random)
                    guard !model[s].isEmpty else { continue }
                    let r = Int.random(in: 0..<model[s].count, using: &random)
                    let found = try reader.indexPath(of: model[s][r])
                    #expect(found == ListIndexPath(section: s, row: r), "step \(step)")
                    let page = try reader.rows(inSection: s, range: r..<min(r + 50, model[s].count)).map(\.id)
                    #expect(page == Array(model[s][r..<min(r + 50, model[s].count)]), "step \(step)")
                }
            }
            if step % 40 == 39 {
                let state = try store.snapshot()
                try #require(state.sections.map { $0.rows.map(\.id) } == model, "step \(step)")
                try #require(mirror.sections == state.sections, "step \(step): the change sets do not add up")
                let problems = try ModelBasedTests.positionProblems(store)
                try #require(problems.isEmpty, "step \(step): \(problems)")
            }
        }
    }
}
