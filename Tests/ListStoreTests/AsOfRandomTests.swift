import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

/// Random draws, random commits by another connection, random edits as of the drawn version: each is
/// checked against what the drawn snapshot says the drawn paths named (by id).
@Suite struct AsOfRandomTests {
    typealias Path = ListIndexPath

    @Test func randomEditsAsDrawnActOnWhatWasDrawn() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("random.sqlite")
        let app = try ListStore.open(at: path)
        let other = try ListStore.open(at: path)
        var random = SeededGenerator(seed: 2_020)
        try app.write { tx in
            for s in 0..<4 {
                let section = try tx.insertSection(title: "s\(s)")
                try tx.insertRows((0..<5).map { "r\(s).\($0)" }, intoSection: section)
            }
        }
        var counter = 0
        var outcomes: [String: Int] = [:]
        for step in 0..<400 {
            let drawn = try app.snapshot()
            var moved = Moved()
            for _ in 0..<Int.random(in: 0...3, using: &random) { try Self.randomCommit(other, &random, &counter, &moved) }
            let now = try app.snapshot()
            let context = "step \(step) (seed 2020)"
            let outcome = try Self.randomEditAsOf(app, drawn: drawn, now: now, moved: moved, &random, &counter, context)
            outcomes[outcome, default: 0] += 1
            if try app.totalRowCount() < 6 || app.sectionCount() < 2 {
                try other.write { tx in
                    let section = try tx.insertSection(title: "refill \(step)")
                    try tx.insertRows((0..<6).map { "f\(step).\($0)" }, intoSection: section)
                }
            }
        }
        // Every kind of edit was tried, and both acted and were refused.
        for kind in ["delete", "update", "move", "insert", "delete section", "move section", "insert section"] {
            #expect(outcomes[kind + " acted", default: 0] > 0, "\(kind) never acted: \(outcomes)")
        }
        for kind in ["delete", "update", "move", "delete section", "move section"] {
            #expect(outcomes[kind + " refused", default: 0] > 0, "\(kind) never refused: \(outcomes)")
        }
    }

    /// One commit by another connection, in its current coordinates.
    /// What other connections moved since the draw: a moved neighbour no longer bounds where a drawn gap is.
    struct Moved {
        var rows: Set<RowID> = []
        var sections: Set<SectionID> = []
    }

    static func randomCommit(_ store: ListStore, _ random: inout SeededGenerator, _ counter: inout Int, _ moved: inout Moved) throws {
        let state = try store.snapshot()
        counter += 1
        let sections = state.sections
        let nonEmpty = sections.indices.filter { !sections[$0].rows.isEmpty }
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1:
            guard let s = sections.indices.randomElement(using: &random) else { return }
            try store.insertRows(
                ["o\(counter)", "o\(counter)b"].prefix(Int.random(in: 1...2, using: &random)).map { $0 }, intoSection: s,
                at: Int.random(in: 0...sections[s].rows.count, using: &random))
        case 2, 3:
            guard let s = nonEmpty.randomElement(using: &random) else { return }
            try store.deleteRows(at: [Path(section: s, row: Int.random(in: 0..<sections[s].rows.count, using: &random))])
        case 4, 5:
            guard let s = nonEmpty.randomElement(using: &random), let t = sections.indices.randomElement(using: &random) else { return }
            let from = Path(section: s, row: Int.random(in: 0..<sections[s].rows.count, using: &random))
            let limit = s == t ? sections[t].rows.count - 1 : sections[t].rows.count
            try store.moveRow(from: from, to: Path(section: t, row: Int.random(in: 0...limit, using: &random)))
            if let row = state[from] { moved.rows.insert(row.id) }
        case 6:
            let from = Int.random(in: 0..<sections.count, using: &random)
            try store.moveSection(from: from, to: Int.random(in: 0..<sections.count, using: &random))
            moved.sections.insert(sections[from].id)
        case 7:
            guard sections.count > 2 else { return }
            try store.deleteSections(at: [Int.random(in: 0..<sections.count, using: &random)])
        default:
            try store.insertSection(title: "os\(counter)", at: Int.random(in: 0...sections.count, using: &random))
        }
    }

    /// One random edit as of `drawn`, checked; returns its kind and whether it acted or was refused.
    static func randomEditAsOf(
        _ store: ListStore, drawn: ListSnapshot, now: ListSnapshot, moved: Moved, _ random: inout SeededGenerator, _ counter: inout Int,
        _ context: String
    ) throws -> String {
        let version = drawn.version
        let nowRows = Dictionary(uniqueKeysWithValues: now.sections.flatMap { s in s.rows.map { ($0.id, s.id) } })
        let nowSections = Set(now.sections.map(\.id))
        let drawnRows = drawn.sections.indices.flatMap { s in drawn.sections[s].rows.indices.map { Path(section: s, row: $0) } }
        func exists(_ path: Path) -> Bool { drawn[path].map { nowRows[$0.id] != nil } ?? false }
        // A third of the picks among what was deleted since, when something was, so that refusals are tried often.
        let goneRows = drawnRows.filter { !exists($0) }
        func pickRow() -> Path? {
            if !goneRows.isEmpty, Int.random(in: 0..<3, using: &random) == 0 { return goneRows.randomElement(using: &random) }
            return drawnRows.randomElement(using: &random)
        }
        let goneSections = drawn.sections.indices.filter { !nowSections.contains(drawn.sections[$0].id) }
        func pickSection() -> Int {
            if !goneSections.isEmpty, Int.random(in: 0..<3, using: &random) == 0, let s = goneSections.randomElement(using: &random) { return s }
            return Int.random(in: 0..<drawn.sections.count, using: &random)
        }
        /// Runs `edit`, expecting a refusal exactly when `refused`; on a refusal the store is unchanged.
        func attempt(_ kind: String, refused: Bool, _ edit: () throws -> Void) throws -> String {
            do {
                try edit()
                #expect(!refused, "\(context): \(kind) should have been refused")
                return kind + " acted"
            } catch let error as ListStoreError {
                switch error.reason {
                case .drawnRowDeleted, .drawnSectionDeleted: break
                default: Issue.record("\(context): \(kind): \(error)")
                }
                #expect(refused, "\(context): \(kind) refused: \(error)")
                #expect(try store.snapshot() == now, "\(context): a refused \(kind) changed the store")
                return kind + " refused"
            }
        }
        counter += 1
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1:
            var picked = Array(drawnRows.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random)))
            if let extra = pickRow(), !picked.contains(extra) { picked.append(extra) }
            guard !picked.isEmpty else { return "none" }
            let ids = Set(picked.compactMap { drawn[$0]?.id })
            return try attempt("delete", refused: !picked.allSatisfy(exists)) {
                try store.deleteRows(at: picked, asOf: version)
                var expected = now
                for s in expected.sections.indices { expected.sections[s].rows.removeAll { ids.contains($0.id) } }
                #expect(try store.snapshot() == expected, "\(context): delete \(picked)")
            }
        case 2:
            guard let picked = pickRow(), let id = drawn[picked]?.id else { return "none" }
            return try attempt("update", refused: !exists(picked)) {
                try store.updateRow(at: picked, asOf: version, title: "u\(counter)")
                #expect(try store.row(id: id).title == "u\(counter)", "\(context): update \(picked)")
            }
        case 3, 4:
            guard let from = pickRow(), let id = drawn[from]?.id,
                let t = drawn.sections.indices.randomElement(using: &random)
            else { return "none" }
            let limit = from.section == t ? drawn.sections[t].rows.count - 1 : drawn.sections[t].rows.count
            let to = Path(section: t, row: Int.random(in: 0...limit, using: &random))
            // The drawn neighbours of the drop, in the drawn list without the moved row.
            var targetRows = drawn.sections[t].rows.map(\.id)
            targetRows.removeAll { $0 == id }
            let above = to.row > 0 ? targetRows[to.row - 1] : nil
            let below = to.row < targetRows.count ? targetRows[to.row] : nil
            let targetSection = drawn.sections[t].id
            return try attempt("move", refused: !exists(from) || !nowSections.contains(targetSection)) {
                try store.moveRow(from: from, to: to, asOf: version)
                try expectBetween(id, above, below, in: targetSection, moved: moved, store, "\(context): move \(from) → \(to)")
            }
        case 5:
            let s = Int.random(in: 0..<drawn.sections.count, using: &random)
            let gap = Int.random(in: 0...drawn.sections[s].rows.count, using: &random)
            let rows = drawn.sections[s].rows.map(\.id)
            let above = gap > 0 ? rows[gap - 1] : nil
            let below = gap < rows.count ? rows[gap] : nil
            return try attempt("insert", refused: !nowSections.contains(drawn.sections[s].id)) {
                let (id, changes) = try store.insertRow("i\(counter)", intoSection: s, at: gap, asOf: version)
                #expect(changes.insertedRows.map(\.id) == [id])
                try expectBetween(id, above, below, in: drawn.sections[s].id, moved: moved, store, "\(context): insert at \(s):\(gap)")
            }
        case 6:
            let s = pickSection()
            let id = drawn.sections[s].id
            if Bool.random(using: &random) {
                return try attempt("delete section", refused: !nowSections.contains(id)) {
                    try store.deleteSections(at: [s], asOf: version)
                    #expect(try store.index(of: id) == nil, "\(context): delete section \(s)")
                    var expected = now
                    expected.sections.removeAll { $0.id == id }
                    #expect(try store.snapshot() == expected, "\(context): delete section \(s)")
                }
            }
            let to = Int.random(in: 0..<drawn.sections.count, using: &random)
            var order = drawn.sections.map(\.id)
            order.removeAll { $0 == id }
            let above = to > 0 ? order[to - 1] : nil
            let below = to < order.count ? order[to] : nil
            return try attempt("move section", refused: !nowSections.contains(id)) {
                try store.moveSection(from: s, to: to, asOf: version)
                try expectBetween(id, above, below, in: try store.sections().map(\.id), moved: moved.sections, "\(context): move section \(s) → \(to)")
            }
        default:
            let at = Int.random(in: 0...drawn.sections.count, using: &random)
            let above = at > 0 ? drawn.sections[at - 1].id : nil
            let below = at < drawn.sections.count ? drawn.sections[at].id : nil
            return try attempt("insert section", refused: false) {
                let (id, changes) = try store.insertSection(title: "is\(counter)", at: at, asOf: version)
                #expect(changes.insertedSections.map(\.id) == [id])
                try expectBetween(id, above, below, in: try store.sections().map(\.id), moved: moved.sections, "\(context): insert section at \(at)")
            }
        }
    }

    /// `id` is in section `section`, after `above` and before `below` — those of them that are still in it
    /// and that nobody moved since the draw (a moved neighbour bounds nothing).
    static func expectBetween(
        _ id: RowID, _ above: RowID?, _ below: RowID?, in section: SectionID, moved: Moved, _ store: ListStore, _ context: String
    ) throws {
        let rows = try store.snapshot(ofSection: section).rows.map(\.id)
        #expect(rows.contains(id), "\(context): not in the drawn section")
        try expectBetween(id, above, below, in: rows, moved: moved.rows, context)
    }

    /// `id` in `order` after `above` and before `below`, where those are there and were not moved.
    static func expectBetween<ID: Hashable>(_ id: ID, _ above: ID?, _ below: ID?, in order: [ID], moved: Set<ID>, _ context: String) throws {
        let index = try #require(order.firstIndex(of: id), "\(context): not found")
        if let above, !moved.contains(above), let a = order.firstIndex(of: above) { #expect(a < index, "\(context): lands before what was drawn above it") }
        if let below, !moved.contains(below), let b = order.firstIndex(of: below) { #expect(index < b, "\(context): lands after what was drawn below it") }
    }
}
