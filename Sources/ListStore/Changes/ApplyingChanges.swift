/// Keeping a mirror of the store: a ``ListSnapshot`` is the value a change set applies to, like a
/// diffable data source's snapshot — the ids and values of every section and row.
extension ListSnapshot {
    /// A change set that does not fit this snapshot (an index out of range, an id that is not where the
    /// change set says): the mirror missed a change; read a fresh snapshot.
    public struct ApplyError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What did not fit.
        public let description: String
    }

    /// Applies `changes` the way UIKit's batch updates do — updates, deletions and move sources at the
    /// index paths before the change; insertions and move targets after it; everything else keeps its
    /// order — so that a snapshot of the state before a commit becomes exactly the state after it.
    /// Throws ``ApplyError`` (and leaves the snapshot as it was) when the change set does not fit — also
    /// when both carry versions and the change set's is not newer than the snapshot's (applied twice).
    /// The snapshot's ``version`` becomes the change set's (an empty change set leaves it as it was).
    public mutating func apply(_ changes: ChangeSet) throws {
        self = try applying(changes)
    }

    /// The snapshot with `changes` applied (see ``apply(_:)``).
    public func applying(_ changes: ChangeSet) throws -> ListSnapshot {
        func fail(_ text: String) -> ApplyError { ApplyError(description: text) }
        // A change set of a state this snapshot already shows — applied twice (the write's own and the
        // observer's copy), or older — would fit often enough to go unnoticed and duplicate rows.
        if !changes.isEmpty, version.isVersioned, changes.version.isVersioned, changes.version <= version {
            throw fail(
                "the change set leads to \(changes.version) and this snapshot is already at \(version): it was applied before, or is older than the snapshot; apply each change set once, in order"
            )
        }
        var before = sections

        // Updates, in the coordinates before the change.
        for update in changes.updatedSections {
            guard before.indices.contains(update.index), before[update.index].id == update.id else { throw fail("updated section \(update.index) is not \(update.id)") }
            before[update.index].title = update.title
        }
        for update in changes.updatedRows {
            let path = update.indexPath
            guard before.indices.contains(path.section), before[path.section].rows.indices.contains(path.row),
                before[path.section].rows[path.row].id == update.id
            else { throw fail("updated row \(path) is not \(update.id)") }
            before[path.section].rows[path.row] = update.row
        }

        // Rows leaving their sections: deletions and move sources; moved rows keep their values.
        var removedRows: [Int: Set<Int>] = [:]
        var movedRows: [RowID: ListRow] = [:]
        for row in changes.deletedRows {
            guard before.indices.contains(row.indexPath.section), before[row.indexPath.section].rows.indices.contains(row.indexPath.row),
                before[row.indexPath.section].rows[row.indexPath.row].id == row.id
            else { throw fail("deleted row \(row.indexPath) is not \(row.id)") }
            removedRows[row.indexPath.section, default: []].insert(row.indexPath.row)
        }
        for move in changes.movedRows {
            guard before.indices.contains(move.from.section), before[move.from.section].rows.indices.contains(move.from.row),
                before[move.from.section].rows[move.from.row].id == move.id
            else { throw fail("moved row \(move.from) is not \(move.id)") }
            removedRows[move.from.section, default: []].insert(move.from.row)
            movedRows[move.id] = before[move.from.section].rows[move.from.row]
        }
        for (section, rows) in removedRows {
            before[section].rows = before[section].rows.enumerated().filter { !rows.contains($0.offset) }.map(\.element)
        }

        // Sections: where each ends up by UIKit's rule (sectionSlots).
        for section in changes.deletedSections {
            guard before.indices.contains(section.index), before[section.index].id == section.id else { throw fail("deleted section \(section.index) is not \(section.id)") }
        }
        for move in changes.movedSections {
            guard before.indices.contains(move.from), before[move.from].id == move.id else { throw fail("section move \(move.from) → \(move.to) does not fit") }
        }
        let slots = changes.sectionSlots(oldCount: before.count)
        if let problem = slots.problem { throw fail(problem) }
        let inserted = Dictionary(changes.insertedSections.map { ($0.index, $0.section) }, uniquingKeysWith: { first, _ in first })
        var after = try slots.sources.enumerated().map { new, old in
            guard let section = old.map({ before[$0] }) ?? inserted[new] else { throw fail("section counts do not add up") }
            return section
        }

        // Rows arriving: insertions and move targets, in ascending order of their final index paths.
        let insertedSectionIndexes = Set(changes.insertedSections.map(\.index))
        var arrivals = changes.insertedRows.map { (path: $0.indexPath, row: $0.row) }
        for move in changes.movedRows {
            guard let row = movedRows[move.id] else { throw fail("moved row \(move.id) has no source") }
            arrivals.append((move.to, row))
        }
        for arrival in arrivals.sorted(by: { $0.path < $1.path }) {
            let path = arrival.path
            guard after.indices.contains(path.section), !insertedSectionIndexes.contains(path.section),
                (0...after[path.section].rows.count).contains(path.row)
            else { throw fail("row arriving at \(path) does not fit") }
            after[path.section].rows.insert(arrival.row, at: path.row)
        }
        // An empty change set changes nothing, the version included (a write that changed nothing
        // gives one at the version it found, which may be ahead of a mirror that has not caught up).
        return ListSnapshot(sections: after, version: changes.isEmpty ? version : changes.version)
    }
}
