import CBaseline
import Foundation
import ListStore
import SQLiteLayer
import StoreShorthands

/// Store files to measure on: made once per size and kind, copied fresh for every repetition so each
/// measurement starts from the same state.
struct Fixtures {
    let directory: URL
    /// Inserts made at one index before the adversarial rows are timed (100,000; 1,000 with `--quick`).
    let adversarialInserts: Int

    init(adversarialInserts: Int) throws {
        self.adversarialInserts = adversarialInserts
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("liststore-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A store with one section of `rows` rows ("row 0", "row 1", …), closed cleanly (no -wal file).
    func template(rows: Int) throws -> String {
        try template(rows: rows, layout: .oneSection)
    }

    /// A store of `rows` rows in `layout` (each section's rows "row 0", "row 1", …), closed cleanly.
    func template(rows: Int, layout: Layout) throws -> String {
        let sections = layout.sectionCount(rows: rows)
        let path = self.path("template-\(rows)-\(sections).sqlite")
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        do {
            let store = try ListStore.open(at: path)
            let perSection = rows / sections
            for section in 0..<sections {
                _ = try store.insertSection(title: "bench")
                var written = 0
                while written < perSection {  // in chunks, so making a 1,000,000-row fixture stays small in memory
                    let chunk = min(100_000, perSection - written)
                    _ = try store.insertRows((written..<written + chunk).map { NewRow(title: "row \($0)") }, intoSection: section)
                    written += chunk
                }
            }
        }
        return path
    }

    /// A store named `name` of `rows` rows in one section, row `i` being `row(i)`, made once, in untracked
    /// writes of 100,000 rows.
    func oneSectionTemplate(_ name: String, rows: Int, row: (Int) throws -> NewRow) throws -> String {
        let path = self.path(name)
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        let store = try ListStore.open(at: path)
        _ = try store.insertSection(title: "bench")
        var written = 0
        while written < rows {
            let chunk = min(100_000, rows - written)
            let batch = try (written..<written + chunk).map(row)
            try store.write(tracksChanges: false) { try $0.insertRows(batch, intoSection: 0) }
            written += chunk
        }
        return path
    }

    /// `template(rows:)` followed by ``Operation/adversarialInserts`` single-row inserts at index 1
    /// (or at 1 and 2 in turn), made through ListStore's edits in transactions of 10,000.
    func adversarialTemplate(rows: Int, alternating: Bool) throws -> String {
        let path = self.path("template-\(rows)-adversarial-\(alternating ? "alternating" : "one").sqlite")
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        try FileManager.default.copyItem(atPath: try template(rows: rows), toPath: path)
        do {
            let store = try ListStore.open(at: path)
            var made = 0
            while made < adversarialInserts {
                let chunk = min(10_000, adversarialInserts - made)
                try store.write(tracksChanges: false) { tx in
                    for insert in made..<made + chunk {
                        _ = try tx.insertRow("squeezed \(insert)", intoSection: 0, at: alternating && insert % 2 == 1 ? 2 : 1)
                    }
                }
                made += chunk
            }
        }
        return path
    }

    /// The C side's plain file (see `baseline.h`) of `rows` rows in `layout`; `empty`: one empty section.
    func plainTemplate(rows: Int, layout: Layout, empty: Bool = false) throws -> String {
        let sections = empty ? 1 : layout.sectionCount(rows: rows)
        let path = self.path(empty ? "plain-empty.sqlite" : "plain-\(rows)-\(sections).sqlite")
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        let code = baseline_create(path, Int32(sections), empty ? 0 : Int64(rows / sections))
        guard code == 0 else { throw BenchmarkFailure("the C baseline could not create \(path): SQLite code \(code)") }
        return path
    }

    /// A fresh copy of `template` named `name`, measured as the original file it stands for: a copy of a
    /// list is another replica from its first write (schema 14), which gives ids of its own range at a cost
    /// of its own (``ReplicaBench``), so a ListStore template's claim is cleared and the copy claims replica 0.
    func copy(_ template: String, to name: String) throws -> String {
        let destination = path(name)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination + suffix) }
        try FileManager.default.copyItem(atPath: template, toPath: destination)
        let copy = try Connection(path: destination, mode: .readWrite)  // (the C side's plain files have no such table)
        if try copy.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'liststore_replica'") == 1 {
            try copy.run("UPDATE liststore_replica SET device = NULL, inode = NULL")
        }
        // Flush the copy now, so no measured fsync (a checkpoint at close) pays for writing it.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: destination))
        try handle.synchronize()
        try handle.close()
        return destination
    }

    /// The size of the file at `path` in bytes (its -wal too, if any).
    func size(of path: String) -> Int {
        ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
    }
}
