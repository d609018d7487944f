/// How rows are spaced in a section's position range (schema 7, `Migrations/0007_sparse_positions.sql`).
///
/// Positions only order rows; they need not be dense. New rows take positions between their neighbours'
/// (``between(_:_:count:appending:prepending:)``), so nothing else moves. When two neighbours leave no
/// integer between them, the rows of one block are spaced out again (``spread(_:in:upTo:)``).
enum RowSpacing {
    /// The gap ListStore leaves between rows it appends, prepends or migrates: 20 halvings of room
    /// between any two of them before a block is spaced out again.
    static let gap = 1 << 20
    /// Every position ListStore writes is strictly between `-limit` and `limit`, so that the difference
    /// of two positions never overflows (and a section holds up to 2^42 rows at the standard gap).
    static let limit = 1 << 61
    /// The gap between rows inserted one after another at one place (a hot spot, see
    /// ``SectionRows``): each takes this much of the room there rather than half of it, so that the
    /// room lasts thousands of inserts instead of 20.
    static let runGap = 1 << 8
    /// How many of the most recently inserted rows (the highest ids) mark a hot spot next to them.
    static let recentRows: Int64 = 4
    /// How far one refill of a hot spot moves the rows on its side away from the inserts (at most): with
    /// ``runGap`` per insert, room for 65,536 more.
    static let refillShift = 1 << 24
    /// A refill shifts at most this many rows (plus the hot spot's neighbour): what bounds the rows an
    /// insert rewrites.
    static let refillRows = 8

    /// The start of a section's first block and page: below every position.
    static let sectionStart = Int(Int64.min)

    /// `count` increasing positions strictly between `lower` and `upper` (exclusive bounds within
    /// ±``limit``), or nil when fewer than `count` integers lie between them. Appending (no row after) and
    /// prepending (no row before) leave the standard gap when there is room; otherwise the positions are
    /// spread evenly.
    static func between(_ lower: Int, _ upper: Int, count: Int, appending: Bool, prepending: Bool) -> [Int]? {
        guard count > 0 else { return [] }
        let room = upper - lower - 1
        guard room >= count else { return nil }
        if appending, count <= (room - gap) / gap {
            return (1...count).map { lower + $0 * gap }
        }
        if prepending, count <= (room - gap) / gap {
            return (1...count).map { upper - (count + 1 - $0) * gap }
        }
        let step = (upper - lower) / (count + 1)
        if step >= 1 { return (1...count).map { lower + $0 * step } }
        return (1...count).map { lower + $0 }
    }

    /// `count` increasing positions spread evenly over `lower ..< upper` (bounds within ±``limit``), or nil
    /// when the range holds fewer than twice as many integers (it would leave no room for the next insert).
    static func spread(_ count: Int, in lower: Int, upTo upper: Int) -> [Int]? {
        guard count > 0 else { return [] }
        let width = upper - lower
        guard width / 2 >= count else { return nil }
        let step = width / count
        return (0..<count).map { lower + step / 2 + $0 * step }
    }

    /// The range a block or page from `start` to `end` spreads its rows (at `positions`, in order) and
    /// `adding` more over: its own range, except that the section's first and last ones, open towards the
    /// ends of the integers, take only room for their rows at the standard gap beyond their outer rows —
    /// spreading a last block up to 2^61 would leave later appends no room.
    static func workingRange(_ start: Int, _ end: Int?, rows positions: [Int], adding: Int) -> (lower: Int, upper: Int) {
        var (lower, upper) = clamp(start, end)
        let reach = min(limit / 4, (positions.count + adding + 1).multipliedReportingOverflow(by: gap).overflow ? limit / 4 : (positions.count + adding + 1) * gap)
        if start <= -limit { lower = max(lower, (positions.first ?? 0) - reach) }
        if end == nil { upper = min(upper, (positions.last ?? 0) + reach) }
        return (lower, max(lower, upper))
    }

    /// `lower` and `upper` clamped into the range positions may take.
    static func clamp(_ lower: Int, _ upper: Int?) -> (lower: Int, upper: Int) {
        (max(lower, -limit), min(upper ?? limit, limit))
    }
}
