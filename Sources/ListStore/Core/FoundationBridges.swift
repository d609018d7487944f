import Foundation

extension ListStore {
    /// Opens the store at the file `url`, as the path-taking `open` does: for apps,
    /// which get their container's locations as URLs. `url` must be a file URL.
    public static func open(at url: URL, mode: AccessMode = .readWrite, busyTimeout: Int32 = 5_000) throws -> ListStore {
        guard url.isFileURL else {
            throw ListStoreError.unusablePath(path: url.absoluteString, reason: "it is not a file URL")
        }
        let path = url.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } } ?? ""
        return try open(at: path, mode: mode, busyTimeout: busyTimeout)
    }
}

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
