import Foundation
import ListStore
import StoreShorthands
import Testing

/// Paths and the files beside the database: a `--db` that is a symbolic link works like the file it
/// names; what SQLite reports only as "unable to open database file" or "attempt to write a readonly
/// database" — a path longer than it opens, a `-wal`/`-shm` that is a link or another user's, a `-wal`
/// it cannot read in a read-only folder — is named, with what to do.
@Suite struct PathErrorTests {
    /// Reads and writes through `db`, as a script would: every command must succeed.
    func useThroughout(_ db: String) throws {
        let scratch = try TemporaryDirectory()
        let batch = try inputFile("add 0 from-batch\n", in: scratch)
        for arguments in [
            ["section", "add", "Added"], ["add", "0", "r1", "r2"], ["show"], ["--json", "show"], ["export"], ["check"],
            ["edit", "0:0", "--title", "R1"], ["batch", batch],
        ] {
            let run = runInProcess(["--db", db] + arguments)
            #expect(run.status == 0, "\(db) \(arguments): \(run.error)")
        }
        let shown = runInProcess(["--db", db, "show"]).output
        #expect(shown.contains("0:0  R1") && shown.contains("0:2  from-batch"), "\(shown)")
    }

    @Test func aSymbolicLinkAsDatabaseIsReadAndWrittenLikeTheFileItNames() throws {
        let directory = try TemporaryDirectory()
        // Without the link: the file itself.
        try useThroughout(directory.path("plain.sqlite"))

        // Through a link made to an existing file (its size is the link's, not the file's).
        let real = directory.path("real.sqlite")
        #expect(runInProcess(["--db", real, "demo"]).status == 0)
        try FileManager.default.createSymbolicLink(atPath: directory.path("link.sqlite"), withDestinationPath: "real.sqlite")
        let demo = runInProcess(["--db", real, "show"]).output
        #expect(runInProcess(["--db", directory.path("link.sqlite"), "show"]).output == demo)
        let emptied = runInProcess(["--db", directory.path("link.sqlite"), "import", "--replace", "-"], stdin: Data(#"{"sections":[]}"#.utf8))
        #expect(emptied.status == 0, "\(emptied.error)")
        try useThroughout(directory.path("link.sqlite"))
        #expect(runInProcess(["--db", real, "show"]).output == runInProcess(["--db", directory.path("link.sqlite"), "show"]).output)
        // export refuses the database's own files, named through the link or not.
        let writer = try ListStore.open(at: real)
        try writer.insertSection(title: "Keeps a -wal", at: 0)
        for file in [real, real + "-wal", real + "-shm", directory.path("link.sqlite")] {
            let run = runInProcess(["--db", directory.path("link.sqlite"), "export", file])
            #expect(run.status == 1 && run.error.contains("refusing to export over the database itself"), "\(file): \(run.error)")
        }
        withExtendedLifetime(writer) {}

        // A link to a link, and a dangling link (its target is created, as SQLite follows it).
        try FileManager.default.createDirectory(atPath: directory.path("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path("sub/to-link.sqlite"), withDestinationPath: "../link.sqlite")
        #expect(runInProcess(["--db", directory.path("sub/to-link.sqlite"), "section", "add", "Twice linked"]).status == 0)
        try FileManager.default.createSymbolicLink(atPath: directory.path("dangling.sqlite"), withDestinationPath: "sub/new.sqlite")
        // A failed first command through it leaves nothing behind, and the link as it was.
        #expect(runInProcess(["--db", directory.path("dangling.sqlite"), "add", "5", "x"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path("sub/new.sqlite")))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: directory.path("dangling.sqlite"))) == "sub/new.sqlite")
        try useThroughout(directory.path("dangling.sqlite"))
        #expect(FileManager.default.fileExists(atPath: directory.path("sub/new.sqlite")))

        // Links in a loop name no file at all.
        try FileManager.default.createSymbolicLink(atPath: directory.path("loop-a"), withDestinationPath: "loop-b")
        try FileManager.default.createSymbolicLink(atPath: directory.path("loop-b"), withDestinationPath: "loop-a")
        let loop = runInProcess(["--db", directory.path("loop-a"), "section", "add", "X"])
        #expect(loop.status == 1 && loop.error.contains("its symbolic links form a loop"), "\(loop.error)")
    }

    @Test func aLinkedDatabaseWithCommitsStillInItsWALReadsThem() throws {
        let directory = try TemporaryDirectory()
        let real = directory.path("real.sqlite")
        try FileManager.default.createSymbolicLink(atPath: directory.path("link.sqlite"), withDestinationPath: real)
        for db in [real, directory.path("link.sqlite")] {
            // A writer that stays connected keeps its commits in real.sqlite-wal (beside the file, not the link).
            let writer = try ListStore.open(at: real)
            try writer.importDocument(ListDocument(sections: []), replacing: true)
            try writer.insertSection(title: "Live", at: 0)
            try writer.insertRow("in the wal", intoSection: 0)
            #expect(FileManager.default.fileExists(atPath: real + "-wal"))
            let shown = runInProcess(["--db", db, "show"])
            #expect(shown.status == 0 && shown.output.contains("0:0  in the wal"), "\(db): \(shown.error)")
            let added = runInProcess(["--db", db, "add", "0", "beside it"])
            #expect(added.status == 0, "\(db): \(added.error)")
            #expect(try writer.rowCount(inSection: 0) == 2)
        }
    }

    /// A folder inside `directory` whose path makes `directory/…/f.sqlite` exactly `length` bytes long
    /// once links are resolved (the temporary folder may itself be a link).
    func fileWithFullPath(of length: Int, in directory: TemporaryDirectory) throws -> String {
        let base = try #require(
            realpath(directory.url.path, nil).map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        var folder = base
        let name = "/f.sqlite"
        while true {
            let remaining = length - folder.utf8.count - name.utf8.count
            if remaining < 2 { break }
            // Components of at most 200 bytes; never leave 1 byte, which no "/" plus name can fill.
            folder += "/" + String(repeating: "d", count: remaining <= 201 ? remaining - 1 : min(200, remaining - 3))
        }
        try #require(folder.utf8.count + name.utf8.count == length, "cannot build a path of \(length) bytes from \(base)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + name
    }

    @Test func aPathLongerThanSQLiteOpensIsRefusedWithTheLimit() throws {
        let directory = try TemporaryDirectory()
        let longest = try fileWithFullPath(of: 504, in: directory)
        #expect(runInProcess(["--db", longest, "section", "add", "Fits"]).status == 0)
        #expect(runInProcess(["--db", longest, "show"]).output.contains("Fits"))
        let tooLong = try fileWithFullPath(of: 505, in: directory)
        for arguments in [["init"], ["section", "add", "X"]] {
            let run = runInProcess(["--db", tooLong] + arguments)
            #expect(run.status == 1)
            #expect(run.error.contains("is 505 bytes long, and SQLite opens only files whose full path, symbolic links resolved, is at most 504 bytes"), "\(run.error)")
            #expect(!run.error.contains("SQLite error"))
        }
        // A short link to it does not help (SQLite resolves it): it is refused the same way, naming the full path.
        let link = directory.path("short.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: tooLong)
        let viaLink = runInProcess(["--db", link, "section", "add", "X"])
        #expect(viaLink.status == 1 && viaLink.error.contains("its full path (\(tooLong)) is 505 bytes long"), "\(viaLink.error)")
        #expect(!FileManager.default.fileExists(atPath: tooLong))
    }

    @Test(arguments: ["-wal", "-shm"])
    func aWALOrSHMThatIsASymbolicLinkIsNamed(_ suffix: String) throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("a.sqlite")
        #expect(runInProcess(["--db", db, "demo"]).status == 0)
        // Without the link, a -wal and -shm of its own are fine.
        let writer = try ListStore.open(at: db)
        try writer.insertSection(title: "In the wal", at: 0)
        #expect(runInProcess(["--db", db, "show"]).output.contains("[0] In the wal"))
        #expect(runInProcess(["--db", db, "section", "add", "X"]).status == 0)
        withExtendedLifetime(writer) {}

        let other = try TemporaryDirectory()
        let linked = directory.path("b.sqlite")
        #expect(runInProcess(["--db", linked, "demo"]).status == 0)
        let before = try #require(fileBytes(linked))
        #expect(FileManager.default.createFile(atPath: other.path("elsewhere"), contents: Data()))
        try FileManager.default.createSymbolicLink(atPath: linked + suffix, withDestinationPath: other.path("elsewhere"))
        for arguments in [["show"], ["section", "add", "X"]] {
            let run = runInProcess(["--db", linked] + arguments)
            #expect(run.status == 1)
            #expect(
                run.error.contains("\(linked)\(suffix) is a symbolic link (to \(other.path("elsewhere"))), and SQLite refuses to open its -wal or -shm through a link"),
                "\(arguments): \(run.error)")
            #expect(!run.error.contains("SQLite error"))
        }
        #expect(fileBytes(linked) == before)
    }

    /// Runs the built binary as `uid` (through setpriv) in `directory`.
    func run(as uid: Int, _ arguments: [String], in directory: URL) throws -> CLIHarness.Run {
        let binary = try #require(CLIHarness.binary)
        return try CLIHarness.process("/usr/bin/setpriv", ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", binary.path] + arguments, in: directory)
    }

    @Test(.enabled(if: getuid() == 0, "needs root, to run as two other users"))
    func anotherUsersWALAndSHMAreNamedWithTheirOwner() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: directory.url.path)
        let owner = 1234
        let reader = 65534
        #expect(try run(as: owner, ["--db", "a.sqlite", "demo"], in: directory.url).status == 0)
        // Without the attack: the owner reads, then writes.
        #expect(try run(as: owner, ["--db", "a.sqlite", "show"], in: directory.url).status == 0)
        #expect(try run(as: owner, ["--db", "a.sqlite", "section", "add", "Mine"], in: directory.url).status == 0)

        // Another user reads (the file is readable by all): the -wal and -shm it leaves are its own.
        #expect(try run(as: reader, ["--db", "a.sqlite", "show"], in: directory.url).status == 0)
        var status = stat()
        #expect(stat(directory.path("a.sqlite-shm"), &status) == 0 && Int(status.st_uid) == reader)
        let before = try #require(fileBytes(directory.path("a.sqlite")))
        let refused = try run(as: owner, ["--db", "a.sqlite", "section", "add", "Blocked"], in: directory.url)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("a.sqlite-wal belongs to") && refused.stderr.contains("(uid \(reader)), who opened the database as themselves"),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("uid \(owner)") && refused.stderr.contains("cannot write it"))
        #expect(refused.stderr.contains("remove a.sqlite-wal and a.sqlite-shm"))
        #expect(!refused.stderr.contains("check the file permissions"))
        #expect(fileBytes(directory.path("a.sqlite")) == before)
        // What it says to do works: with no one connected, the empty -wal and the -shm go.
        try FileManager.default.removeItem(atPath: directory.path("a.sqlite-wal"))
        try FileManager.default.removeItem(atPath: directory.path("a.sqlite-shm"))
        #expect(try run(as: owner, ["--db", "a.sqlite", "section", "add", "Again"], in: directory.url).status == 0)
    }

    @Test(.enabled(if: getuid() == 0, "needs root, to run as a user the folder's permissions apply to"))
    func aCrashedWritersWALInAReadOnlyFolderIsNamed() throws {
        let directory = try TemporaryDirectory()
        let source = directory.path("live.sqlite")
        #expect(runInProcess(["--db", source, "demo"]).status == 0)
        let writer = try ListStore.open(at: source)
        try writer.insertSection(title: "Only in the wal", at: 0)
        let user = 1234
        for readOnly in [false, true] {
            // The file and its -wal as a writer that crashed left them (no -shm), in a folder of the user's.
            let folder = directory.path(readOnly ? "read-only" : "writable")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: source + suffix, toPath: folder + "/a.sqlite" + suffix) }
            for path in [folder, folder + "/a.sqlite", folder + "/a.sqlite-wal"] { #expect(chown(path, uid_t(user), gid_t(user)) == 0) }
            if readOnly { try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder) }
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
            let before = try #require(fileBytes(folder + "/a.sqlite"))
            for arguments in [["show"], ["section", "add", "X"]] {
                let run = try run(as: user, ["--db", "a.sqlite"] + arguments, in: URL(fileURLWithPath: folder))
                if readOnly {
                    #expect(run.status == 1)
                    #expect(
                        run.stderr.contains(
                            "a.sqlite-wal holds changes not yet in the file (left by a writer that did not close, or one still connected), and SQLite cannot read them without creating a.sqlite-shm, which the folder . does not allow"
                        ),
                        "\(arguments): \(run.stderr)")
                    #expect(!run.stderr.contains("SQLite error"))
                    #expect(fileBytes(folder + "/a.sqlite") == before)
                } else {
                    #expect(run.status == 0, "\(arguments): \(run.stderr)")
                    if arguments == ["show"] { #expect(run.stdout.contains("[0] Only in the wal")) }
                }
            }
        }
        withExtendedLifetime(writer) {}
    }
}
