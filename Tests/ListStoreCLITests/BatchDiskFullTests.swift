import Foundation
import Testing

/// A full disk reads the same whichever command meets it: `batch` (which meets it inside a line, when
/// SQLite spills its cache into the `-wal`) says what `add` says, with the line, and changes nothing.
@Suite(.serialized) struct BatchDiskFullTests {
    /// A tmpfs of `size` mounted on a fresh folder for the duration of `body`.
    func withSmallDisk(_ size: String, _ body: (String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        let mount = try CLIHarness.process("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", directory.url.path], in: nil)
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer {
            // Detached at once if something still has a file open there, so no mount outlives the test.
            if (try? CLIHarness.process("/bin/umount", [directory.url.path], in: nil))?.status != 0 {
                _ = try? CLIHarness.process("/bin/umount", ["-l", directory.url.path], in: nil)
            }
        }
        try body(directory.url.path)
    }

    static let message = "the disk or the database size limit is full (database or disk is full); nothing was changed — free some space and try again"

    /// 5,000 lines adding a row of 3,000 bytes: a page each, about 20 MB, more than the writer's page
    /// cache holds (16 MiB).
    static let batch = (0..<5_000).map { "add 0 \(String(repeating: "x", count: 2_990))\($0)" }.joined(separator: "\n")

    @Test(.enabled(if: getuid() == 0, "needs root, to mount a small tmpfs"))
    func aBatchThatFillsTheDiskSaysWhatAddSays() throws {
        let scratch = try TemporaryDirectory()
        let batch = try inputFile(Self.batch, in: scratch)
        // Without the attack: room enough.
        try withSmallDisk("64m") { folder in
            let db = folder + "/a.sqlite"
            #expect(runInProcess(["--db", db, "section", "add", "S"]).status == 0)
            let run = runInProcess(["--db", db, "batch", batch])
            #expect(run.status == 0, "\(run.error)")
            #expect(run.output.contains("now 1 section, 5000 rows"))
        }
        try withSmallDisk("1m") { folder in
            let db = folder + "/a.sqlite"
            #expect(runInProcess(["--db", db, "section", "add", "S"]).status == 0)
            let before = try #require(fileBytes(db))
            let added = runInProcess(["--db", db, "add", "0", "-"], stdin: Data(Self.batch.utf8))
            #expect(added.status == 1)
            #expect(added.error == "error: \(Self.message)\n", "\(added.error)")
            let batched = runInProcess(["--db", db, "batch", batch])
            #expect(batched.status == 1)
            #expect(batched.error.hasPrefix("error: line ") && batched.error.hasSuffix(": \(Self.message)\n"), "\(batched.error)")
            #expect(!batched.error.contains("SQLite error"))
            #expect(fileBytes(db) == before)
            #expect(runInProcess(["--db", db, "show"]).output.contains("[0] S (0 rows)"))
        }
    }
}
