import SQLiteLayer
import Testing

@testable import ListStore

/// A plain in-memory model of the store: the seeds' nested arrays, done right.
struct ListModel {
    var sections: [SectionSnapshot] = []

    var snapshot: ListSnapshot { ListSnapshot(sections: sections) }

    func rowExists(_ path: ListIndexPath) -> Bool {
        sections.indices.contains(path.section) && sections[path.section].rows.indices.contains(path.row)
    }

    func path(of id: RowID) -> ListIndexPath? {
        for (s, section) in sections.enumerated() {
            if let r = section.rows.firstIndex(where: { $0.id == id }) { return ListIndexPath(section: s, row: r) }
        }
        return nil
    }
}

/// Thousands of seeded random operations, valid and invalid, applied to the store and to `ListModel`;
/// after every one the full state must agree and the position invariants must hold (the cheap checks,
/// after every operation); the full ``ListStore/checkInvariants()`` runs every `fullCheckInterval` steps.
@Suite(.tags(.slow)) struct ModelBasedTests {
    static let operationCount = 10_000
    /// SQLite's integrity check, the schema comparison and the value scans read the whole file: every
    /// 50 operations (and after the last) keeps the test to seconds.
    static let fullCheckInterval = 50

    /// An operation the model says is invalid that the store accepted.
    struct NotRefused: Error, CustomStringConvertible { let description: String }

    @Test func randomOperationsMatchTheModel() throws {
        let seed: UInt64 = 20_261_130
        let directory = try TemporaryDirectory()
        let path = directory.path("model.sqlite")
        var store = try ListStore.open(at: path)
        var model = ListModel()
        var random = SeededGenerator(seed: seed)
        var deletedIDs: [RowID] = []
        var failures = 0

        for step in 0..<Self.operationCount {
            let context = "seed \(seed), step \(step)"
            let outcome: Outcome
            do {
                outcome = try Self.applyRandomOperation(store: store, model: &model, deletedIDs: &deletedIDs, random: &random)
            } catch {
                Issue.record("\(context): \(error)")
                return
            }
            if !outcome.valid { failures += 1 }
            let snapshot = try store.snapshot()
            try #require(snapshot == model.snapshot, "\(context): \(outcome.name) diverged")
            let full = step % Self.fullCheckInterval == 0 || step == Self.operationCount - 1
            let problems = full ? try store.checkInvariants() : try Self.positionProblems(store)
            try #require(problems.isEmpty, "\(context): \(outcome.name) broke invariants: \(problems)")
            if step % 300 == 299 { store = try ListStore.open(at: path) }
        }
        #expect(failures > Self.operationCount / 10, "the invalid inputs must be exercised too")
        #expect(failures < Self.operationCount / 2, "most operations should be valid")
    }

    /// The cheap part of ``ListStore/checkInvariants()``, the same queries: section positions `0..m-1`,
    /// each section's rows against the counts of its blocks, pages and section, and rows whose section
    /// is gone — one pass over the rows, without SQLite's integrity check, the schema comparison or the
    /// scans of every value.
    static func positionProblems(_ store: ListStore) throws -> [IntegrityProblem] {
        try store.withReadTransaction { db in
            var problems = try StoreDamage.orphans(db).map(\.problem)
            let order = try SectionOrderState.read(db, list: 1)
            if order.isDamaged { problems.append(IntegrityProblem("section positions run from \(order.low) to \(order.high) for \(order.count) sections")) }
            for section in try RowPositionState.damaged(db) { problems += section.problems }
            return problems
        }
    }

    /// The cheap check must see what it is there for, or the steps between full checks check nothing.
    @Test(arguments: [
        Shell.uncounted("DELETE FROM rows WHERE title = 'S0 r2'", without: "rows_counted_on_delete"),
        "UPDATE sections SET row_count = row_count + 3 WHERE title = 'S2'",
        "UPDATE row_blocks SET row_count = row_count + 1 WHERE section_id = 1 AND start = -9223372036854775808",
        "UPDATE sections SET position = position + 10", "DELETE FROM sections WHERE title = 'S1'",
    ])
    func theCheapCheckSeesPositionDamage(damage: String) throws {
        let directory = try TemporaryDirectory()
        let store = try HandEditAddressingTests.damagedStore(directory, damage)
        let cheap = try Self.positionProblems(store)
        #expect(!cheap.isEmpty, "\(damage): the cheap check saw nothing")
        #expect(try store.checkInvariants().count == cheap.count, "\(damage): the full check finds the same problems")
    }

    struct Outcome {
        let name: String
        let valid: Bool
    }

    /// Picks an operation, predicts with the model whether it is valid, runs it on the store and checks
    /// that the store agreed: success with the model's change applied, or a throw with nothing changed.
    static func applyRandomOperation(
        store: ListStore, model: inout ListModel, deletedIDs: inout [RowID],
        random: inout SeededGenerator
    ) throws -> Outcome {
        let sectionCount = model.sections.count
        let totalRows = model.snapshot.rowCount
        // Mostly valid indexes, sometimes one just out of range on either side.
        func mostlyValid(_ count: Int) -> Int {
            if count > 0 && Int.random(in: 0..<10, using: &random) < 8 { return Int.random(in: 0..<count, using: &random) }
            return Int.random(in: -1...count, using: &random)
        }
        func anySection() -> Int { mostlyValid(sectionCount) }
        func anyRowIndex(_ section: Int) -> Int {
            mostlyValid(model.sections.indices.contains(section) ? model.sections[section].rows.count : 0)
        }
        func anyPath() -> ListIndexPath {
            let section = anySection()
            return ListIndexPath(section: section, row: anyRowIndex(section))
        }
        func title() -> String { ["Belgium", "Canada", "野蠻人", "x", "'; DROP TABLE rows; --", "two\nlines"].randomElement(using: &random)! }
        func payload() -> String? { [nil, nil, "{\"a\":1}", "[1,2]", "\"s\"", "{bad"].randomElement(using: &random)! }
        func validPayload(_ p: String?) -> Bool { p != "{bad" }

        let choice = Int.random(in: 0..<100, using: &random)
        switch choice {
        case 0..<8:  // insert a section
            let index = sectionCount < 8 ? Int.random(in: -1...(sectionCount + 1), using: &random) : -1
            let name = "section"
            let valid = (0...sectionCount).contains(index)
            return try expect(valid, "insertSection") {
                let (id, changes) = try store.insertSection(title: name, at: index)
                try #require(changes.insertedSections.map(\.id) == [id])
                model.sections.insert(SectionSnapshot(id: id, title: name, rows: []), at: index)
            }
        case 8..<12:  // rename
            let index = anySection()
            let valid = model.sections.indices.contains(index)
            return try expect(valid, "renameSection") {
                try store.renameSection(at: index, to: "renamed")
                model.sections[index].title = "renamed"
            }
        case 12..<17:  // move a section
            let from = anySection()
            let to = anySection()
            let valid = model.sections.indices.contains(from) && model.sections.indices.contains(to)
            return try expect(valid, "moveSection") {
                try store.moveSection(from: from, to: to)
                let moved = model.sections.remove(at: from)
                model.sections.insert(moved, at: to)
            }
        case 17..<20:  // delete sections
            var indexes = (0..<Int.random(in: 1...2, using: &random)).map { _ in anySection() }
            if Int.random(in: 0..<4, using: &random) == 0 { indexes.append(indexes[0]) }
            let valid = Set(indexes).count == indexes.count && indexes.allSatisfy(model.sections.indices.contains)
            return try expect(valid, "deleteSections") {
                try store.deleteSections(at: indexes)
                for index in indexes.sorted(by: >) {
                    deletedIDs += model.sections[index].rows.map(\.id)
                    model.sections.remove(at: index)
                }
            }
        case 20..<45:  // insert rows into one section
            let section = anySection()
            let at: Int? = Int.random(in: 0..<3, using: &random) == 0 ? nil : anyRowIndex(section)
            let rows = (0..<Int.random(in: 0...4, using: &random)).map { _ in NewRow(title: title(), payload: payload()) }
            let count = model.sections.indices.contains(section) ? model.sections[section].rows.count : -1
            let valid =
                count >= 0 && (at.map { (0...count).contains($0) } ?? true) && rows.allSatisfy { validPayload($0.payload) }
                && totalRows < 400
            guard totalRows < 400 else { return Outcome(name: "skip", valid: true) }
            return try expect(valid, "insertRows") {
                let (ids, changes) = try store.insertRows(rows, intoSection: section, at: at)
                try #require(changes.insertedRows.map(\.id) == ids)
                let start = at ?? count
                for (offset, row) in rows.enumerated() {
                    let entry = changes.insertedRows[offset]
                    try #require(entry.indexPath == ListIndexPath(section: section, row: start + offset))
                    model.sections[section].rows.insert(ListRow(id: entry.id, title: row.title, payload: row.payload), at: start + offset)
                }
            }
        case 45..<50:  // append to every section
            let row = NewRow(title: title(), payload: payload())
            return try expect(validPayload(row.payload), "appendRowToEverySection") {
                let (ids, changes) = try store.appendRowToEverySection(row)
                try #require(changes.insertedRows.map(\.id) == ids)
                try #require(changes.insertedRows.count == model.sections.count)
                for entry in changes.insertedRows {
                    try #require(entry.indexPath.row == model.sections[entry.indexPath.section].rows.count)
                    model.sections[entry.indexPath.section].rows.append(ListRow(id: entry.id, title: row.title, payload: row.payload))
                }
            }
        case 50..<58:  // update a row
            let path = anyPath()
            let newTitle: String? = Bool.random(using: &random) ? title() : nil
            let newPayload: PayloadUpdate = [.unchanged, .remove, .set("{\"b\":2}"), .set("nope")].randomElement(using: &random)!
            let valid = model.rowExists(path) && newPayload != .set("nope")
            return try expect(valid, "updateRow") {
                try store.updateRow(at: path, title: newTitle, payload: newPayload)
                var row = model.sections[path.section].rows[path.row]
                if let newTitle { row.title = newTitle }
                if case .set(let json) = newPayload { row.payload = json } else if newPayload == .remove { row.payload = nil }
                model.sections[path.section].rows[path.row] = row
            }
        case 58..<70:  // move a row
            let from = anyPath()
            let to = anyPath()
            var valid = model.rowExists(from) && model.sections.indices.contains(to.section)
            if valid {
                let count = model.sections[to.section].rows.count
                valid = from.section == to.section ? (0..<count).contains(to.row) : (0...count).contains(to.row)
            }
            return try expect(valid, "moveRow") {
                try store.moveRow(from: from, to: to)
                let row = model.sections[from.section].rows.remove(at: from.row)
                model.sections[to.section].rows.insert(row, at: to.row)
            }
        case 70..<90:  // delete rows by index path, across sections
            var paths = (0..<Int.random(in: 1...6, using: &random)).map { _ in anyPath() }
            if Int.random(in: 0..<5, using: &random) == 0 { paths.append(paths[0]) }
            // Bias towards valid paths so large deletions happen.
            if Bool.random(using: &random) { paths = paths.filter(model.rowExists) }
            let valid = Set(paths).count == paths.count && paths.allSatisfy(model.rowExists)
            return try expect(valid, "deleteRows(at:)") {
                try store.deleteRows(at: paths)
                for path in paths.sorted(by: >) { deletedIDs.append(model.sections[path.section].rows.remove(at: path.row).id) }
            }
        default:  // delete rows by id, sometimes a deleted one
            let live = model.sections.flatMap { $0.rows.map(\.id) }
            var ids = (0..<Int.random(in: 1...4, using: &random)).compactMap { _ in live.randomElement(using: &random) }
            if Int.random(in: 0..<5, using: &random) == 0, let gone = deletedIDs.randomElement(using: &random) { ids.append(gone) }
            let valid = Set(ids).count == ids.count && ids.allSatisfy { model.path(of: $0) != nil }
            return try expect(valid, "deleteRows(ids:)") {
                try store.deleteRows(ids: ids)
                for id in ids { if let path = model.path(of: id) { model.sections[path.section].rows.remove(at: path.row) } }
                deletedIDs += ids
            }
        }
    }

    /// Runs `operation`: it must succeed when `valid`, and throw a ``ListStoreError`` otherwise.
    /// The store acts before the model in every operation, so a refused one leaves the model as it was.
    static func expect(_ valid: Bool, _ name: String, _ operation: () throws -> Void) throws -> Outcome {
        if valid {
            try operation()
        } else {
            do {
                try operation()
            } catch is ListStoreError {
                return Outcome(name: name, valid: valid)
            }
            throw NotRefused(description: "\(name) should have been refused")
        }
        return Outcome(name: name, valid: valid)
    }
}
