import SQLiteLayer

/// A change log that observers in other processes cannot trust: a state row deleted or left at
/// `writing` = 1 (hand edits go unlogged), entries deleted from its middle or end, entries that cannot
/// be read or hold numbers no ListStore write could. Observers reset on each; `check` reports them and
/// ``ListStore/repair()`` fixes them.
enum ChangeLogDamage {
    /// At most this many damaged entries are named.
    static let namedLimit = 3

    /// The problem with the state row, if any.
    static func stateProblem(_ state: LogState) -> IntegrityProblem? {
        switch state {
        case .sound:
            return nil
        case .missing:
            return IntegrityProblem(
                "the change log's state row (liststore_state) was deleted outside ListStore: hand edits may go unlogged, so observers in other processes reload on every commit until ListStore writes again"
            )
        case .stuck:
            return IntegrityProblem(
                "the change log's state row (liststore_state) was left at writing = 1 outside ListStore: hand edits are not logged, so observers in other processes reload on every commit until ListStore writes again"
            )
        }
    }

    /// Gaps and untrustworthy entries in the log, oldest first (reads every entry: the log keeps at
    /// most ``ChangeLog/keptEntries`` of ListStore's own).
    static func entryProblems(_ db: Connection) throws -> [IntegrityProblem] {
        let entries = try ChangeLog.entries(after: Int64.min, db)
        let head = try LogHead.read(db)
        let last = head.lastSequence
        let limits = LogEntryLimits(head, since: nil)
        var gaps: [String] = []
        var damaged: [LogDamage] = []
        var damagedCount = 0
        var previous: Int64?
        // Each `entry.sequence > previous`, so neither end of a gap overflows.
        func gap(_ low: Int64, _ high: Int64) -> String { low == high ? "#\(low)" : "#\(low)…#\(high)" }
        for entry in entries {
            if let previous, entry.sequence != previous + 1 { gaps.append(gap(previous + 1, entry.sequence - 1)) }
            previous = entry.sequence
            var inserted: Int64 = 0
            if case .failure(let damage) = ChangeLog.read(entry, limits, inserted: &inserted) {
                damagedCount += 1
                if damaged.count < namedLimit { damaged.append(damage) }
            }
        }
        if let previous, last > previous {
            gaps.append(gap(previous + 1, last))
        } else if previous == nil, last > 0 {
            gaps.append(gap(max(1, last - ChangeLog.keptEntries + 1), last))
        }
        var problems: [IntegrityProblem] = []
        if !gaps.isEmpty {
            problems.append(
                IntegrityProblem(
                    "change log entries \(gaps.prefix(namedLimit).joined(separator: ", "))\(gaps.count > namedLimit ? " and \(gaps.count - namedLimit) more runs" : "") were deleted outside ListStore: observers that had not read them reload"
                ))
        }
        for damage in damaged {
            problems.append(IntegrityProblem("change log entry #\(damage.sequence) cannot be trusted (\(damage.reason)): observers reload instead of reading it"))
        }
        if damagedCount > damaged.count {
            problems.append(IntegrityProblem("\(damagedCount - damaged.count) more change log entries cannot be trusted"))
        }
        return problems
    }

    static func problems(_ db: Connection) throws -> [IntegrityProblem] {
        (stateProblem(try LogHead.read(db).state).map { [$0] } ?? []) + (try entryProblems(db))
    }
}
