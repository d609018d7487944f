import ListStore
@_exported import TestSupport

extension ListSnapshot {
    /// Titles only, section by section: the easiest shape to compare in seed scenarios.
    var titles: [[String]] { sections.map { $0.rows.map(\.title) } }
}
