import Foundation
import ListStore
import StoreShorthands
import Testing

/// `backup FILE` (and the library's `backup(to:)`) writes a real, whole file at exactly the path given,
/// never an SQLite URI, `:memory:` or one of the live database's own files, and leaves nothing behind
/// when it fails: a full disk, the file size limit, a missing folder, a name that is taken. The backups
/// run the binary (`process: true`): its messages name FILE exactly as typed.
@Suite struct BackupTargetTests {
    /// Sections and rows of the copy at `path`, read with the library.
    static func counts(_ path: String) throws -> [Int] {
        let store = try ListStore.open(at: path, mode: .readOnly)
        return try store.sections().map(\.rowCount)
    }

    /// The names in the harness folder other than the database and its own files.
    static func strayFiles(_ cli: CLIHarness) -> [String] {
        FileSystemFaults.names(in: cli.directory.path).filter { !$0.hasPrefix("liststore.sqlite") }
    }

    // MARK: Not a URI, not :memory:

    @Test func uriLookingNamesAreFilesOfThatName() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        for name in [":memory:", "file:x?mode=memory", "file:copy.sqlite", "file:liststore.sqlite-wal"] {
            let run = try cli.run(["backup", name], process: true)
            #expect(run.status == 0, "\(name): \(run.stderr)")
            #expect(run.stdout == "backed up 3 sections, 24 rows to \(name)\n")
            let written = cli.directory.appendingPathComponent(name).path
            #expect(try Self.counts(written) == [6, 10, 8], "\(name) must be a whole copy")
        }
        // The live -wal is not where file:liststore.sqlite-wal went.
        #expect((try? FileManager.default.attributesOfItem(atPath: cli.database + "-wal")[.size] as? Int) ?? 0 == 0)
        #expect(Self.strayFiles(cli) == [":memory:", "file:copy.sqlite", "file:liststore.sqlite-wal", "file:x?mode=memory"])
    }

    @Test func anEmptyPathIsRefused() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let run = try cli.run(["backup", ""], process: true)
        #expect(run.status == 1)
        #expect(run.stderr == "error: cannot back up to an empty path: no file name was given; no backup was written and the database is unchanged — pass the path of a new file\n")
        #expect(Self.strayFiles(cli) == [])
    }

    // MARK: Never the database's own files

    @Test func theDatabaseAndItsWalShmAndJournalAreRefusedByAnySpelling() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let files = FileManager.default
        try files.createDirectory(at: cli.directory.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try files.createSymbolicLink(atPath: cli.directory.appendingPathComponent("here").path, withDestinationPath: ".")
        try files.createSymbolicLink(atPath: cli.directory.appendingPathComponent("soft.sqlite").path, withDestinationPath: "liststore.sqlite")
        try files.linkItem(atPath: cli.database, toPath: cli.directory.appendingPathComponent("hard.sqlite").path)
        let before = try cli.dump()
        let bytes = cli.bytes()
        let targets = [
            "liststore.sqlite", "liststore.sqlite-wal", "liststore.sqlite-shm", "liststore.sqlite-journal",
            "./liststore.sqlite-wal", "sub/../liststore.sqlite-journal", "here/liststore.sqlite-shm",
            cli.database + "-wal", "soft.sqlite", "hard.sqlite",
        ]
        for target in targets {
            let run = try cli.run(["backup", target], process: true)
            #expect(run.status == 1, "\(target): \(run.stdout)")
            #expect(run.stderr.hasPrefix("error: cannot back up to \(target): it is the database's own file ("), "\(target): \(run.stderr)")
            #expect(run.stderr.filter { $0 == "\n" }.count == 1)
        }
        #expect(try cli.dump() == before)
        #expect(cli.bytes() == bytes)
        #expect(!files.fileExists(atPath: cli.database + "-journal"))
        #expect(Self.strayFiles(cli) == ["hard.sqlite", "here", "soft.sqlite", "sub"])
        #expect(FileSystemFaults.names(in: cli.directory.appendingPathComponent("sub").path) == [])
    }

    @Test func theLibraryRefusesTheLiveWalAndWritesOtherPathsWhole() throws {
        let directory = try TemporaryDirectory(prefix: "backup-library")
        let path = directory.path("lists.sqlite")
        try FileSystemFaults.makeStore(at: path, sections: 2, rows: 10)
        let store = try ListStore.open(at: path)
        for target in [path + "-wal", path + "-journal", directory.path("./lists.sqlite-shm")] {
            #expect(throws: ListStoreError.self) { try store.backup(to: target) }
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        try store.backup(to: directory.path("copy.sqlite"))
        #expect(try Self.counts(directory.path("copy.sqlite")) == [10, 10])
        #expect(FileSystemFaults.names(in: directory.url.path).filter { !$0.hasPrefix("lists.sqlite") } == ["copy.sqlite"])
    }

    // MARK: Never over something

    @Test func anythingAtThePathIsRefusedWithTheAlreadyExistsMessage() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let files = FileManager.default
        try Data("keep".utf8).write(to: cli.directory.appendingPathComponent("taken.sqlite"))
        try files.createSymbolicLink(atPath: cli.directory.appendingPathComponent("dangling.sqlite").path, withDestinationPath: "nowhere.sqlite")
        try files.createDirectory(at: cli.directory.appendingPathComponent("folder"), withIntermediateDirectories: true)
        for target in ["taken.sqlite", "dangling.sqlite", "folder"] {
            let run = try cli.run(["backup", target], process: true)
            #expect(run.status == 1)
            #expect(run.stderr == "error: \(target) already exists; choose a new FILE (a backup never overwrites)\n")
        }
        #expect(files.contents(atPath: cli.directory.appendingPathComponent("taken.sqlite").path) == Data("keep".utf8))
        #expect(!files.fileExists(atPath: cli.directory.appendingPathComponent("nowhere.sqlite").path), "a dangling link is not followed")
        #expect(Self.strayFiles(cli) == ["dangling.sqlite", "folder", "taken.sqlite"])
    }

    @Test func aBackupIsWholeAndLeavesNoTemporaryBehind() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let run = try cli.run(["backup", "copy.sqlite"], process: true)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.counts(cli.directory.appendingPathComponent("copy.sqlite").path) == [6, 10, 8])
        #expect(Self.strayFiles(cli) == ["copy.sqlite"])
    }

    @Test func aMissingFolderIsNamedAndNothingIsWritten() throws {
        let cli = try CLIHarness()
        try cli.run(["demo"])
        let run = try cli.run(["backup", "missing/copy.sqlite"], process: true)
        #expect(run.status == 1)
        #expect(
            run.stderr == "error: cannot back up to missing/copy.sqlite: the folder missing does not exist; no backup was written and the database is unchanged — create it first\n"
        )
        #expect(Self.strayFiles(cli) == [])
    }

    // MARK: Full disk and file size limit

    @Test(.enabled(if: FileSystemFaults.canMountTmpfs, "needs root to mount a small tmpfs"))
    func aFullDiskLeavesNoFileSoARetryWorks() throws {
        let cli = try CLIHarness()
        try FileSystemFaults.makeStore(at: cli.database)  // about 270 KB
        let small = try FileSystemFaults.mountTmpfs(in: cli.directory, kilobytes: 128)
        defer { FileSystemFaults.unmount(small) }
        let before = try cli.dump()
        let run = try cli.run(["backup", "small/copy.sqlite"], process: true)
        #expect(run.status == 1)
        #expect(run.stderr == "error: cannot back up to small/copy.sqlite: the disk is full; no backup was written and the database is unchanged — free some space and try again\n")
        #expect(FileSystemFaults.names(in: small) == [], "no empty target, no temporary")
        #expect(try cli.dump() == before)
        // The same backup where there is room: the retry is not refused with "already exists".
        let large = try FileSystemFaults.mountTmpfs(in: cli.directory, name: "large", kilobytes: 1_024)
        defer { FileSystemFaults.unmount(large) }
        let retry = try cli.run(["backup", "large/copy.sqlite"], process: true)
        #expect(retry.status == 0, "\(retry.stderr)")
        #expect(FileSystemFaults.names(in: large) == ["copy.sqlite"])
        #expect(try Self.counts(large + "/copy.sqlite") == [1_000, 1_000, 1_000])
    }

    @Test func theFileSizeLimitIsAnErrorAndLeavesNoPartialFile() throws {
        let cli = try CLIHarness()
        try FileSystemFaults.makeStore(at: cli.database)  // about 270 KB
        let limited = try FileSystemFaults.runLimited(blocks: 200, ["backup", "copy.sqlite"], in: cli.directory)  // 100 KiB
        #expect(limited.status == 1, "killed by SIGXFSZ? \(limited.status)")
        #expect(
            limited.stderr
                == "error: cannot back up to copy.sqlite: the file size limit (ulimit -f) of 102400 bytes was reached; no backup was written and the database is unchanged — raise the limit (ulimit -f) and try again\n"
        )
        #expect(Self.strayFiles(cli) == [], "no partial file, no journal, no temporary")
        // The same backup under a limit it fits in.
        let roomy = try FileSystemFaults.runLimited(blocks: 4_000, ["backup", "copy.sqlite"], in: cli.directory)
        #expect(roomy.status == 0, "\(roomy.stderr)")
        #expect(Self.strayFiles(cli) == ["copy.sqlite"])
    }
}
