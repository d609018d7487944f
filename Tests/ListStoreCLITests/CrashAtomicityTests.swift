import Foundation
import Testing

@testable import ListStore

/// SIGKILL at random moments during large edits: the file always reopens sound, equal to the state
/// before or after the interrupted operation, never in between.
@Suite(.tags(.slow)) struct CrashAtomicityTests {
    /// The content of a store (titles, payloads, order), without ids, which a replay cannot predict.
    static func content(_ snapshot: ListSnapshot) -> [[String]] {
        snapshot.sections.map { [$0.title] + $0.rows.map { $0.title + "\u{1}" + ($0.payload ?? "") } }
    }

    /// A large edit, as a `liststore` command line (with standard input) and as the same edit on a model store.
    struct Edit {
        let name: String
        let arguments: [String]
        let stdin: Data
        let replay: (ListStore) throws -> Void
    }

    static func baseline(rows: Int, extra: Int) -> ListDocument {
        ListDocument(sections: [
            .init(title: "big", rows: (0..<rows).map { .init(title: "r\($0)") }),
            .init(title: "small", rows: (0..<extra).map { .init(title: "s\($0)", payload: "{\"n\":\($0)}") }),
            .init(title: "empty"),
        ])
    }

    /// The import document as JSON text, as `liststore export` would write it (without ids).
    static func json(_ document: ListDocument) -> String {
        var sections: [String] = []
        for section in document.sections {
            var rows: [String] = []
            for row in section.rows {
                let payload = row.payload.map { ",\"payload\":" + $0 } ?? ""
                rows.append("{\"title\":\"" + row.title + "\"" + payload + "}")
            }
            sections.append("{\"title\":\"" + section.title + "\",\"rows\":[" + rows.joined(separator: ",") + "]}")
        }
        return "{\"sections\":[" + sections.joined(separator: ",") + "]}"
    }

    static func edit(_ step: Int, _ snapshot: ListSnapshot) -> Edit {
        let tag = "k\(step)"
        switch step % 5 {
        case 0:
            let document = baseline(rows: 20_000, extra: 5_000)
            let json = Self.json(document)
            return Edit(name: "import", arguments: ["import", "-", "--replace"], stdin: Data(json.utf8)) { try $0.importDocument(document, replacing: true) }
        case 1:
            let titles = (0..<5_000).map { "\(tag)-\($0)" }
            let target = snapshot.sections.firstIndex { $0.title == "small" } ?? 0
            return Edit(name: "add 5000", arguments: ["add", String(target), "-"], stdin: Data(titles.joined(separator: "\n").utf8)) {
                try $0.insertRows(titles.map { NewRow(title: $0) }, intoSection: target)
            }
        case 2:
            let target = snapshot.sections.firstIndex { $0.title == "big" } ?? 0
            let count = snapshot.sections[target].rows.count
            let step = max(1, count / 1_000)
            let paths = (0..<min(1_000, count)).map { ListIndexPath(section: target, row: $0 * step) }.filter { $0.row < count }
            return Edit(name: "delete 1000", arguments: ["delete"] + paths.map(\.description), stdin: Data()) { try $0.deleteRows(at: paths) }
        case 3:
            let target = snapshot.sections.firstIndex { $0.title == "big" } ?? 0
            return Edit(name: "head insert", arguments: ["add", String(target), tag, "--at", "0"], stdin: Data()) {
                try $0.insertRow(NewRow(title: tag), intoSection: target, at: 0)
            }
        default:
            return Edit(name: "section move", arguments: ["section", "move", "0", "2"], stdin: Data()) { try $0.moveSection(from: 0, to: 2) }
        }
    }

    @Test func killedEditsLeaveTheStateBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        do {
            let store = try ListStore.open(at: cli.database)
            try store.importDocument(Self.baseline(rows: 20_000, extra: 5_000))
        }
        var random = SeededGenerator(seed: 9_001)
        var outcomes = (before: 0, after: 0)
        // Stop after `wantedKills` kills, or after `stepLimit` edits, whichever comes first: an edit that
        // finishes before its kill does not count, and on a fast machine many might.
        let wantedKills = 60
        let stepLimit = 400
        var kills = 0
        var step = 0
        // The state before each edit is the one the previous step read back (and checked) after its kill.
        var before = try ListStore.open(at: cli.database).snapshot()
        var expectedBefore = Self.content(before)
        let modelPath = cli.directory.appendingPathComponent("model.sqlite").path
        while kills < wantedKills && step < stepLimit {
            let edit = Self.edit(step, before)
            // What the edit leads to, computed by the library on a copy of the state before it: SQLite's
            // backup copies the pages, far cheaper than importing the 25,000–50,000 rows again at every step.
            // The copy is taken now; the edit is replayed on it only when the store is not as it was before.
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: modelPath + suffix) }
            try ListStore.open(at: cli.database, mode: .readOnly).backup(to: modelPath)
            let expectedAfter = { () throws -> [[String]] in
                let model = try ListStore.open(at: modelPath)
                try edit.replay(model)
                return Self.content(try model.snapshot())
            }

            let input = cli.directory.appendingPathComponent("stdin")
            try edit.stdin.write(to: input)
            let process = Process()
            process.executableURL = binary
            process.arguments = ["--db", cli.database] + edit.arguments
            let stdin = try FileHandle(forReadingFrom: input)
            defer { try? stdin.close() }
            process.standardInput = stdin
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The kill lands at a random moment: this sleep is the point of the test, not a wait for a condition.
            usleep(UInt32.random(in: 5_000...120_000, using: &random))
            let killed = process.isRunning
            if killed { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            if killed { kills += 1 }

            let context = "seed \(random.seed), step \(step) (\(edit.name)), killed: \(killed)"
            let reopened = try ListStore.open(at: cli.database)
            let problems = try reopened.checkInvariants()
            try #require(problems.isEmpty, "\(context): \(problems)")
            let snapshot = try reopened.snapshot()
            let now = Self.content(snapshot)
            if now == expectedBefore {
                outcomes.before += 1
            } else if now == (try expectedAfter()) {
                outcomes.after += 1
            } else {
                Issue.record("\(context): the store is neither before nor after the edit")
                return
            }
            (before, expectedBefore) = (snapshot, now)
            step += 1
        }
        #expect(kills == wantedKills, "only \(kills) of \(step) edits were still running when killed: the kills must land inside edits")
        #expect(outcomes.before > 0 && outcomes.after > 0, "kills should land both before and after commits: \(outcomes)")
    }
}
