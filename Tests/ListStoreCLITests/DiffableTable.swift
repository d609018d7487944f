import ListStore
import StoreShorthands

/// A stand-in for a table view fed by a diffable data source, for Linux: it holds what
/// `NSDiffableDataSourceSnapshot<SectionID, RowID>` holds (section ids, item ids) and what is on screen
/// — each cell's content as it was when the cell was last configured, each header's title as it was
/// when last loaded — and applies a rebuilt snapshot by UIKit's rules: an item or section whose id was
/// in the previous snapshot keeps what it showed (wherever it moved) unless it is reconfigured
/// (`reconfigureItems`) or reloaded (`reloadSections`, here for headers only, so that items must be
/// named on their own); a new id is drawn from the state. What UIKit would throw an exception for —
/// a duplicate id, reconfiguring or reloading an id the snapshot lacks — is recorded as a problem.
struct DiffableTable: Sendable {
    private(set) var sectionIDs: [SectionID] = []
    private(set) var itemIDs: [[RowID]] = []
    private(set) var cells: [RowID: ListRow] = [:]
    private(set) var headers: [SectionID: String] = [:]
    private(set) var problems: [String] = []
    /// Cells and headers that were stale right after an apply, summed over every apply.
    private(set) var staleSeen = 0

    /// Applies a snapshot rebuilt from `state` with `reconfigureItems(items)` and `reloadSections(sections)`.
    mutating func apply(_ state: ListSnapshot, reconfiguring items: [RowID], reloading sections: [SectionID]) {
        let index = SnapshotIndex(state)
        if Set(state.sections.map(\.id)).count != state.sections.count { problems.append("duplicate section ids") }
        if Set(state.sections.flatMap { $0.rows.map(\.id) }).count != state.rowCount { problems.append("duplicate item ids") }
        var newCells: [RowID: ListRow] = [:]
        var newHeaders: [SectionID: String] = [:]
        for section in state.sections {
            newHeaders[section.id] = headers[section.id] ?? section.title
            for row in section.rows { newCells[row.id] = cells[row.id] ?? row }
        }
        for id in items {
            guard let row = index.row(id: id) else {
                problems.append("reconfigured \(id), which the snapshot lacks")
                continue
            }
            newCells[id] = row
        }
        for id in sections {
            guard let section = index.section(id: id) else {
                problems.append("reloaded \(id), which the snapshot lacks")
                continue
            }
            newHeaders[id] = section.title
        }
        sectionIDs = state.sections.map(\.id)
        itemIDs = state.sections.map { $0.rows.map(\.id) }
        cells = newCells
        headers = newHeaders
        let stale = self.stale(against: state)
        staleSeen += stale.cells + stale.headers
    }

    /// The cells and headers that do not show `truth` (and whether the ids are `truth`'s at all).
    func stale(against truth: ListSnapshot) -> (cells: Int, headers: Int, sameIDs: Bool) {
        var staleCells = 0
        var staleHeaders = 0
        for section in truth.sections {
            if headers[section.id] != section.title { staleHeaders += 1 }
            for row in section.rows where cells[row.id] != row { staleCells += 1 }
        }
        let sameIDs = sectionIDs == truth.sections.map(\.id) && itemIDs == truth.sections.map { $0.rows.map(\.id) }
        return (staleCells, staleHeaders, sameIDs)
    }
}

/// The two recipes, fed the same stream: the documents' old one (reconfigure `updatedRows` only) and the one
/// with ``DiffableReloads``, each with its own ``ListSnapshot`` mirror and ``DiffableTable``.
struct DiffableRecipes: Sendable {
    private(set) var mirror = ListSnapshot(sections: [])
    private(set) var naive = DiffableTable()
    private(set) var helped = DiffableTable()
    /// Change sets whose reloads differed from comparing the states before and after (must stay empty).
    private(set) var inexact: [String] = []
    private(set) var changeSets = 0
    private(set) var resets = 0

    mutating func receive(_ update: ListUpdate) throws {
        switch update {
        case .initial(let state), .reset(let state):
            if case .reset = update { resets += 1 }
            let reloads = DiffableReloads(from: mirror, to: state)
            mirror = state
            naive.apply(mirror, reconfiguring: [], reloading: [])
            helped.apply(mirror, reconfiguring: reloads.itemsToReconfigure, reloading: reloads.sectionsToReload)
        case .changes(let changes):
            changeSets += 1
            let before = mirror
            let reloads = try mirror.applyReturningReloads(changes)
            let reference = DiffableReloads(from: before, to: mirror)
            if reloads != reference { inexact.append("\(changes): \(reloads) instead of \(reference)") }
            naive.apply(mirror, reconfiguring: changes.updatedRows.map(\.id), reloading: [])
            helped.apply(mirror, reconfiguring: reloads.itemsToReconfigure, reloading: reloads.sectionsToReload)
        }
    }
}
