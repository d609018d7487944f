import Foundation
import ListStore
import StoreShorthands
import Testing

/// `liststore watch` without `--json` prints none of the state, so it reads none: it starts from a
/// marker and its reset lines come from counts. Measured by the child's peak memory (`VmHWM`) on a
/// store of about 80 MB of titles: `--json` (which prints the state) must hold it, the human lines not.
@Suite struct WatchMarkerTests {
    /// The child's peak resident memory in KiB, from `/proc/PID/status`.
    static func peakMemory(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    @Test(arguments: [false, true])
    func watchWithoutJSONPrintsItsFirstLineWithoutReadingTheStore(json: Bool) throws {
        let cli = try CLIHarness()
        let store = try ListStore.open(at: cli.database)
        _ = try store.insertSection(title: "S")
        let title = String(repeating: "x", count: 800)
        for _ in 0..<4 { _ = try store.insertRows(Array(repeating: title, count: 25_000), intoSection: 0) }
        let binary = try #require(CLIHarness.binary)
        let watcher = try BackgroundProcess(binary.path, ["--db", cli.database] + (json ? ["--json"] : []) + ["watch"], in: cli.directory, name: "watch")
        defer { watcher.kill() }
        try #require(watcher.waitForLines(errors: true) { $0.contains { $0.hasPrefix("watching") } }.count >= 1, "watch did not start")
        if json { try #require(watcher.waitForLines { $0.count >= 1 }.count == 1, "no initial state") }
        // A hand insert no change set describes: a reset.
        let run = try CLIHarness.process(
            "/usr/bin/env", ["sqlite3", cli.database, "INSERT INTO rows (section_id, position, title) VALUES (1, 100000, 'by hand')"],
            in: cli.directory)
        try #require(run.status == 0, "\(run.stderr)")
        let lines = watcher.waitForLines { $0.count >= (json ? 2 : 1) }
        try #require(lines.count == (json ? 2 : 1), "\(lines.map { $0.prefix(80) }) \(watcher.lines(errors: true))")
        let peak = try #require(Self.peakMemory(watcher.pid))
        if json {
            #expect(lines[1].hasPrefix(#"{"reset""#))
            #expect(peak > 80_000, "--json reads and prints the 80 MB state: peak \(peak) KiB")
        } else {
            #expect(lines[0].hasSuffix("reloaded: changed outside ListStore; now 1 section, 100001 rows"), "\(lines[0])")
            #expect(peak < 50_000, "the human lines need none of the 80 MB state (a watch of an empty store peaks near 30 MB): peak \(peak) KiB")
        }
    }
}
