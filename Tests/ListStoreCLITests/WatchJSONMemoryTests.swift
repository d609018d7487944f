import Foundation
import ListStore
import StoreShorthands
import Testing

/// `liststore watch --json` writes its first document as `show --json` does — as the store is scanned,
/// inside the read that fixes where the stream continues from — so its memory does not grow with the
/// store: on 25 MB of payloads its child peaks well below the state's size (building the state as one
/// value, then its JSON text, took several times that).
@Suite struct WatchJSONMemoryTests {
    @Test func watchJSONStreamsItsFirstDocumentExactlyAsShowJSONPrintsIt() throws {
        let cli = try CLIHarness()
        let store = try ListStore.open(at: cli.database)
        _ = try store.insertSection(title: "S")
        // Large payloads, few rows: the state is 25 MB, and the test stays quick in a debug build.
        let row = NewRow(title: "row", payload: "\"" + String(repeating: "x", count: 10_000) + "\"")
        _ = try store.insertRows(Array(repeating: row, count: 2_500), intoSection: 0)
        _ = try store.insertSection(title: "T")
        _ = try store.insertRows(["a", "b"], intoSection: 1)
        let binary = try #require(CLIHarness.binary)
        let watcher = try BackgroundProcess(binary.path, ["--db", cli.database, "--json", "watch"], in: cli.directory, name: "watch")
        defer { watcher.kill() }
        try #require(watcher.waitForLines(errors: true) { $0.contains { $0.hasPrefix("watching") } }.count >= 1, "watch did not start")
        let lines = watcher.waitForLines { $0.count >= 1 }
        try #require(lines.count == 1, "no first document")
        let peak = try #require(WatchMarkerTests.peakMemory(watcher.pid))
        print("watch --json peak after its first document: \(peak) KiB")
        #expect(lines[0] + "\n" == (try cli.run(["--json", "show"]).stdout), "the first document is show --json's")
        #expect(peak < 50_000, "the 25 MB state is written as it is scanned (a watch of an empty store peaks near 30 MB): peak \(peak) KiB")
        // And it goes on from there: another process's edit arrives.
        #expect(try cli.run(["add", "1", "c"]).status == 0)
        let more = watcher.waitForLines { $0.count >= 2 }
        try #require(more.count == 2)
        #expect(more[1].hasPrefix(#"{"changes""#))
    }
}
