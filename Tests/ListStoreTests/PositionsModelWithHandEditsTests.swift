import SQLiteLayer
import Testing

@testable import ListStore

/// Hand edits interleaved with ListStore's own keep every row where the model says and `check` clean:
/// the positions model test with hand edits (another connection, triggers on) interleaved, and tiny
/// blocks so that ListStore splits and merges around rows the triggers counted.
@Suite(.tags(.slow)) struct PositionsModelWithHandEditsTests {
    static func positions(_ db: Connection, section id: Int64) throws -> [(id: Int64, position: Int)] {
        try db.cached("SELECT id, position FROM rows WHERE section_id = ?1 ORDER BY position").bind([.integer(id)])
            .map { (id: $0.int64(0), position: $0.int(1)) }
    }

    @Test(arguments: [0, 1, 2, 3])
    func randomEditsWithHandEdits(seed: Int) throws {
        let sizes = [RowBlockSizes(blockCapacity: 2, pageCapacity: 2), RowBlockSizes(blockCapacity: 4, pageCapacity: 3)][seed % 2]
        let directory = try TemporaryDirectory()
        let path = directory.path("model.sqlite")
        let store = try ListStore.open(at: path, rowBlockSizes: sizes)
        var random = SeededGenerator(seed: 77_000 + UInt64(seed))
        var next = 0
        func title() -> String {
            next += 1
            return "r\(next)"
        }
        for section in 0..<3 { _ = try store.insertSection(title: "S\(section)") }
        var model: [[RowID]] = [[], [], []]
        let sectionIDs = try store.snapshot().sections.map(\.id.rawValue)
        let hand = try Connection(path: path, mode: .readWrite)
        for step in 0..<1_500 {
            let total = model.reduce(0) { $0 + $1.count }
            let choice = total < 8 ? 0 : Int.random(in: 0..<12, using: &random)
            let section = Int.random(in: 0..<model.count, using: &random)
            var what = "\(choice)"
            switch choice {
            case 0, 1:
                let width = Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 2...12, using: &random) : 1
                let at = Int.random(in: 0...model[section].count, using: &random)
                let result = try store.insertRows((0..<width).map { _ in NewRow(title: title()) }, intoSection: section, at: at)
                model[section].insert(contentsOf: result.ids, at: at)
                what = "insert \(width) at \(section):\(at)"
            case 2, 3:
                guard !model[section].isEmpty else { continue }
                let from = Int.random(in: 0..<model[section].count, using: &random)
                let target = Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 0..<model.count, using: &random) : section
                let id = model[section].remove(at: from)
                let to = Int.random(in: 0...model[target].count, using: &random)
                model[target].insert(id, at: to)
                _ = try store.moveRow(from: ListIndexPath(section: section, row: from), to: ListIndexPath(section: target, row: to))
                what = "move \(section):\(from) \(target):\(to)"
            case 4, 5:
                guard !model[section].isEmpty else { continue }
                let count = Int.random(in: 1...min(6, model[section].count), using: &random)
                let doomed = Array(model[section].indices.shuffled(using: &random).prefix(count))
                _ = try store.deleteRows(at: doomed.map { ListIndexPath(section: section, row: $0) })
                for index in doomed.sorted(by: >) { model[section].remove(at: index) }
                what = "delete \(doomed)"
            case 6, 7, 8:
                // Hand insert between two rows (or at an end), at the midpoint or next to a neighbour.
                let rows = try Self.positions(hand, section: sectionIDs[section])
                let at = Int.random(in: 0...rows.count, using: &random)
                let position: Int
                if rows.isEmpty {
                    position = 0
                } else if at == 0 {
                    position = rows[0].position - [1, 1 << 20][Int.random(in: 0..<2, using: &random)]
                } else if at == rows.count {
                    position = rows[at - 1].position + [1, 1 << 20][Int.random(in: 0..<2, using: &random)]
                } else {
                    let (low, high) = (rows[at - 1].position, rows[at].position)
                    guard high - low >= 2 else { continue }
                    position = [low + 1, high - 1, low + (high - low) / 2][Int.random(in: 0..<3, using: &random)]
                }
                try hand.run("INSERT INTO rows (section_id, position, title) VALUES (?1, ?2, ?3)", [.integer(sectionIDs[section]), .int(position), .text(title())])
                let id = try #require(try hand.scalarInt("SELECT last_insert_rowid()"))
                model[section].insert(RowID(rawValue: Int64(id)), at: at)
                what = "hand insert \(section):\(at) at \(position)"
            case 9, 10:
                // Hand move by UPDATE of position (and section).
                guard !model[section].isEmpty else { continue }
                let from = Int.random(in: 0..<model[section].count, using: &random)
                let id = model[section][from]
                let target = Int.random(in: 0..<model.count, using: &random)
                let rows = try Self.positions(hand, section: sectionIDs[target]).filter { $0.id != id.rawValue }
                let to = Int.random(in: 0...rows.count, using: &random)
                let position: Int
                if rows.isEmpty {
                    position = 0
                } else if to == 0 {
                    position = rows[0].position - 1
                } else if to == rows.count {
                    position = rows[to - 1].position + 1
                } else {
                    let (low, high) = (rows[to - 1].position, rows[to].position)
                    guard high - low >= 2 else { continue }
                    position = low + (high - low) / 2
                }
                try hand.run("UPDATE rows SET section_id = ?2, position = ?3 WHERE id = ?1", [.integer(id.rawValue), .integer(sectionIDs[target]), .int(position)])
                model[section].remove(at: from)
                model[target].insert(id, at: to)
                what = "hand move \(section):\(from) → \(target):\(to) at \(position)"
            default:
                guard !model[section].isEmpty else { continue }
                let from = Int.random(in: 0..<model[section].count, using: &random)
                try hand.run("DELETE FROM rows WHERE id = ?1", [.integer(model[section][from].rawValue)])
                model[section].remove(at: from)
                what = "hand delete \(section):\(from)"
            }
            let context = "seed \(seed), step \(step): \(what)"
            let after = try store.snapshot()
            try #require(after.sections.map { $0.rows.map(\.id) } == model, "\(context): the rows differ from the model")
            let problems = try store.checkInvariants()
            try #require(problems.isEmpty, "\(context): \(problems)")
        }
    }

    /// Hand inserts that fill every integer after a row (adjacent positions), then ListStore inserts,
    /// moves and deletes among them: respacing must find room (block, neighbour, page, rebuild).
    @Test(arguments: [0, 1, 2])
    func editsAmongAdjacentHandPositions(seed: Int) throws {
        let sizes = [RowBlockSizes(blockCapacity: 2, pageCapacity: 2), RowBlockSizes(blockCapacity: 4, pageCapacity: 3), RowBlockSizes.standard][seed]
        let directory = try TemporaryDirectory()
        let path = directory.path("adjacent.sqlite")
        let store = try ListStore.open(at: path, rowBlockSizes: sizes)
        var random = SeededGenerator(seed: 78_000 + UInt64(seed))
        _ = try store.insertSection(title: "S")
        let sectionID = try store.snapshot().sections[0].id.rawValue
        var model = try store.insertRows((0..<30).map { NewRow(title: "b\($0)") }, intoSection: 0).ids
        let hand = try Connection(path: path, mode: .readWrite)
        var next = 0
        for round in 0..<40 {
            // Fill the integers after a random row with up to 40 rows (stopping at the next row).
            let rows = try Self.positions(hand, section: sectionID)
            let at = Int.random(in: 0..<rows.count, using: &random)
            let limit = at + 1 < rows.count ? rows[at + 1].position : Int.max
            var position = rows[at].position + 1
            var inserted = 0
            while position < limit, inserted < 40 {
                next += 1
                try hand.run("INSERT INTO rows (section_id, position, title) VALUES (?1, ?2, ?3)", [.integer(sectionID), .int(position), .text("h\(next)")])
                let id = try #require(try hand.scalarInt("SELECT last_insert_rowid()"))
                model.insert(RowID(rawValue: Int64(id)), at: at + 1 + inserted)
                position += 1
                inserted += 1
            }
            for _ in 0..<10 {
                let index = Int.random(in: (at + 1)...(at + 1 + inserted), using: &random)
                var what = ""
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let width = Int.random(in: 1...3, using: &random)
                    let result = try store.insertRows((0..<width).map { NewRow(title: "n\(round)-\($0)") }, intoSection: 0, at: index)
                    model.insert(contentsOf: result.ids, at: index)
                    what = "insert \(width) at \(index)"
                case 1:
                    let from = Int.random(in: 0..<model.count, using: &random)
                    let id = model.remove(at: from)
                    let to = min(index, model.count)
                    model.insert(id, at: to)
                    _ = try store.moveRow(from: ListIndexPath(section: 0, row: from), to: ListIndexPath(section: 0, row: to))
                    what = "move \(from) → \(to)"
                default:
                    let victim = min(index, model.count - 1)
                    _ = try store.deleteRows(at: [ListIndexPath(section: 0, row: victim)])
                    model.remove(at: victim)
                    what = "delete \(victim)"
                }
                let context = "seed \(seed), round \(round): \(what)"
                try #require(try store.snapshot().sections[0].rows.map(\.id) == model, "\(context): rows differ")
                let problems = try store.checkInvariants()
                try #require(problems.isEmpty, "\(context): \(problems)")
            }
        }
    }
}
