import Foundation

extension ListIndexPath {
    /// The index path of a table view's `IndexPath` (its two indexes: section, row); nil for an
    /// `IndexPath` that does not have exactly two indexes.
    public init?(_ indexPath: IndexPath) {
        guard indexPath.count == 2 else { return nil }
        self.init(section: indexPath[0], row: indexPath[1])
    }

    /// The same index path as Foundation's `IndexPath`, as UIKit's and AppKit's table and collection views take it.
    public var indexPath: IndexPath { IndexPath(indexes: [section, row]) }
}
