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
    /// Rows and sections that an entry moved in from another list: inserted there, yet not new.
    private(set) var arrivedRows: Set<Int64> = []
    private(set) var arrivedSections: Set<Int64> = []

    /// The limits of the store as `head` describes it, for entries written after `since` (nil: no
    /// such bound, as for `check`).
    init(_ head: LogHead, since: IDCeilings?) {
        rowIDs = head.lowestRowID...max(head.lowestRowID, head.ceilings.rows)
        sectionIDs = head.lowestSectionID...max(head.lowestSectionID, head.ceilings.sections)
        self.since = since ?? IDCeilings(rows: Int64.min, sections: Int64.min)
    }

    func isIndex(_ value: Int64) -> Bool { value >= 0 && value < Self.countLimit }
    func isIndex(_ value: Int) -> Bool { isIndex(Int64(value)) }
    func isIndex(_ path: ListIndexPath) -> Bool { isIndex(path.section) && isIndex(path.row) }
    func isRow(_ id: Int64) -> Bool { rowIDs.contains(id) }
    func isSection(_ id: Int64) -> Bool { sectionIDs.contains(id) }
    func isNewRow(_ id: Int64) -> Bool { isRow(id) && (id > since.rows || arrivedRows.contains(id)) }
    func isNewSection(_ id: Int64) -> Bool { isSection(id) && (id > since.sections || arrivedSections.contains(id)) }

    /// These limits for an entry that moved `rows` and `sections` in from other lists.
    func arriving(rows: [Int64], sections: [Int64]) -> LogEntryLimits {
        guard !rows.isEmpty || !sections.isEmpty else { return self }
        var limits = self
        limits.arrivedRows = Set(rows)
        limits.arrivedSections = Set(sections)
        return limits
    }
}

/// The largest row and section ids given out so far (`max(seq, max(id))` of each table: AUTOINCREMENT
/// never gives out one below), recorded with an observer's position in the change log.
struct IDCeilings: Sendable, Hashable {
    var rows: Int64
    var sections: Int64
}

/// What an observer reads before the entries, in one statement: the state row, the last sequence
/// number, the ids the store has given out and the schema's version.
struct LogHead {
    let state: LogState
    /// The sequence number of the last entry ever written (0 for none): the larger of SQLite's
    /// AUTOINCREMENT record and the last entry there is, so that neither edited by hand moves it back.
    let lastSequence: Int64
    let ceilings: IDCeilings
    /// The lowest ids in use, or 1: AUTOINCREMENT never gives out a lower one, a hand insert can (an
    /// edit of such a row that is gone since makes a reset, harmlessly).
    let lowestRowID: Int64
    let lowestSectionID: Int64
    /// `PRAGMA schema_version`: it changes with every change to the schema, the logging triggers' included.
    let schemaVersion: Int64
    /// The rowid of the change log's counter in `sqlite_sequence` (nil before the first entry): a counter
    /// deleted and made again by hand — the usual way to reset an AUTOINCREMENT table — gets a new one,
    /// and its sequence numbers start again, naming other commits than an observer saw.
    let counterRow: Int64?

    static func read(_ db: Connection) throws -> LogHead {
        let head = try db.cached(
            """
            SELECT (SELECT writing FROM liststore_state WHERE id = 1),
                   \(StateVersion.lastSequenceSQL),
                   max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'rows'), 0), coalesce((SELECT max(id) FROM rows), 0)),
                   max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'sections'), 0), coalesce((SELECT max(id) FROM sections), 0)),
                   min(1, coalesce((SELECT min(id) FROM rows), 1)),
                   min(1, coalesce((SELECT min(id) FROM sections), 1)),
                   (SELECT schema_version FROM pragma_schema_version),
                   (SELECT rowid FROM sqlite_sequence WHERE name = 'liststore_log')
            """
        ).bind([]).first { row in
            LogHead(
                state: LogState(writing: row.isNull(0) ? nil : row.int64(0)), lastSequence: row.int64(1),
                ceilings: IDCeilings(rows: row.int64(2), sections: row.int64(3)), lowestRowID: row.int64(4), lowestSectionID: row.int64(5),
                schemaVersion: row.int64(6), counterRow: row.isNull(7) ? nil : row.int64(7))
        }
        guard let head else { throw ListStoreError.corrupt("the change log's state cannot be read") }
        return head
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
        case .sectionInserted(let id, let index):
            return limits.isNewSection(id) && limits.isIndex(index)
        case .sectionsDeleted(let pairs):
            return !pairs.isEmpty && pairs.allSatisfy { $0.count == 2 && limits.isIndex($0[0]) && limits.isSection($0[1]) }
        case .sectionMoved(let id, let from, let to):
            return limits.isSection(id) && limits.isIndex(from) && limits.isIndex(to)
        case .sectionRenamed(let id, let index, _):
            return limits.isSection(id) && limits.isIndex(index)
        case .sectionRestored(let id, let index):
            return limits.isSection(id) && limits.isIndex(index)
        case .rowsInserted(let runs, let section, let sectionIndex, let at), .rowsRestored(let runs, let section, let sectionIndex, let at):
            // Restored ids are old ones (never reused otherwise): within the ids the store has given out.
            let restored: Bool
            if case .rowsRestored = self { restored = true } else { restored = false }
            guard !runs.isEmpty, let (ranges, count) = EditEvent.ranges(runs),
                ranges.allSatisfy({ (restored ? limits.isRow($0.lowerBound) : limits.isNewRow($0.lowerBound)) && limits.isRow($0.upperBound) }),
                limits.isSection(section), limits.isIndex(sectionIndex), limits.isIndex(at)
            else { return false }
            let (total, overflow) = inserted.addingReportingOverflow(count)
            guard !overflow, total < LogEntryLimits.countLimit else { return false }
            inserted = total
            return true
        case .rowsDeleted(let entries):
            return !entries.isEmpty
                && entries.allSatisfy {
                    $0.count == 4 && limits.isIndex($0[0]) && limits.isIndex($0[1]) && limits.isRow($0[2]) && limits.isSection($0[3])
                }
        case .rowMoved(let id, let from, let source, let to, let target):
            return limits.isRow(id) && limits.isIndex(from) && limits.isSection(source) && limits.isIndex(to) && limits.isSection(target)
        case .rowUpdated(let id, let section, let path, _, _):
            return limits.isRow(id) && limits.isSection(section) && limits.isIndex(path)
        }
    }
}
