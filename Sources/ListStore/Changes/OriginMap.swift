/// One ordered sequence during a write transaction — the sections, or the rows of one section — as runs
/// of entries: untouched entries that sat at consecutive indexes before the transaction, or entries the
/// transaction put there. It maps an index now back to the index before the transaction, which is
/// what a change set's deletions, move sources and updates are given in.
///
/// It starts as one unbounded run of untouched entries, so it needs no count and costs nothing until the
/// transaction edits the sequence; each edit costs in proportion to the runs, not to the sequence.
struct OriginMap {
    private enum Run {
        /// Untouched entries, the first of which was at `start` before the transaction.
        case original(start: Int, count: Int)
        /// Entries put here by the transaction.
        case placed(count: Int)

        var count: Int {
            switch self {
            case .original(_, let count), .placed(let count): return count
            }
        }
    }

    /// Stands for "all the rest": the last run of untouched entries is unbounded.
    private static let unbounded = Int.max
    private var runs: [Run] = [.original(start: 0, count: unbounded)]

    /// The index before the transaction of the entry at `index` now; nil when the transaction put it there.
    func origin(of index: Int) -> Int? {
        guard let (run, offset) = locate(index) else { return nil }
        switch runs[run] {
        case .original(let start, _): return start + offset
        case .placed: return nil
        }
    }

    /// The entry at `index` left the sequence (deleted, or moved elsewhere).
    mutating func remove(at index: Int) {
        guard let (run, offset) = locate(index) else { return }
        switch runs[run] {
        case .original(let start, let count):
            let rest = count == Self.unbounded ? count : count - offset - 1
            runs.replaceSubrange(
                run...run,
                with: [.original(start: start, count: offset), .original(start: start + offset + 1, count: rest)]
                    .filter { $0.count > 0 })
        case .placed(let count):
            if count == 1 { runs.remove(at: run) } else { runs[run] = .placed(count: count - 1) }
        }
    }

    /// `count` entries were put at `index` (inserted, or moved here).
    mutating func insert(count: Int, at index: Int) {
        guard count > 0, let (run, offset) = locate(index) else { return }
        // Right after entries the transaction placed: grow that run rather than add one, so that a long
        // run of appends (a batch) keeps the map small.
        if offset == 0, run > 0, case .placed(let previous) = runs[run - 1] {
            runs[run - 1] = .placed(count: previous + count)
            return
        }
        switch runs[run] {
        case .original(let start, let runCount):
            let rest = runCount == Self.unbounded ? runCount : runCount - offset
            runs.replaceSubrange(
                run...run,
                with: [.original(start: start, count: offset), .placed(count: count), .original(start: start + offset, count: rest)]
                    .filter { $0.count > 0 })
        case .placed(let runCount):
            runs[run] = .placed(count: runCount + count)
        }
    }

    /// The run holding `index` and the offset within it.
    private func locate(_ index: Int) -> (run: Int, offset: Int)? {
        guard index >= 0 else { return nil }
        var remaining = index
        for (position, run) in runs.enumerated() {
            if remaining < run.count { return (position, remaining) }
            remaining -= run.count
        }
        return nil
    }
}
