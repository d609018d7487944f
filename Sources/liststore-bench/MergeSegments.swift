import Foundation
import ListStore

/// The segment side of ``MergeBench`` (`ListStore.sync(throughFolder:)`): the same 10,000 edits of B's
/// delivered to a copy of A through segment files, A's sync timed in a process of its own as its merge is.
///
/// A2 is a copy of A made after A's first merge from B and before B's edits (A is not written between the
/// two, so A2 starts as A's merge does), so the file merge's A is not touched. B is the file merge's own B:
/// its syncs only read it (its replica number is claimed, and no other copy's segment is in its view of the
/// folder), so its edits are made once. Each device has its own view of the shared folder, as a file-sync
/// engine gives it: the bench carries B's segments into A2's view and none of A2's into B's — B has not
/// received A2's whole segment yet — so B's sync after its edits times writing them alone.
extension MergeBench {
    /// The segment path's state between its steps.
    struct SegmentPath {
        let a2: String
        let folderA: String
        let folderB: String
        /// The setup's figures, printed after the file merge's.
        let setup: String
    }

    /// What the segment path measured.
    struct SegmentFigures {
        let sync: ChildSync
        let again: ChildSync
        let editsBytes: Int
        let bSeconds: Double
        let converged: Bool
    }

    /// Copies A to A2 and makes the two views of the folder; B writes its whole segment, carried into A2's
    /// view, and A2 reads it (and writes its own whole segment into its view). Prints the setup's figures.
    func setUpSegments(a: String, b: String) throws -> SegmentPath {
        let (a2, folderA, folderB) = (fixtures.path("merge-a2.sqlite"), fixtures.path("segments-a"), fixtures.path("segments-b"))
        // A is closed (checkpointed); a -wal left would be copied with it.
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: a + suffix) {
            try FileManager.default.copyItem(atPath: a + suffix, toPath: a2 + suffix)
        }
        for folder in [folderA, folderB] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        var whole: URL?
        let bSeconds = try Self.readingOnly(b) { store in
            try Measurement.seconds { whole = try store.sync(throughFolder: URL(fileURLWithPath: folderB)).written }
        }
        guard let whole else { throw BenchmarkFailure("B's first sync wrote no segment") }
        let wholeBytes = fixtures.size(of: whole.path)
        try Self.carry(whole, into: folderA)
        let storeA2 = try ListStore.open(at: a2)
        var first: FolderSync?
        let aSeconds = try Measurement.seconds { first = try storeA2.sync(throughFolder: URL(fileURLWithPath: folderA)) }
        guard let first, first.copies.count == 1, first.copies[0].segmentsRead == 1, first.copies[0].problem == nil, let written = first.written else {
            throw BenchmarkFailure("A2's first sync did not read B's whole segment and write its own: \(String(describing: first))")
        }
        let setup =
            "ListStore segments setup: copy A to A2; B's first sync (its whole segment, \(Self.megabytes(bytes: wholeBytes))) \(Measurement.format(bSeconds)); "
            + "A2's first sync \(Measurement.format(aSeconds)) (B's whole segment into A2's mirror, then merged: \(first.copies[0].changes?.isEmpty == true ? "nothing new" : "CHANGES"); "
            + "A2's own whole segment, \(Self.megabytes(bytes: fixtures.size(of: written.path))), written); B's file unchanged by its sync"
        return SegmentPath(a2: a2, folderA: folderA, folderB: folderB, setup: setup)
    }

    /// Runs `body` with the store at `path` open, closes it, and fails unless its file (closed, so
    /// checkpointed) holds the same bytes as before: the file merge's B must not be written by its syncs.
    static func readingOnly<T>(_ path: String, _ body: (ListStore) throws -> T) throws -> T {
        func bytes() -> [Data?] { ["", "-wal"].map { try? Data(contentsOf: URL(fileURLWithPath: path + $0)) } }
        let before = bytes()
        let result = try body(try ListStore.open(at: path))
        let after = bytes()
        guard after == before else { throw BenchmarkFailure("B's sync through the folder changed its file \(path)") }
        return result
    }

    /// After B's edits: B's sync writes them as one segment (timed here), carried into A2's view; A2's sync
    /// of it and again, each in a child process; then A2 is compared with the file merge's A.
    func measureSegments(_ path: SegmentPath, b: String, mergedA: String, mix: EditMix) throws -> SegmentFigures {
        var result: FolderSync?
        let bSeconds = try Self.readingOnly(b) { store in
            try Measurement.seconds { result = try store.sync(throughFolder: URL(fileURLWithPath: path.folderB)) }
        }
        guard let result, let segment = result.written, result.copies.isEmpty else {
            throw BenchmarkFailure("B's sync after its edits wrote no segment, or read another copy's: \(String(describing: result))")
        }
        let bytes = fixtures.size(of: segment.path)
        try Self.carry(segment, into: path.folderA)
        print(
            "ListStore B's sync after its \(mix.edits) edits: one segment of \(bytes) bytes (\(String(format: "%.1f", Double(bytes) / Double(mix.edits))) bytes an edit), "
                + "\(Measurement.format(bSeconds))")
        let sync = try Self.syncInChild(path.a2, folder: path.folderA, report: fixtures.path("sync-1.txt"))
        let again = try Self.syncInChild(path.a2, folder: path.folderA, report: fixtures.path("sync-2.txt"))
        guard sync.segmentsRead == 1, sync.problems == 0, again.segmentsRead == 0, again.problems == 0, again.writtenBytes == 0 else {
            throw BenchmarkFailure("A2's syncs read \(sync.segmentsRead) and \(again.segmentsRead) segments (1 and 0 expected), \(sync.problems + again.problems) problems")
        }
        let converged = try Self.contents(of: path.a2) == Self.contents(of: mergedA)
        print(
            "ListStore sync's change set: \(sync.inserted) rows inserted, \(sync.deleted) deleted, \(sync.moved) moved, \(sync.updated) updated "
                + "(A2's own segment of them \(sync.writtenBytes) bytes); then \(again.inserted + again.deleted + again.moved + again.updated) changes; "
                + "A2 (segments) and A (file merge) \(converged ? "hold the same rows" : "DIFFER")")
        return SegmentFigures(sync: sync, again: again, editsBytes: bytes, bSeconds: bSeconds, converged: converged)
    }

    /// Copies a segment into another device's view of the folder, as a file-sync engine does: under a hidden
    /// name, then renamed (a segment not arrived whole is not read anyway).
    static func carry(_ segment: URL, into folder: String) throws {
        let target = URL(fileURLWithPath: folder).appendingPathComponent(segment.lastPathComponent)
        let temporary = URL(fileURLWithPath: folder).appendingPathComponent(".\(segment.lastPathComponent).carrying")
        try FileManager.default.copyItem(at: segment, to: temporary)
        try FileManager.default.moveItem(at: temporary, to: target)
    }

    /// What one sync in a child process reported.
    struct ChildSync {
        let seconds: Double
        let peakKiB: Int
        let segmentsRead: Int
        let problems: Int
        let inserted: Int
        let deleted: Int
        let moved: Int
        let updated: Int
        let writtenBytes: Int
    }

    /// Runs `liststore-bench --child-sync A FOLDER` and reads its report.
    static func syncInChild(_ path: String, folder: String, report: String) throws -> ChildSync {
        let child = Measurement.spawn(CommandLine.arguments[0], ["--child-sync", path, folder], output: report)
        let fields = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        guard child.status == 0, fields.count == 9, let seconds = Double(fields[0]) else {
            throw BenchmarkFailure("the syncing child exited with \(child.status), reporting \(fields)")
        }
        let counts = fields.dropFirst().map { Int($0) ?? -1 }
        return ChildSync(
            seconds: seconds, peakKiB: counts[0], segmentsRead: counts[1], problems: counts[2], inserted: counts[3], deleted: counts[4], moved: counts[5],
            updated: counts[6], writtenBytes: counts[7])
    }

    /// The child's side (`--child-sync A FOLDER`): opens A, times its sync through the folder, closes A, and
    /// prints the seconds, its peak resident memory in KiB, the segments read, the copies with a problem (each
    /// to standard error), the change set's rows inserted, deleted, moved, updated, and the bytes of the
    /// segment it wrote (0: none).
    static func childSync(_ path: String, folder: String) throws {
        var result: FolderSync?
        let seconds = try {
            let store = try ListStore.open(at: path)
            return try Measurement.seconds { result = try store.sync(throughFolder: URL(fileURLWithPath: folder)) }
        }()
        guard let result else { return }
        let problems = result.copies.compactMap(\.problem)
        for problem in problems { FileHandle.standardError.write(Data("sync problem: \(problem)\n".utf8)) }
        let changes = result.copies.compactMap(\.changes)
        let written = result.written.map { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? Int) ?? -1 } ?? 0
        print(
            String(format: "%.6f", seconds), Measurement.peakResidentKiB() ?? -1, result.copies.map(\.segmentsRead).reduce(0, +), problems.count,
            changes.map(\.insertedRows.count).reduce(0, +), changes.map(\.deletedRows.count).reduce(0, +), changes.map(\.movedRows.count).reduce(0, +),
            changes.map(\.updatedRows.count).reduce(0, +), written)
    }
}
