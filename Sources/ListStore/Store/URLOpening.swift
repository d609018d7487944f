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
