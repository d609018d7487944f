import Foundation
import Testing

/// A tmux server of its own (its socket in the test's temporary directory) with one 100×40 pane
/// running `sh`, for driving `liststore ui` as a person would: keys in, the screen's text out.
final class TmuxPane {
    /// tmux, when installed (`.ci/run` installs it).
    static let executable: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The shell prompt in the pane (tmux's captures drop trailing spaces, hence none).
    static let prompt = "ui-test$"

    private let tmux: String
    /// The server's socket lives in a folder of the pane's own, so that it outlives the pane even when
    /// the test's harness (and its folder) goes first.
    private let socketFolder: TemporaryDirectory
    private let socket: String
    /// The tmux server, ended when the pane goes even if its socket is gone.
    private var serverPID: Int32?

    init(tmux: String, directory: URL) throws {
        self.tmux = tmux
        socketFolder = try TemporaryDirectory(prefix: "tmux")
        socket = socketFolder.path("tmux.sock")
        try run([
            "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "40", "-s", "ui",
            "env PS1='\(Self.prompt) ' sh",
        ])
        serverPID = Int32(try run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    deinit {
        // tmux's kill-server answers before its server has gone, and an exiting test process may not
        // wait for it: end the server by its process id as well (it is this test's own, just started).
        _ = try? run(["kill-server"])
        if let serverPID { kill(serverPID, SIGKILL) }
    }

    /// Keys by tmux's names (`Space`, `Enter`, `Escape`, `Down`, `C-c`) or single characters.
    func keys(_ keys: String...) throws { try run(["send-keys", "-t", "ui"] + keys) }

    /// Text typed as it is (any Unicode).
    func type(_ text: String) throws { try run(["send-keys", "-t", "ui", "-l", text]) }

    /// The pane's text now, one line per screen line.
    func screen() throws -> String { try run(["capture-pane", "-p", "-t", "ui"]) }

    /// Polls the screen until `condition` holds (bounded: `timeout` seconds), and returns it; records an
    /// issue with the last screen when it never holds.
    @discardableResult
    func waitFor(
        _ what: String, timeout: TimeInterval = 20, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        repeat {
            last = try screen()
            if condition(last) { return last }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        Issue.record("waited \(timeout) s for \(what); the screen was:\n\(last)", sourceLocation: sourceLocation)
        return last
    }

    /// Waits until the screen shows `text`.
    @discardableResult
    func waitFor(_ text: String, timeout: TimeInterval = 20, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try waitFor("\"\(text)\"", timeout: timeout, sourceLocation: sourceLocation) { $0.contains(text) }
    }

    /// The shell's process id in the pane.
    func shellPID() throws -> Int32 {
        Int32(try run(["display-message", "-p", "-t", "ui", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The window becomes `columns` × `lines`.
    func resize(columns: Int, lines: Int) throws { try run(["resize-window", "-t", "ui", "-x", "\(columns)", "-y", "\(lines)"]) }

    /// Runs tmux with posix_spawn and waitpid: Foundation's `Process` waits for every copy of a descriptor
    /// it gives the child to close, and the tmux server the first command starts keeps one for its life.
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let scratch = try TemporaryDirectory(prefix: "tmux-io")
        let outPath = scratch.path("out")
        let errPath = scratch.path("err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of this process's: the tmux server the first command starts lives on, and a copy
        // of a descriptor Foundation's Process gave another test's child would keep that child looking
        // alive to Foundation forever (a concurrent test would then hang waiting for it).
        try Self.closeDescriptorsFrom3(&actions)
        var environment = ProcessInfo.processInfo.environment
        environment["LANG"] = "C.UTF-8"
        environment["LC_ALL"] = "C.UTF-8"
        environment["TMUX"] = nil
        environment["LISTSTORE_DB"] = nil
        let argv = ([tmux, "-u", "-S", socket] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tmux, &actions, nil, argv, envp)
        guard spawned == 0 else { throw CommandError("cannot start tmux: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data(), as: UTF8.self)
        guard status == 0 else {
            let errors = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data(), as: UTF8.self)
            throw CommandError("tmux \(arguments.first ?? "") failed (status \(status)): \(errors)")
        }
        return output
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34), which Swift's Glibc module does not import.
    private static func closeDescriptorsFrom3(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw CommandError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or newer is needed)")
        }
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        guard closeFrom(&actions, 3) == 0 else { throw CommandError("posix_spawn_file_actions_addclosefrom_np failed") }
    }

    struct CommandError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// `liststore ui` end to end: the real binary in a tmux pane, driven by keys, checked on screen and in the
/// file (through the CLI's `--json show`, by row id).
@Suite(.serialized) struct UITests {
    /// A harness, a pane, and the ui started on the harness's database; nil (after saying why) when tmux
    /// is missing outside CI.
    static func start(_ harness: CLIHarness, waitFor text: String) throws -> TmuxPane? {
        guard let tmux = TmuxPane.executable else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("tmux is not installed: .ci/run installs it (apt-get install tmux)")
            } else {
                print("⚠️  SKIPPED: UITests need tmux (apt-get install tmux, or run .ci/run); the ui was not tested end to end")
            }
            return nil
        }
        let binary = try #require(CLIHarness.binary, "build the liststore executable first (swift build)")
        let pane = try TmuxPane(tmux: tmux, directory: harness.directory)
        try pane.waitFor(TmuxPane.prompt)
        try pane.type("'\(binary.path)' --db '\(harness.database)' ui; echo \"ui exited $?\"")
        try pane.keys("Enter")
        try pane.waitFor(text)
        return pane
    }

    /// Rows of the store as (section, title, id), in order, read by another process.
    static func rows(_ harness: CLIHarness) throws -> [(section: Int, title: String, id: Int)] {
        let run = try harness.run(["--json", "show"])
        try #require(run.status == 0, "show failed: \(run.stderr)")
        let sections = try #require(try CLIHarness.json(run.stdout)["sections"] as? [[String: Any]])
        var result: [(Int, String, Int)] = []
        for (index, section) in sections.enumerated() {
            for row in section["rows"] as? [[String: Any]] ?? [] {
                result.append((index, row["title"] as? String ?? "", row["id"] as? Int ?? -1))
            }
        }
        return result
    }

    /// The last line with text on it.
    static func lastLine(_ screen: String) -> String? {
        screen.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func quit(_ pane: TmuxPane) throws {
        try pane.keys("q")
        // The shell prints the prompt a moment after the echo: the screen can be caught in between.
        let screen = try pane.waitFor("the shell prompt after \"ui exited 0\"") {
            $0.contains("ui exited 0") && lastLine($0) == TmuxPane.prompt
        }
        #expect(lastLine(screen) == TmuxPane.prompt, "the shell prompt is back:\n\(screen)")
        #expect(!screen.contains("Space tick"), "the ui's screen is gone:\n\(screen)")
    }

    @Test func tickTwoRowsAndDeleteExactlyThoseWhileRowsOfTheSameTitlesStay() throws {
        let harness = try CLIHarness()
        try #require(harness.run(["section", "add", "Mail"]).status == 0)
        try #require(harness.run(["add", "0", "Invoice", "Lunch?", "Invoice", "Lunch?", "Tea"]).status == 0)
        let before = try Self.rows(harness)
        guard let pane = try Self.start(harness, waitFor: "1 section · 5 rows") else { return }
        try pane.keys("Space", "j", "Space")
        let ticked = try pane.waitFor("2 ticked")
        #expect(ticked.contains("  ✓ 0:0  Invoice"))
        #expect(ticked.contains(">   ✓ 0:1  Lunch?"))
        try pane.keys("d")
        try pane.waitFor("Delete 2 rows? (y/n)")
        try pane.keys("y")
        try pane.waitFor("deleted 2 rows: 0:0, 0:1")
        let after = try Self.rows(harness)
        #expect(after.map(\.title) == ["Invoice", "Lunch?", "Tea"])
        #expect(after.map(\.id) == before[2...].map(\.id))
        try Self.quit(pane)
    }

    @Test func addToEverySectionInsertAtTheCursorAndMoveARowAcrossSections() throws {
        let harness = try CLIHarness()
        try #require(harness.run(["section", "add", "Roles"]).status == 0)
        try #require(harness.run(["section", "add", "Monsters"]).status == 0)
        try #require(harness.run(["add", "0", "Barbarian", "Wizard"]).status == 0)
        try #require(harness.run(["add", "1", "Goblin", "Golem"]).status == 0)
        guard let pane = try Self.start(harness, waitFor: "2 sections · 4 rows") else { return }

        try pane.keys("a")
        try pane.waitFor("Add to every section:")
        try pane.type("被增加的項目 ✨")
        try pane.keys("Enter")
        try pane.waitFor("inserted 2 rows: 0:2, 1:2")
        #expect(try Self.rows(harness).map(\.title) == ["Barbarian", "Wizard", "被增加的項目 ✨", "Goblin", "Golem", "被增加的項目 ✨"])

        // The cursor is on 0:0; insert before it, fixing a typo with the arrow keys and Backspace.
        try pane.keys("i")
        try pane.waitFor("Insert before 0:0:")
        try pane.type("Haed")
        try pane.keys("Left", "Left", "BSpace", "Right")
        try pane.type("a")
        try pane.keys("Enter")
        try pane.waitFor("inserted 1 row: 0:0")
        #expect(try Self.rows(harness).map(\.title).prefix(3) == ["Head", "Barbarian", "Wizard"])

        // Pick up Wizard (0:2), drop it on Golem (1:1): it goes before Golem, in the other section.
        let wizard = try #require(try Self.rows(harness).first { $0.title == "Wizard" }?.id)
        try pane.keys("j", "j", "m")
        try pane.waitFor("moving \"Wizard\"")
        try pane.keys("j", "j", "j", "j", "m")
        try pane.waitFor("moved 1 row: 0:2 → 1:1")
        let rows = try Self.rows(harness)
        #expect(rows.map(\.title) == ["Head", "Barbarian", "被增加的項目 ✨", "Goblin", "Wizard", "Golem", "被增加的項目 ✨"])
        #expect(rows.first { $0.id == wizard }?.section == 1)
        let screen = try pane.waitFor(">     1:1  Wizard")
        #expect(screen.contains("[1] Monsters (4 rows)"))
        try Self.quit(pane)
    }

    @Test func anotherProcessInsertsAtTheHeadWhileRowsAreTickedAndTheTickedRowsAreDeleted() throws {
        let harness = try CLIHarness()
        try #require(harness.run(["section", "add", "Same"]).status == 0)
        try #require(harness.run(["add", "0", "dup", "dup", "dup", "dup"]).status == 0)
        let before = try Self.rows(harness)
        guard let pane = try Self.start(harness, waitFor: "1 section · 4 rows") else { return }
        try pane.keys("j", "Space", "j", "Space")  // 0:1 and 0:2
        try pane.waitFor("2 ticked")
        let tickedIDs = [before[1].id, before[2].id]

        // Two more rows of the same title at the head, by another process: the ticks stay on their rows.
        try #require(harness.run(["add", "0", "dup", "dup", "--at", "0"]).status == 0)
        let moved = try pane.waitFor("1 section · 6 rows")
        #expect(moved.contains("    ✓ 0:3  dup"))
        #expect(moved.contains(">   ✓ 0:4  dup"))
        #expect(!moved.contains("✓ 0:1"))

        try pane.keys("d")
        try pane.waitFor("Delete 2 rows? (y/n)")
        try pane.keys("y")
        try pane.waitFor("deleted 2 rows: 0:3, 0:4")
        let after = try Self.rows(harness)
        #expect(after.count == 4)
        #expect(Set(after.map(\.id)).isDisjoint(with: tickedIDs))
        #expect(Set(after.map(\.id)).isSuperset(of: [before[0].id, before[3].id]))
        try Self.quit(pane)
    }

    @Test func changesFromTheSQLiteShellShowAndTicksOfRowsDeletedElsewhereGo() throws {
        let harness = try CLIHarness()
        try #require(harness.run(["section", "add", "Live"]).status == 0)
        try #require(harness.run(["add", "0", "one", "two", "three"]).status == 0)
        let before = try Self.rows(harness)
        guard let pane = try Self.start(harness, waitFor: "1 section · 3 rows") else { return }
        try pane.keys("j", "Space")
        try pane.waitFor("1 ticked")

        let update = try CLIHarness.process("/usr/bin/env", ["sqlite3", harness.database, "UPDATE rows SET title = '改名了' WHERE id = \(before[0].id)"], in: nil)
        try #require(update.status == 0, "sqlite3 failed: \(update.stderr)")
        try pane.waitFor("      0:0  改名了")

        try #require(harness.run(["delete", "0:1"]).status == 0)
        let screen = try pane.waitFor("1 section · 2 rows")
        #expect(!screen.contains("✓"))
        #expect(!screen.contains("ticked"))
        #expect(screen.contains(">     0:1  three"))  // the cursor took the deleted row's place
        try Self.quit(pane)
    }

    @Test func signalsRestoreTheTerminalAndAResizeRedraws() throws {
        let harness = try CLIHarness()
        try #require(harness.run(["section", "add", "Signals"]).status == 0)
        try #require(harness.run(["add", "0", "a row"]).status == 0)
        guard let pane = try Self.start(harness, waitFor: "1 section · 1 row") else { return }

        try pane.resize(columns: 60, lines: 20)
        try pane.waitFor("the help line cut to 60 columns") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.count >= 20 && lines[19].hasSuffix("…") && lines[18].hasPrefix("1 section")
        }

        // Ctrl-C interrupts the whole command line (the shell skips the echo): ask the shell for the status.
        try pane.keys("C-c")
        var screen = try pane.waitFor("the prompt after Ctrl-C") { Self.lastLine($0) == TmuxPane.prompt }
        #expect(!screen.contains("Space tick"))
        try pane.type("echo \"ui exited $?\"")
        try pane.keys("Enter")
        try pane.waitFor("ui exited 130")

        try pane.type("'\(try #require(CLIHarness.binary).path)' --db '\(harness.database)' ui; echo \"ui exited $?\"")
        try pane.keys("Enter")
        try pane.waitFor("1 section · 1 row")
        let shell = try pane.shellPID()
        let children = try CLIHarness.process("/usr/bin/env", ["ps", "-o", "pid=", "--ppid", "\(shell)"], in: nil)
        let pid = try #require(children.stdout.split(separator: "\n").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }.first)
        kill(pid, SIGTERM)
        screen = try pane.waitFor("ui exited 143")
        #expect(!screen.contains("Space tick"))
    }

    @Test func withoutATerminalItExitsWithAUsageError() throws {
        let harness = try CLIHarness()
        try #require(harness.run(["init"]).status == 0)
        let run = try harness.run(["ui"], process: true)  // its own standard input and output, not a terminal
        #expect(run.status == 2)
        #expect(run.stderr.hasPrefix("error: ui needs a terminal"))
        #expect(run.stdout.isEmpty)
    }
}
