import Foundation
import Testing

@testable import ListStore

/// Undo under random edits by two authors, and what observers of another connection see of it.
@Suite struct UndoRandomTests {
    /// One random edit by `store`, named by ids (so that it means the same whatever the other author did).
    static func randomEdit(_ store: ListStore, _ random: inout SeededGenerator, tag: String) throws {
        let state = try store.snapshot()
        let rows = state.sections.flatMap(\.rows)
        let choice = rows.isEmpty ? 0 : Int.random(in: 0..<9, using: &random)
        switch choice {
        case 0:
            if state.sections.isEmpty || Bool.random(using: &random) {
                try store.insertSection(title: "\(tag) section", at: Int.random(in: 0...state.sections.count, using: &random))
            } else {
                let section = state.sections.randomElement(using: &random)?.id ?? SectionID(rawValue: 0)
                let count = Int.random(in: 1...3, using: &random)
                try store.insertRows((0..<count).map { NewRow(title: "\(tag) \($0)", payload: #"{"by":"\#(tag)"}"#) }, intoSection: section)
            }
        case 1, 2:
            let doomed = Array(rows.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random))).map(\.id)
            try store.deleteRows(ids: doomed)
        case 3, 4:
            guard let row = rows.randomElement(using: &random), let target = state.sections.randomElement(using: &random) else { return }
            try store.moveRow(id: row.id, toSection: target.id, at: Int.random(in: 0...target.rows.count, using: &random) == 0 ? 0 : nil)
        case 5, 6:
            guard let row = rows.randomElement(using: &random) else { return }
            try store.updateRow(id: row.id, title: "\(tag) edited \(Int.random(in: 0..<1000, using: &random))")
        case 7:
            guard state.sections.count > 1 else { return }
            try store.moveSection(from: Int.random(in: 0..<state.sections.count, using: &random), to: Int.random(in: 0..<state.sections.count, using: &random))
        default:
            guard let section = state.sections.randomElement(using: &random) else { return }
            if Bool.random(using: &random) {
                try store.renameSection(id: section.id, to: "\(tag) renamed")
            } else if state.sections.count > 2 {
                try store.deleteSections(ids: [section.id])
            }
        }
    }

    /// Random edits by two authors on each other's rows too, then A's undone until none is left or one
    /// is refused: each undo takes back A's transaction or refuses by the rule (a row B changed or
    /// deleted, a section B deleted) with nothing changed; the store is sound after each step.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func undoUnderConflictingEditsTakesBackOrRefusesWithNothingChanged(seed: UInt64) throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("random.sqlite")
        let a = try ListStore.open(at: path, author: "A", historyLimit: 1_000)
        let b = try ListStore.open(at: path, author: "B", historyLimit: 1_000)
        var random = SeededGenerator(seed: seed)
        try b.write { tx in
            for s in 0..<3 { try tx.insertRows(["base \(s).0", "base \(s).1", "base \(s).2"], intoSection: try tx.insertSection(title: "base \(s)")) }
        }
        for _ in 0..<60 {
            let author = Bool.random(using: &random) ? a : b
            try Self.randomEdit(author, &random, tag: author === a ? "A" : "B")
            #expect(try a.checkInvariants().isEmpty, "seed \(seed)")
        }
        var undone = 0
        var refused = 0
        while true {
            let before = try a.snapshot()
            do {
                try a.undo()
                undone += 1
            } catch let error as ListStoreError {
                if case .nothingToUndo = error.reason { break }
                guard case .undoRefused = error.reason else { throw error }
                refused += 1
                #expect(try a.snapshot() == before, "seed \(seed): a refused undo changed the store")
                break
            }
            #expect(try a.checkInvariants().isEmpty, "seed \(seed)")
        }
        if refused == 0 {
            let titles = try a.snapshot().sections.flatMap { [$0.title] + $0.rows.map(\.title) }
            #expect(!titles.contains { $0.hasPrefix("A ") }, "seed \(seed): \(titles)")
        }
        // B's history is untouched: B can still undo its own last edit or is refused by the rule.
        do { try b.undo() } catch let error as ListStoreError {
            switch error.reason {
            case .undoRefused, .nothingToUndo: break
            default: throw error
            }
        }
        #expect(try b.checkInvariants().isEmpty)
    }

    /// Random edits by two authors, interleaved, each changing only what it created (B the base rows
    /// too; A also deletes base rows; A inserts anywhere, B only into its own sections), then every one of
    /// A's transactions undone: none refuses, A's rows and sections are all gone, the base rows A deleted
    /// are back with their ids, and B's rows and sections are exactly as B left them (ids, titles,
    /// sections), in the order B left them.
    @Test(arguments: [UInt64(11), 12, 13, 14, 15, 16, 17, 18])
    func undoingAllOfOneAuthorsEditsKeepsTheOthers(seed: UInt64) throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("owned.sqlite")
        let a = try ListStore.open(at: path, author: "A", historyLimit: 1_000)
        let b = try ListStore.open(at: path, author: "B", historyLimit: 1_000)
        var random = SeededGenerator(seed: seed)
        try b.write { tx in
            for s in 0..<3 { try tx.insertRows(["B base \(s).0", "B base \(s).1", "B base \(s).2"], intoSection: try tx.insertSection(title: "B base \(s)")) }
        }
        let base = try b.snapshot()
        var deletedByB = Set<RowID>()
        for step in 0..<80 {
            let state = try a.snapshot()
            let byA = Bool.random(using: &random)
            let tag = byA ? "A" : "B"
            let store = byA ? a : b
            // What each may touch: A its own rows and sections (and deleting base rows); B its own, the base included.
            let allRows = state.sections.flatMap { section in section.rows.map { (row: $0, section: section) } }
            let ownRows = allRows.filter { $0.row.title.hasPrefix(tag) }
            let ownSections = state.sections.filter { $0.title.hasPrefix(tag) }
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                if ownSections.isEmpty || Bool.random(using: &random) {
                    try store.insertSection(title: "\(tag) section \(step)", at: Int.random(in: 0...state.sections.count, using: &random))
                } else if let target = (byA ? state.sections : ownSections).randomElement(using: &random) {
                    try store.insertRows(["\(tag) row \(step)", "\(tag) row \(step)b"], intoSection: target.id, at: Int.random(in: 0...target.rows.count, using: &random))
                }
            case 1:
                // A may also delete B's rows of the base (its undo puts them back as B left them).
                let deletable = byA ? allRows.filter { $0.row.title.hasPrefix("A") || $0.row.title.hasPrefix("B base") } : ownRows
                guard let victim = deletable.randomElement(using: &random) else { continue }
                try store.deleteRows(ids: [victim.row.id])
                if !byA { deletedByB.insert(victim.row.id) }
            case 2:
                guard let mover = ownRows.randomElement(using: &random), let target = (byA ? state.sections : ownSections).randomElement(using: &random) else { continue }
                // A moves its rows anywhere; B within the row's section, so that B's rows stay in B's sections.
                let into = byA ? target : mover.section
                try store.moveRow(id: mover.row.id, toSection: into.id, at: 0)
            case 3:
                guard let row = ownRows.randomElement(using: &random) else { continue }
                try store.updateRow(id: row.row.id, title: "\(tag) edited \(step)", payload: .set(#"{"step":\#(step)}"#))
            case 4:
                guard let section = ownSections.randomElement(using: &random) else { continue }
                try store.renameSection(id: section.id, to: "\(tag) renamed \(step)")
            default:
                // A deletes its own sections (holding only its own rows); B moves its sections.
                if byA, let section = ownSections.first(where: { $0.rows.allSatisfy { $0.title.hasPrefix("A") } }) {
                    try a.deleteSections(ids: [section.id])
                } else if !byA, state.sections.count > 1, let section = ownSections.randomElement(using: &random) {
                    try b.moveSection(id: section.id, to: Int.random(in: 0..<state.sections.count, using: &random))
                }
            }
        }
        // What B left, with A's things taken out: B's sections in order, each with B's rows in order.
        let bOnly = try b.snapshot().sections.filter { $0.title.hasPrefix("B") }.map { section in
            SectionSnapshot(id: section.id, title: section.title, rows: section.rows.filter { $0.title.hasPrefix("B") })
        }
        var undone = 0
        while true {
            do { try a.undo() } catch let error as ListStoreError {
                guard case .nothingToUndo = error.reason else { throw error }
                break
            }
            undone += 1
            #expect(try a.checkInvariants().isEmpty, "seed \(seed) after \(undone) undos")
        }
        let final = try a.snapshot().sections
        #expect(final.map(\.id) == bOnly.map(\.id), "seed \(seed)")
        #expect(final.map(\.title) == bOnly.map(\.title), "seed \(seed)")
        for (section, expected) in zip(final, bOnly) {
            // Base rows A deleted or moved are back, next to the rows they were next to: B's own order holds
            // among B's rows; A's rows are gone.
            #expect(section.rows.allSatisfy { $0.title.hasPrefix("B") }, "seed \(seed): \(section.rows.map(\.title))")
            let bRows = section.rows.filter { row in expected.rows.contains { $0.id == row.id } }
            #expect(bRows == expected.rows, "seed \(seed): section \(section.title): \(section.rows.map(\.title)) vs \(expected.rows.map(\.title))")
        }
        // Every base row B did not delete is there again (A deleted some), with its id.
        let alive = Set(final.flatMap(\.rows).map(\.id))
        #expect(Set(base.sections.flatMap(\.rows).map(\.id)).subtracting(deletedByB).isSubset(of: alive), "seed \(seed)")
        #expect(undone > 0)
    }

    /// An observer on another connection receives undos and redos as change sets (restored ids
    /// included), and its mirror stays equal to the store.
    @Test func observersOfAnotherConnectionSeeUndoAsChanges() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("observed.sqlite")
        let app = try ListStore.open(at: path, author: "app")
        let watcher = try ListStore.open(at: path, author: "watcher")
        try app.write { tx in
            let s = try tx.insertSection(title: "S")
            try tx.insertRows(["a", "b", "c"], intoSection: s)
            try tx.insertRows(["x"], intoSection: try tx.insertSection(title: "T"))
        }
        var updates = watcher.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        guard case .initial(var mirror) = try #require(try await nextElement(&updates)) else {
            Issue.record("no initial state")
            return
        }
        let edits: [(ListStore) throws -> Void] = [
            { try $0.deleteSections(at: [0]) }, { try $0.undo() }, { try $0.redo() }, { try $0.undo() },
            { try $0.deleteRows(at: [ListIndexPath(section: 0, row: 1)]) }, { try $0.undo() },
            { try $0.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 1, row: 1)) }, { try $0.undo() },
        ]
        for edit in edits {
            try edit(app)
            try watcher.deliverChangesFromOtherConnections()
            guard case .changes(let changes) = try #require(try await nextElement(&updates)) else {
                Issue.record("an undo arrived as a reset, not a change set")
                return
            }
            try mirror.apply(changes)
            #expect(mirror == (try watcher.snapshot()))
        }
    }
}
