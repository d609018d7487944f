import SQLiteLayer

/// What the numbers of a change-log entry read back from the file may be. ListStore's own entries
/// always fit; an entry written by hand, or damaged, may hold anything, and one that does not fit
/// makes observers read the store afresh instead of trusting it (never a trap or a huge allocation).
struct LogEntryLimits {
    /// No SQLite file holds 2^48 rows or sections (its largest size is 2^48 bytes: 2^32 − 2 pages of
    /// 64 KiB), so no index, count or run of ids reaches it (nor, on a 32-bit platform, `Int.max`).
    static let countLimit: Int64 = min(Int64(1) << 48, Int64(Int.max))

    /// The ids a row could have had: from the lowest in use (or 1) to the largest ever given out.
    let rowIDs: ClosedRange<Int64>
    /// The same for sections.
    let sectionIDs: ClosedRange<Int64>
    /// The largest ids given out when the observer was last in step: every row or section a later
    /// ListStore write inserted has a larger one (AUTOINCREMENT), so an entry that "inserts" an id the
    /// observer may already hold is not believed.
    let since: IDCeilings

    /// The limits of the store as the open transaction sees it (a few index look-ups), for entries
    /// written after `since` (nil: no such bound, as for `check`).
    static func read(_ db: Connection, since: IDCeilings?) throws -> LogEntryLimits {
        LogEntryLimits(rowIDs: try ids(of: "rows", db), sectionIDs: try ids(of: "sections", db),
                       since: since ?? IDCeilings(rows: Int64.min, sections: Int64.min))
    }

    /// AUTOINCREMENT never gives out an id above `max(seq, max(id))`, nor below 1; a hand insert can
    /// use a lower one, which is then in use (an id below both that is gone makes a reset, harmlessly).
    private static func ids(of table: String, _ db: Connection) throws -> ClosedRange<Int64> {
        let bounds = try db.cached("""
            SELECT (SELECT min(id) FROM \(table)), (SELECT max(id) FROM \(table)),
                   (SELECT seq FROM sqlite_sequence WHERE name = ?1)
            """).bind([.text(table)]).first { row in
            (low: row.isNull(0) ? 1 : row.int64(0), high: row.isNull(1) ? 0 : row.int64(1), sequence: row.isNull(2) ? 0 : row.int64(2))
        }
        let low = min(1, bounds?.low ?? 1)
        return low...max(low, bounds?.high ?? 0, bounds?.sequence ?? 0)
    }

    func isIndex(_ value: Int64) -> Bool { value >= 0 && value < Self.countLimit }
    func isIndex(_ value: Int) -> Bool { isIndex(Int64(value)) }
    func isIndex(_ path: ListIndexPath) -> Bool { isIndex(path.section) && isIndex(path.row) }
    func isRow(_ id: Int64) -> Bool { rowIDs.contains(id) }
    func isSection(_ id: Int64) -> Bool { sectionIDs.contains(id) }
    func isNewRow(_ id: Int64) -> Bool { isRow(id) && id > since.rows }
    func isNewSection(_ id: Int64) -> Bool { isSection(id) && id > since.sections }
}

/// The largest row and section ids given out so far (`max(seq, max(id))` of each table), recorded with
/// an observer's position in the change log.
struct IDCeilings: Sendable, Hashable {
    var rows: Int64
    var sections: Int64

    static func read(_ db: Connection) throws -> IDCeilings {
        try db.cached("""
            SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'rows'), 0), coalesce((SELECT max(id) FROM rows), 0)),
                   max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'sections'), 0), coalesce((SELECT max(id) FROM sections), 0))
            """).bind([]).first { IDCeilings(rows: $0.int64(0), sections: $0.int64(1)) } ?? IDCeilings(rows: 0, sections: 0)
    }
}

extension EditEvent {
    /// Whether every number of the event is one ListStore could have written for this store: indexes
    /// in `0..<countLimit`, ids among those the store could have had (inserted ones above
    /// ``LogEntryLimits/since``), lists of the right shape, runs of ids that count something and stay
    /// within the ids. `inserted` adds up the rows the events
    /// insert, which must stay below `countLimit` too.
    func isPlausible(_ limits: LogEntryLimits, inserted: inout Int64) -> Bool {
        switch self {
        case let .sectionInserted(id, index):
            return limits.isNewSection(id) && limits.isIndex(index)
        case let .sectionsDeleted(pairs):
            return !pairs.isEmpty && pairs.allSatisfy { $0.count == 2 && limits.isIndex($0[0]) && limits.isSection($0[1]) }
        case let .sectionMoved(id, from, to):
            return limits.isSection(id) && limits.isIndex(from) && limits.isIndex(to)
        case let .sectionRenamed(id, index, _):
            return limits.isSection(id) && limits.isIndex(index)
        case let .rowsInserted(runs, section, sectionIndex, at):
            guard !runs.isEmpty, let (ranges, count) = EditEvent.ranges(runs),
                  ranges.allSatisfy({ limits.isNewRow($0.lowerBound) && limits.isRow($0.upperBound) }),
                  limits.isSection(section), limits.isIndex(sectionIndex), limits.isIndex(at) else { return false }
            let (total, overflow) = inserted.addingReportingOverflow(count)
            guard !overflow, total < LogEntryLimits.countLimit else { return false }
            inserted = total
            return true
        case let .rowsDeleted(entries):
            return !entries.isEmpty && entries.allSatisfy {
                $0.count == 4 && limits.isIndex($0[0]) && limits.isIndex($0[1]) && limits.isRow($0[2]) && limits.isSection($0[3])
            }
        case let .rowMoved(id, from, source, to, target):
            return limits.isRow(id) && limits.isIndex(from) && limits.isSection(source) && limits.isIndex(to) && limits.isSection(target)
        case let .rowUpdated(id, section, path, _, _):
            return limits.isRow(id) && limits.isSection(section) && limits.isIndex(path)
        }
    }
}
