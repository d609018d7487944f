/// Finding sections and rows of a snapshot by id: what a cell provider or a detail screen holding an id
/// asks a mirror. These scan the snapshot — O(sections) for a section, O(rows) for a row — which is
/// nothing for a screenful; for many look-ups in a large snapshot, build a ``SnapshotIndex`` once.
extension ListSnapshot {
    /// The index of the section with `id`, or nil when the snapshot has none.
    public func index(of id: SectionID) -> Int? { sections.firstIndex { $0.id == id } }

    /// The section with `id`, with its rows, or nil when the snapshot has none.
    public func section(id: SectionID) -> SectionSnapshot? { index(of: id).map { sections[$0] } }

    /// The index path of the row with `id`, or nil when the snapshot has none.
    public func indexPath(of id: RowID) -> ListIndexPath? {
        for (sectionIndex, section) in sections.enumerated() {
            if let row = section.rows.firstIndex(where: { $0.id == id }) { return ListIndexPath(section: sectionIndex, row: row) }
        }
        return nil
    }

    /// The row with `id`, or nil when the snapshot has none.
    public func row(id: RowID) -> ListRow? { indexPath(of: id).flatMap { self[$0] } }
}

/// A snapshot with its ids indexed: every look-up by id in O(1), after one O(rows + sections) pass to
/// build it (and memory for one dictionary entry per row and section). For a large snapshot asked many
/// times — a cell provider's `row(id:)` for every visible cell of a 200,000-row mirror. A value: it
/// describes the snapshot it was built from; build a new one when the snapshot changes.
package struct SnapshotIndex: Sendable {
    /// The snapshot indexed.
    package let snapshot: ListSnapshot
    private let sectionIndexes: [SectionID: Int]
    private let rowPaths: [RowID: ListIndexPath]

    /// Indexes `snapshot`'s section and row ids. A snapshot read from a store has each id once; should
    /// one appear twice (a hand-made snapshot), the first is the one found.
    package init(_ snapshot: ListSnapshot) {
        self.snapshot = snapshot
        var sectionIndexes: [SectionID: Int] = [:]
        var rowPaths: [RowID: ListIndexPath] = [:]
        sectionIndexes.reserveCapacity(snapshot.sections.count)
        rowPaths.reserveCapacity(snapshot.rowCount)
        for (sectionIndex, section) in snapshot.sections.enumerated() {
            if sectionIndexes[section.id] == nil { sectionIndexes[section.id] = sectionIndex }
            for (rowIndex, row) in section.rows.enumerated() where rowPaths[row.id] == nil {
                rowPaths[row.id] = ListIndexPath(section: sectionIndex, row: rowIndex)
            }
        }
        self.sectionIndexes = sectionIndexes
        self.rowPaths = rowPaths
    }

    /// The index of the section with `id`, or nil.
    package func index(of id: SectionID) -> Int? { sectionIndexes[id] }

    /// The section with `id`, with its rows, or nil.
    package func section(id: SectionID) -> SectionSnapshot? { sectionIndexes[id].map { snapshot.sections[$0] } }

    /// The index path of the row with `id`, or nil.
    package func indexPath(of id: RowID) -> ListIndexPath? { rowPaths[id] }

    /// The row with `id`, or nil.
    package func row(id: RowID) -> ListRow? { rowPaths[id].flatMap { snapshot[$0] } }
}
