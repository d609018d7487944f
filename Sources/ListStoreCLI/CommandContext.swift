import Foundation
import ListStore

/// What a command prints: text for people and one JSON document for `--json`.
struct CommandOutput {
    let human: String
    let json: JSONValue
    /// True when the command already wrote its output as it went (`watch`).
    var streamed = false

    static let streamed = CommandOutput(human: "", json: .null, streamed: true)
}

/// The process around the CLI: standard input, terminals, environment. Tests pass their own.
package struct CLIEnvironment: Sendable {
    /// Environment variables (`LISTSTORE_DB`).
    package var variables: [String: String]
    /// Reads all of standard input.
    package var readStandardInput: @Sendable () -> Data
    /// Whether standard error is a terminal (progress is shown only then).
    package var standardErrorIsTerminal: Bool
    /// Writes progress text to standard error.
    package var writeProgress: @Sendable (String) -> Void
    /// Writes output to standard output as it comes, for commands that stream (`watch`, `export`,
    /// `show`); nil collects it into ``CLI/Result/output`` instead. An error it throws ends the command
    /// with that error.
    package var writeOutput: (@Sendable (String) throws -> Void)?
    /// The folder relative paths (`--db`, `LISTSTORE_DB`, the files commands read and write) are
    /// resolved against; nil is the process's working directory. A process has one working directory,
    /// so the CLI run in-process for several folders at once (tests) names each run's folder here.
    package var workingDirectory: String?
    /// The file descriptor `batch` reads for `-` (standard input).
    package var standardInput: Int32 = STDIN_FILENO

    /// An environment built from its parts.
    package init(
        variables: [String: String], readStandardInput: @escaping @Sendable () -> Data,
        standardErrorIsTerminal: Bool, writeProgress: @escaping @Sendable (String) -> Void,
        writeOutput: (@Sendable (String) throws -> Void)? = nil
    ) {
        self.variables = variables
        self.readStandardInput = readStandardInput
        self.standardErrorIsTerminal = standardErrorIsTerminal
        self.writeProgress = writeProgress
        self.writeOutput = writeOutput
    }

    /// The environment variables commands read: the database file and the list.
    static let readVariables = ["LISTSTORE_DB", "LISTSTORE_LIST"]

    /// The real process: its environment, stdin, stdout and stderr. A failed write to standard error
    /// is ignored (there is nowhere left to report it); standard output's are reported (see ``StandardOutput``).
    package static var process: CLIEnvironment {
        CLIEnvironment(
            // Only the variables the commands read, with getenv: ProcessInfo's whole environment as a
            // dictionary costs a small command more than opening its file (measured with perf).
            variables: Dictionary(uniqueKeysWithValues: readVariables.compactMap { name in getenv(name).map { (name, String(cString: $0)) } }),
            readStandardInput: { FileHandle.standardInput.readDataToEndOfFile() },
            standardErrorIsTerminal: isatty(STDERR_FILENO) == 1,
            writeProgress: { try? DescriptorWriter(descriptor: STDERR_FILENO).write($0) },
            writeOutput: { try StandardOutput().write($0) })
    }
}

/// Where a command runs: which database, which output mode, which process environment.
struct CommandContext {
    /// The default database file, in the current directory.
    static let defaultDatabase = "liststore.sqlite"

    let databasePath: String
    /// The list the command acts on: `--list`, else `$LISTSTORE_LIST`, else nil (the default list).
    let listName: String?
    let json: Bool
    let environment: CLIEnvironment
    /// Writes to standard output as the command goes (see ``CLIEnvironment/writeOutput``).
    let write: @Sendable (String) throws -> Void
    /// True when the path came from neither `--db` nor `LISTSTORE_DB`.
    let usesDefaultDatabase: Bool

    init(globals: GlobalOptions, environment: CLIEnvironment, write: @escaping @Sendable (String) throws -> Void) {
        let fromEnvironment = environment.variables["LISTSTORE_DB"].flatMap { $0.isEmpty ? nil : $0 }
        databasePath = globals.databasePath ?? fromEnvironment ?? Self.defaultDatabase
        usesDefaultDatabase = globals.databasePath == nil && fromEnvironment == nil
        listName = globals.listName ?? environment.variables["LISTSTORE_LIST"].flatMap { $0.isEmpty ? nil : $0 }
        json = globals.json
        self.environment = environment
        self.write = write
    }

    /// The database as the file system sees it (``file(_:)``); `databasePath` is the path as written, for messages.
    var databaseFile: String { file(databasePath) }

    /// `path` (as written by the user) for the file system: a relative path is resolved against the
    /// environment's ``CLIEnvironment/workingDirectory``, when one is given.
    func file(_ path: String) -> String {
        guard let folder = environment.workingDirectory, !path.isEmpty, !path.hasPrefix("/") else { return path }
        return folder + "/" + path
    }

    var databaseExists: Bool { FileManager.default.fileExists(atPath: databaseFile) }

    /// The error for a command that needs an existing database.
    var missingDatabase: CommandFailure {
        // A path that can never be a file gets the reason instead of "create one".
        do { try refusePathsThatAreNotFiles() } catch let failure as CommandFailure { return failure } catch {}
        return CommandFailure("no database at \(databasePath); create one with `liststore init` (or `liststore demo` for example data), or pass --db PATH")
    }

    /// Opens an existing database read-only; never creates a file, and never changes its bytes. The
    /// file is recognised inside the command's first read transaction (a command that reads once runs
    /// one transaction); `watch`, which reads for as long as it runs, recognises it while opening.
    func openForReading(recognisingInFirstRead: Bool = true) throws -> ListStore {
        try refuseDirectory()
        guard databaseExists else { throw missingDatabase }
        return try scoped(ListStore.open(at: databaseFile, mode: .readOnly, recognition: recognisingInFirstRead ? .inFirstTransaction : .atOpen))
    }

    /// `store`, or its handle on the list the command names (``listName``).
    func scoped(_ store: ListStore) throws -> ListStore {
        guard let listName else { return store }
        return try store.list(named: listName)
    }

    /// Runs `body` with the database open for writing (`isNew`: it did not exist). An existing file is
    /// recognised inside the command's first transaction — for an edit, its `BEGIN IMMEDIATE`, which
    /// also migrates an older file —, so an edit is one transaction. A missing one is created only if
    /// `body` succeeds: built under a temporary name beside it and given its name at the end, never over
    /// anything (``ListStore/creatingFile(at:busyTimeout:_:)``), so a failing command creates no file. When
    /// another process created the file meanwhile, `body` runs again on that file if `rerunnable` (its
    /// input is still at hand); otherwise the command fails, and nothing of it was written.
    func withStoreForWriting<T>(rerunnable: Bool = true, _ body: (_ store: ListStore, _ isNew: Bool) throws -> T) throws -> T {
        try refuseUnwritablePath()
        if !databaseExists {
            do {
                return try ListStore.creatingFile(at: databaseFile, author: HistoryCommands.author) { try body(try scoped($0), true) }
            } catch let appeared as ListStore.FileAppeared {
                guard rerunnable else { throw CommandFailure("\(appeared); nothing of this command was written — run it again") }
            }
        }
        return try body(try scoped(ListStore.open(at: databaseFile, mode: .readWrite, recognition: .inFirstTransaction, author: HistoryCommands.author)), false)
    }

    /// ``withStoreForWriting(rerunnable:_:)`` for a body that does not ask whether the file is new.
    func withStoreForWriting<T>(rerunnable: Bool = true, _ body: (_ store: ListStore) throws -> T) throws -> T {
        try withStoreForWriting(rerunnable: rerunnable) { store, _ in try body(store) }
    }

    /// Opens an existing database for writing, recognising it while opening (`ui`, which reads and
    /// writes for as long as it runs); a missing one is refused.
    func openExistingForWriting() throws -> ListStore {
        try refuseDirectory()
        guard databaseExists else { throw missingDatabase }
        return try scoped(ListStore.open(at: databaseFile, mode: .readWrite, author: HistoryCommands.author))
    }

    /// Refuses, before anything is opened, a path where no database can be written: what
    /// ``refuseDirectory()`` refuses, and a file in a folder that does not exist.
    func refuseUnwritablePath() throws {
        try refuseDirectory()
        let folder = Self.folder(of: databasePath)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file(folder), isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandFailure("cannot create \(databasePath): the folder \(folder) does not exist; create it first or pass another --db PATH")
        }
    }

    /// Refuses what cannot be a database file before anything is opened: `:memory:` (SQLite's
    /// in-memory database, gone when the command ends: nothing would be saved) and an empty path.
    /// Every other path is a plain file name — `file:x.sqlite` is a file of that name, for reads and
    /// writes alike. Devices and FIFOs are refused by ``ListStore/open(at:mode:busyTimeout:)``.
    func refusePathsThatAreNotFiles() throws {
        if databasePath == ":memory:" {
            throw CommandFailure(":memory: is SQLite's in-memory database, which would be gone when the command ends; pass a file path (./:memory: for a file of that name)")
        }
        if databasePath.isEmpty {
            throw CommandFailure("the database path is empty; pass --db PATH with a file path")
        }
    }

    /// A folder given as the database is a slip of the keyboard; say so instead of an SQLite I/O error.
    /// Also refuses the paths ``refusePathsThatAreNotFiles()`` names.
    func refuseDirectory() throws {
        try refusePathsThatAreNotFiles()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: databaseFile, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandFailure("\(databasePath) is a folder, not a database file; pass a file path such as \(databasePath)/liststore.sqlite")
        }
    }

    /// The folder part of `path` as written ("." for a bare file name, "/" for a file at the root).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }
}
