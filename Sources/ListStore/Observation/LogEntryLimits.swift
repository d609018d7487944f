import SQLiteLayer

/// What the numbers of a change-log entry read back from the file may be. ListStore's own entries
/// always fit; an entry written by hand, or damaged, may hold anything, and one that does not fit
/// makes observers read the store afresh instead of trusting it (never a trap or a huge allocation).
struct LogEntryLimits {
    /// No SQLite file holds 2^48 rows or sections (its largest size is 2^48 bytes: 2^32 − 2 pages of
    /// 64 KiB), so no index, count or run of ids reaches it (nor, on a 32-bit platform, `Int.max`).
    static let countLimit: Int64 = min(Int64(1) << 48, Int64(Int.max))

    /// The ids a row could have had: from the lowest in use (or 1) to the largest ever given out
    /// (AUTOINCREMENT never gives out one above `max(seq, max(id))`).
    let rowIDs: ClosedRange<Int64>
    /// The same for sections.
    let sectionIDs: ClosedRange<Int64>
    /// The largest ids given out when the observer was last in step: every row or section a later
    /// ListStore write inserted has a larger one (AUTOINCREMENT), so an entry that "inserts" an id the
    /// observer may already hold is not believed.
    let since: IDCeilings

    /// The limits of the store as the open transaction sees it, for entries written after `since`
    /// (nil: no such bound, as for `check`); `now` are the largest ids given out, when already read.
    static func read(_ db: Connection, since: IDCeilings?, now: IDCeilings? = nil) throws -> LogEntryLimits {
        let high = try now ?? IDCeilings.read(db)
        // AUTOINCREMENT never gives out an id below 1; a hand insert can use a lower one, which is then
        // in use (an edit of one that is gone since makes a reset, harmlessly).
        let low = try db.cached("SELECT min(1, coalesce((SELECT min(id) FROM rows), 1)), min(1, coalesce((SELECT min(id) FROM sections), 1))")
            .bind([]).first { (rows: $0.int64(0), sections: $0.int64(1)) } ?? (rows: 1, sections: 1)
        return LogEntryLimits(rowIDs: low.rows...max(low.rows, high.rows), sectionIDs: low.sections...max(low.sections, high.sections),
                              since: since ?? IDCeilings(rows: Int64.min, sections: Int64.min))
    }

    /// For entries without events (`row`, `section`, `structure`), which carry no numbers to check.
    static let unchecked = LogEntryLimits(rowIDs: Int64.min...Int64.max, sectionIDs: Int64.min...Int64.max,
                                          since: IDCeilings(rows: Int64.min, sections: Int64.min))

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
