import Foundation
import Testing

/// Random hand edits through the `sqlite3` shell — valid and invalid ones, `OR REPLACE`, section
/// deletes, extreme integers — between random edits through the CLI. After every step: no
/// crash (exit 0, 1 or 2 with a one-line error), an edit given an index path that `show` printed acts
/// on the row `show` printed there (titles are unique, so the title names the row), and a refused
/// edit leaves the file's content as it was.
@Suite(.tags(.slow)) struct HandEditFuzzTests {
    static let extremes = ["0", "1", "2", "5", "-1", "100", "9223372036854775807", "-9223372036854775808", "4611686018427387904"]

    struct Shown {
        var rows: [(path: String, section: Int, title: String)] = []
        var sections: [(index: Int, titles: [String])] = []
    }

    /// Parses `show`: `[S] title (n rows)` headers and `    S:R  title` lines.
    static func parse(_ text: String) -> Shown {
        var shown = Shown()
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("["), let close = line.firstIndex(of: "]"), let index = Int(line[line.index(after: line.startIndex)..<close]) {
                shown.sections.append((index, []))
            } else if line.hasPrefix("    "), !line.hasPrefix("    (") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 2, let section = Int(fields[0].split(separator: ":").first ?? "") else { continue }
                shown.rows.append((String(fields[0]), section, String(fields[1])))
                if !shown.sections.isEmpty { shown.sections[shown.sections.count - 1].titles.append(String(fields[1])) }
            }
        }
        return shown
    }

    func sqlite(_ cli: CLIHarness, _ sql: String) throws -> CLIHarness.Run {
        try CLIHarness.process("/usr/bin/env", ["sqlite3", cli.database, sql], in: cli.directory)
    }

    /// Every row title in the file, orphans included, as a multiset.
    func allTitles(_ cli: CLIHarness) throws -> [String: Int] {
        let run = try sqlite(cli, "SELECT title FROM rows")
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").reduce(into: [:]) { $0[String($1), default: 0] += 1 }
    }

    func handEdit(_ random: inout SeededGenerator, step: Int, sectionsMade: Int) -> String {
        let row = Int.random(in: 1...(8 * sectionsMade + step / 2), using: &random)
        let other = Int.random(in: 1...(8 * sectionsMade + step / 2), using: &random)
        let section = Int.random(in: 1...(sectionsMade + 1), using: &random)
        let value = Self.extremes.randomElement(using: &random) ?? "0"
        let templates = [
            "DELETE FROM rows WHERE id = \(row)",
            "UPDATE OR REPLACE rows SET position = (SELECT position FROM rows WHERE id = \(other)) WHERE id = \(row)",
            "UPDATE OR REPLACE rows SET section_id = \(section), position = \(value) WHERE id = \(row)",
            "UPDATE rows SET position = \(value) WHERE id = \(row)",
            // Within the gaps ListStore leaves (2^20): moves the triggers count, rarely onto a neighbour.
            "UPDATE OR REPLACE rows SET position = position + 1 WHERE id = \(row)",
            "UPDATE OR REPLACE rows SET position = position - 1 WHERE id = \(row)",
            "UPDATE rows SET position = position + 1 WHERE section_id = \(section)",
            // Onto the next row: REPLACE deletes it without firing the delete trigger, so the counts stay
            // as they were and a block holds a row fewer than it counts, which the look-ups before an edit cannot see.
            "UPDATE OR REPLACE rows SET position = (SELECT min(position) FROM rows AS r WHERE r.section_id = rows.section_id AND r.position > rows.position) WHERE id = \(row)",
            "INSERT INTO rows (section_id, position, title) VALUES (\(section), \(value), 'h\(step)')",
            "INSERT INTO rows (section_id, position, title) VALUES (\(section), (SELECT coalesce(max(position), -1048576) + 1048576 FROM rows WHERE section_id = \(section)), 'h\(step)')",
            "INSERT INTO rows (section_id, position, title) VALUES (\(section), (SELECT position + 1 FROM rows WHERE id = \(row)), 'h\(step)')",
            "DELETE FROM sections WHERE id = \(section) AND \(row) % 3 = 0",
            "UPDATE sections SET position = \(value) WHERE id = \(section)",
            "UPDATE OR REPLACE sections SET position = \(value) WHERE id = \(section)",
            "UPDATE row_blocks SET row_count = \(value) WHERE section_id = \(section) AND start = (SELECT max(start) FROM row_blocks WHERE section_id = \(section))",
            "UPDATE row_pages SET row_count = \(value) WHERE section_id = \(section)",
            "DELETE FROM row_blocks WHERE section_id = \(section) AND start > -9223372036854775808",
            "DELETE FROM row_pages WHERE section_id = \(section) AND \(row) % 2 = 0",
            "INSERT INTO row_blocks (section_id, start, row_count) VALUES (\(section), \(value), \(row % 3))",
            "UPDATE sections SET row_count = \(value) WHERE id = \(section)",
            "INSERT INTO sections (position, title) VALUES (\(value), 'hs\(step)')",
        ]
        return templates.randomElement(using: &random) ?? templates[0]
    }

    @Test func showAndEditsAgreeWhateverTheShellDid() throws {
        let cli = try CLIHarness()
        var sectionsMade = 0
        /// Keeps the store populated: a new section of eight rows at the end (after a repair if needed).
        func replenish() throws {
            if try cli.run(["section", "add", "s\(sectionsMade)"]).status != 0 { _ = try cli.run(["repair"]) }
            let count = Self.parse(try cli.run(["show"]).stdout).sections.count
            _ = try cli.run(["add", "\(max(count - 1, 0))"] + (0..<8).map { "t\(sectionsMade)x\($0)" })
            sectionsMade += 1
        }
        for _ in 0..<3 { try replenish() }
        var random = SeededGenerator(seed: 0x5EED_11)
        var actedOnShownRow = 0
        var refused = 0
        for step in 0..<200 {
            if Bool.random(using: &random) { _ = try sqlite(cli, handEdit(&random, step: step, sectionsMade: sectionsMade)) }
            if step % 15 == 14 { _ = try cli.run(["repair"]) }

            if Self.parse(try cli.run(["show"]).stdout).rows.count < 12 { try replenish() }
            let show = try cli.run(["show"])
            #expect([0, 1].contains(show.status), "seed \(random.seed), step \(step): show crashed: \(show.stderr)")
            let shown = Self.parse(show.stdout)
            let before = try allTitles(cli)
            let dump = try cli.dump()
            let newTitle = "n\(step)"
            var command: [String]
            var expectedAfter = before
            let kind = Int.random(in: 0..<10, using: &random)
            if kind == 9 || shown.rows.isEmpty {
                guard let section = shown.sections.randomElement(using: &random) else { continue }
                command = ["section", "delete", "\(section.index)"]
                for title in section.titles { expectedAfter[title, default: 0] -= 1 }
            } else {
                let target = shown.rows[Int.random(in: 0..<shown.rows.count, using: &random)]
                switch kind {
                case 0...2:
                    command = ["delete", target.path]
                    expectedAfter[target.title, default: 0] -= 1
                case 3...4:
                    command = ["edit", target.path, "--title", newTitle]
                    expectedAfter[target.title, default: 0] -= 1
                    expectedAfter[newTitle, default: 0] += 1
                case 5...6:
                    let destination = shown.rows[Int.random(in: 0..<shown.rows.count, using: &random)].path
                    command = ["move", target.path, destination]
                default:
                    command = ["add", "\(target.section)", newTitle, "--at", target.path.split(separator: ":").last.map(String.init) ?? "0"]
                    expectedAfter[newTitle, default: 0] += 1
                }
            }
            let run = try cli.run(command)
            #expect([0, 1, 2].contains(run.status), "seed \(random.seed), step \(step): \(command) crashed: \(run.stderr)")
            // 2: an index show printed from damaged counts (`S:?` for a row no index names, negative, or past
            // 18 digits) is not one the CLI accepts.
            if run.status == 2 {
                #expect(command.contains { $0.contains("-") || $0.contains("?") || $0.count > 18 }, "seed \(random.seed), step \(step): \(command): \(run.stderr)")
            }
            let after = try allTitles(cli)
            if run.status == 0 {
                actedOnShownRow += 1
                #expect(
                    after.filter { $0.value > 0 } == expectedAfter.filter { $0.value > 0 },
                    "seed \(random.seed), step \(step): \(command) did not act on what show printed\n\(show.stdout)")
                if command.first == "move", let moved = shown.rows.first(where: { $0.path == command[1] }) {
                    // The moved row is the one show printed at the source path: it is now at the destination.
                    let now = Self.parse(try cli.run(["show"]).stdout)
                    #expect(now.rows.first { $0.path == command[2] }?.title == moved.title, "seed \(random.seed), step \(step): \(command)")
                }
            } else {
                refused += 1
                #expect(run.stderr.hasPrefix("error: ") && run.stderr.split(separator: "\n").count == 1, "seed \(random.seed), step \(step): \(run.stderr)")
                #expect(try cli.dump() == dump, "seed \(random.seed), step \(step): refused \(command) changed the file")
            }
            if step % 10 == 9 {
                let check = try cli.run(["check"])
                #expect([0, 1].contains(check.status), "seed \(random.seed), step \(step): check crashed: \(check.stderr)")
                // Whatever the positions, --json is one valid JSON document.
                let json = try cli.run(["--json", "show"])
                #expect(json.status == 0, "seed \(random.seed), step \(step): \(json.stderr)")
                #expect((try? CLIHarness.json(json.stdout)) != nil, "seed \(random.seed), step \(step): show --json is not JSON: \(json.stdout.prefix(300))")
            }
        }
        #expect(actedOnShownRow > 30 && refused > 5, "the run exercised both paths: \(actedOnShownRow) acted, \(refused) refused")
    }
}
