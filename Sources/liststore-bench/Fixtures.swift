import Foundation
import ListStore

/// Store files to measure on: made once per size, copied fresh for every repetition so each
/// measurement starts from the same state.
struct Fixtures {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("liststore-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A store with one section of `rows` rows ("row 0", "row 1", …), closed cleanly (no -wal file).
    func template(rows: Int) throws -> String {
        let path = self.path("template-\(rows).sqlite")
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        do {
            let store = try ListStore.open(at: path)
            try store.insertSection(title: "bench")
            var written = 0
            while written < rows {  // in chunks, so making a 1,000,000-row fixture stays small in memory
                let chunk = min(100_000, rows - written)
                try store.insertRows((written..<written + chunk).map { NewRow(title: "row \($0)") }, intoSection: 0)
                written += chunk
            }
        }
        return path
    }

    /// A fresh copy of `template` named `name`.
    func copy(_ template: String, to name: String) throws -> String {
        let destination = path(name)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination + suffix) }
        try FileManager.default.copyItem(atPath: template, toPath: destination)
        // Flush the copy now, so no measured fsync (a checkpoint at close) pays for writing it.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: destination))
        try handle.synchronize()
        try handle.close()
        return destination
    }
}
