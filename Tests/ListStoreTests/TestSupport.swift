import ListStore
@_exported import TestSupport

extension ListSnapshot {
    /// Titles only, section by section: the easiest shape to compare in seed scenarios.
    var titles: [[String]] { sections.map { $0.rows.map(\.title) } }
}

extension ListStore {
    /// Every section and row as a scan reports them — with the index paths edits use — which works on
    /// files whose positions were damaged by hand (where ``snapshot()`` refuses).
    func scannedTitles() throws -> [[String]] {
        var titles: [[String]] = []
        try scan { item in
            switch item {
            case .section: titles.append([])
            case .row(_, let row): titles[titles.count - 1].append(row.title)
            }
        }
        return titles
    }
}
