import CBaseline
import ListStore
import StoreShorthands

/// How the n rows of a fixture are laid out.
enum Layout: Sendable, Hashable {
    /// One section of n rows.
    case oneSection
    /// n rows spread evenly over ``sectionCount(rows:)`` sections.
    case manySections

    /// Sections of a fixture of `n` rows: 1,000 when spread (n/10 below n = 10,000, so every section
    /// holds at least 10 rows and "the middle" of a section is a real middle).
    func sectionCount(rows n: Int) -> Int {
        switch self {
        case .oneSection: 1
        case .manySections: max(1, min(1_000, n / 10))
        }
    }

    /// What a row's name says about the layout.
    var suffix: String {
        switch self {
        case .oneSection: ""
        case .manySections: " (1000 sections)"
        }
    }
}

/// What a fixture holds before an operation runs.
enum FixtureKind: Sendable, Hashable {
    /// One empty section (for the bulk insert).
    case empty
    /// n rows in the operation's layout.
    case rows
    /// n rows in one section, then `Fixtures.adversarialInserts` more (100,000), each inserted at index 1
    /// (`alternating`: at index 1 and 2 in turn) — what squeezes sparse keys between the same neighbours.
    case adversarial(alternating: Bool)
}

/// Where in the fixture an operation acts, worked out before it is timed.
struct Target: Sendable {
    /// Rows in the whole fixture.
    let n: Int
    /// Rows per section.
    let rowsPerSection: Int
    /// The section acted on (its index; the C file's section id is index + 1).
    let section: Int
    /// A second section, for moves across sections.
    let otherSection: Int
    /// The id of the row in the middle of `section` (ListStore's and the C file's: both number rows in display order).
    var middleRowID: Int64 = 0

    var sectionID: Int64 { Int64(section) + 1 }
    var otherSectionID: Int64 { Int64(otherSection) + 1 }
    var middle: Int { rowsPerSection / 2 }
}

/// One benchmarked operation, run by ListStore, by the dense C baseline and at the physical limit.
struct Operation: Sendable {
    let name: String
    let layout: Layout
    let fixture: FixtureKind
    let listStore: @Sendable (ListStore, Target) throws -> Void
    /// The dense C baseline; returns an SQLite result code (0 = ok).
    let dense: @Sendable (OpaquePointer, Target) -> Int32
    /// The physical limit: the least SQLite does for the same request on a plain table; nil when it
    /// is the dense baseline's code (a bulk insert, a page read, a look-up by id: nothing to renumber).
    let limit: (@Sendable (OpaquePointer, Target) -> Int32)?
    /// How many rows the whole fixture holds afterwards, given how many it held before and n.
    let rowsAfter: @Sendable (_ before: Int, _ n: Int) -> Int
    /// Whether the operation leaves the fixture as it was (reads): a fresh copy is not needed.
    var readsOnly = false
    /// Whether the same operation runs once, untimed, before the timed run on the same connection: a
    /// single-row edit then measures the edit, not the first write after opening a file (which creates
    /// its `-wal`, and costs milliseconds on a busy disk whatever the edit).
    var warmsUp = true
    /// How many untimed runs warm up: one for an edit; three for a read, the steady state of a
    /// screen of reads (a read connection remembers pages and blocks once it has read a state a few
    /// times: the first reads after a commit are measured apart, `--loop read-after-commit`).
    var warmUps: Int { readsOnly ? 3 : 1 }
    /// For an operation that cannot simply run twice (a multi-row delete): what warms both sides up
    /// instead, untimed, on the same connection — the rows it touches read, one row appended (which
    /// creates the `-wal`). Nil: the warm-up is the operation itself.
    var warmUpListStore: (@Sendable (ListStore, Target) throws -> Void)? = nil
    var warmUpC: (@Sendable (OpaquePointer, Target) -> Int32)? = nil

    /// The rows a multi-row delete removes from a section of `n`: every n/1000-th, at most 1,000.
    static func scattered(_ n: Int) -> (step: Int, count: Int) {
        let step = max(1, n / 1_000)
        return (step, min(1_000, (n + step - 1) / step))
    }

    /// Where the operation acts in a fixture of `n` rows.
    func target(rows n: Int) -> Target {
        let sections = layout.sectionCount(rows: n)
        return Target(n: n, rowsPerSection: n / sections, section: sections / 2, otherSection: sections / 4)
    }

    var fullName: String { name + layout.suffix }

    static let all: [Operation] = oneSection + manySections

    private static let oneSection: [Operation] = [
        Operation(
            name: "bulk insert n rows", layout: .oneSection, fixture: .empty,
            listStore: { store, t in _ = try store.insertRows((0..<t.n).map { NewRow(title: "row \($0)") }, intoSection: 0) },
            dense: { db, t in baseline_bulk_insert(db, t.sectionID, Int32(t.n)) }, limit: nil, rowsAfter: { before, n in before + n },
            warmsUp: false),
        insert("append one row") { _ in -1 },
        insert("insert at head") { _ in 0 },
        insert("insert in middle") { t in t.middle },
        deleteOne("delete one in middle") { t in t.middle },
        Operation(
            name: "delete 1000 scattered", layout: .oneSection, fixture: .rows,
            listStore: { store, t in
                let (step, count) = scattered(t.n)
                _ = try store.deleteRows(at: (0..<count).map { ListIndexPath(section: 0, row: $0 * step) })
            },
            dense: { db, t in
                let (step, count) = scattered(t.n)
                return baseline_delete_every(db, t.sectionID, Int32(step), Int32(count))
            },
            limit: { db, t in
                let (step, count) = scattered(t.n)
                return limit_delete_every(db, t.sectionID, Int32(step), Int32(count))
            },
            rowsAfter: { before, n in before - scattered(n).count },
            warmUpListStore: { store, t in
                let (step, count) = scattered(t.n)
                _ = try store.read { reader in try (0..<count).map { try reader.row(at: ListIndexPath(section: 0, row: $0 * step)) } }
                _ = try store.insertRow("warm-up", intoSection: 0)
            },
            warmUpC: { db, t in
                let (step, count) = scattered(t.n)
                var read: Int32 = 0
                for index in 0..<count {
                    let code = baseline_read_page(db, t.sectionID, Int64(index * step), 1, &read)
                    guard code == 0 else { return code }
                }
                return limit_insert_one(db, t.sectionID)
            }),
        move("move head to tail") { t in (0, t.rowsPerSection - 1) },
        move("move n/4 to 3n/4") { t in (t.rowsPerSection / 4, 3 * t.rowsPerSection / 4) },
        read("read 50 rows at n/2") { t in t.middle },
        read("read 50 rows at n-50") { t in max(0, t.rowsPerSection - 50) },
        indexPathOfMiddleID(.oneSection),
        adversarial("adversarial: insert at one index", alternating: false),
        adversarial("adversarial: alternate two indexes", alternating: true),
    ]

    private static let manySections: [Operation] = [
        insert("append one row", layout: .manySections) { _ in -1 },
        insert("insert at head", layout: .manySections) { _ in 0 },
        insert("insert in middle", layout: .manySections) { t in t.middle },
        deleteOne("delete one in middle", layout: .manySections) { t in t.middle },
        move("move head to tail", layout: .manySections) { t in (0, t.rowsPerSection - 1) },
        move("move n/4 to 3n/4", layout: .manySections) { t in (t.rowsPerSection / 4, 3 * t.rowsPerSection / 4) },
        Operation(
            name: "move across sections", layout: .manySections, fixture: .rows,
            listStore: { store, t in
                _ = try store.moveRow(
                    from: ListIndexPath(section: t.otherSection, row: t.middle), to: ListIndexPath(section: t.section, row: t.middle))
            },
            dense: { db, t in baseline_move(db, t.otherSectionID, Int64(t.middle), t.sectionID, Int64(t.middle)) },
            limit: { db, t in limit_move_one(db, t.otherSectionID, Int64(t.middle), t.sectionID) },
            rowsAfter: { before, _ in before }),
        indexPathOfMiddleID(.manySections),
    ]

    /// One row inserted at `index(target)` (-1: appended).
    private static func insert(_ name: String, layout: Layout = .oneSection, at index: @escaping @Sendable (Target) -> Int) -> Operation {
        Operation(
            name: name, layout: layout, fixture: .rows,
            listStore: { store, t in
                let at = index(t)
                _ = try store.insertRow("new row", intoSection: t.section, at: at < 0 ? nil : at)
            },
            dense: { db, t in baseline_insert_at(db, t.sectionID, Int64(index(t))) },
            limit: { db, t in limit_insert_one(db, t.sectionID) }, rowsAfter: { before, _ in before + 1 })
    }

    private static func deleteOne(_ name: String, layout: Layout = .oneSection, at index: @escaping @Sendable (Target) -> Int) -> Operation {
        Operation(
            name: name, layout: layout, fixture: .rows,
            listStore: { store, t in _ = try store.deleteRows(at: [ListIndexPath(section: t.section, row: index(t))]) },
            dense: { db, t in baseline_delete_at(db, t.sectionID, Int64(index(t))) },
            limit: { db, t in limit_delete_at(db, t.sectionID, Int64(index(t))) }, rowsAfter: { before, _ in before - 1 })
    }

    private static func move(_ name: String, layout: Layout = .oneSection, _ indexes: @escaping @Sendable (Target) -> (from: Int, to: Int)) -> Operation {
        Operation(
            name: name, layout: layout, fixture: .rows,
            listStore: { store, t in
                let (from, to) = indexes(t)
                _ = try store.moveRow(from: ListIndexPath(section: t.section, row: from), to: ListIndexPath(section: t.section, row: to))
            },
            dense: { db, t in
                let (from, to) = indexes(t)
                return baseline_move(db, t.sectionID, Int64(from), t.sectionID, Int64(to))
            },
            limit: { db, t in limit_move_one(db, t.sectionID, Int64(indexes(t).from), t.sectionID) }, rowsAfter: { before, _ in before })
    }

    private static func read(_ name: String, at offset: @escaping @Sendable (Target) -> Int) -> Operation {
        Operation(
            name: name, layout: .oneSection, fixture: .rows,
            listStore: { store, t in
                let start = offset(t)
                let expected = min(50, t.rowsPerSection - start)
                let rows = try store.rows(inSection: t.section, range: start..<start + expected)
                guard rows.count == expected else { throw BenchmarkFailure("read \(rows.count) rows, not \(expected)") }
            },
            dense: { db, t in
                var read: Int32 = 0
                let start = offset(t)
                let code = baseline_read_page(db, t.sectionID, Int64(start), 50, &read)
                return code == 0 && Int(read) != min(50, t.rowsPerSection - start) ? -1 : code
            }, limit: nil, rowsAfter: { before, _ in before }, readsOnly: true)
    }

    private static func indexPathOfMiddleID(_ layout: Layout) -> Operation {
        Operation(
            name: "index path of a middle id", layout: layout, fixture: .rows,
            listStore: { store, t in
                guard try store.indexPath(of: RowID(rawValue: t.middleRowID)) == ListIndexPath(section: t.section, row: t.middle) else {
                    throw BenchmarkFailure("the middle id is not at its index path")
                }
            },
            dense: { db, t in
                var section: Int64 = -1
                var row: Int64 = -1
                let code = baseline_index_path(db, t.middleRowID, &section, &row)
                return code == 0 && (section != Int64(t.section) || row != Int64(t.middle)) ? -1 : code
            }, limit: nil, rowsAfter: { before, _ in before }, readsOnly: true)
    }

    /// One more insert at index 1 after 100,000 of them (`Fixtures.adversarialInserts`). The dense baseline keeps no
    /// history (its positions are renumbered densely whatever came before): it inserts at index 1 of
    /// the n-row fixture, which costs what it would after the same inserts.
    private static func adversarial(_ name: String, alternating: Bool) -> Operation {
        Operation(
            name: name, layout: .oneSection, fixture: .adversarial(alternating: alternating),
            listStore: { store, _ in _ = try store.insertRow("new row", intoSection: 0, at: 1) },
            dense: { db, t in baseline_insert_at(db, t.sectionID, 1) },
            limit: { db, t in limit_insert_one(db, t.sectionID) }, rowsAfter: { before, _ in before + 1 })
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
