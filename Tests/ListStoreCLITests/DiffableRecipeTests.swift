import Foundation
import ListStore
import StoreShorthands
import Testing

/// Observing.md's diffable-data-source recipe (``DiffableReloads``) against the one it replaced, which
/// reconfigured only `updatedRows`: a snapshot rebuilt from ids redraws nothing that keeps its id, so
/// renamed or replaced sections and rows that moved *and* changed (a deletion plus an insertion of one
/// id) stayed stale with the old recipe. Both recipes are fed the same change sets (``DiffableRecipes``).
@Suite struct DiffableRecipeTests {
    static func seed(_ store: ListStore) throws -> [[RowID]] {
        try store.write { tx in
            var ids: [[RowID]] = []
            for (index, section) in [("A", ["a1", "a2", "a3"]), ("B", ["b1", "b2"]), ("C", ["c1", "c2"])].enumerated() {
                try tx.insertSection(title: section.0)
                ids.append(try tx.insertRows(section.1, intoSection: index))
            }
            return ids
        }.value
    }

    /// Each edit UIKit's batch updates express as a replacement, one transaction at a time: the old
    /// recipe leaves a stale header or cell after every one, the helper none, and its reloads are exactly
    /// what comparing the states before and after finds.
    @Test func theOldRecipeLeavesReplacedSectionsAndMovedAndChangedRowsStale() throws {
        let store = try ListStore.inMemory()
        let ids = try Self.seed(store)
        var recipes = DiffableRecipes()
        try recipes.receive(.initial(try store.snapshot()))
        let a1 = ids[0][0]
        let b2 = ids[1][1]
        let c1 = ids[2][0]
        var staleAfterEach: [(naive: Int, helped: Int)] = []
        let transactions: [(ListTransaction) throws -> Void] = [
            { try $0.renameSection(at: 0, to: "A renamed") },  // a header: updatedSections
            { tx in  // a row moved and changed: deleted and inserted under its id
                try tx.moveRow(id: a1, toSection: SectionID(rawValue: 2), at: 0)
                try tx.updateRow(id: a1, title: "a1 moved and renamed")
            },
            { tx in  // a section renamed while a row in it changed: replaced whole
                try tx.renameSection(at: 1, to: "B renamed")
                try tx.updateRow(id: b2, payload: .set("[2]"))
            },
            { tx in  // a section moved and renamed: replaced whole
                try tx.moveSection(from: 2, to: 0)
                try tx.renameSection(at: 0, to: "C moved")
            },
            { tx in  // a row moved into a new section and changed
                let d = try tx.insertSection(title: "D", at: 1)
                try tx.moveRow(id: c1, toSection: d, at: 0)
                try tx.updateRow(id: c1, title: "c1 in D")
            },
        ]
        for body in transactions {
            let changes = try store.write(body).changes
            try recipes.receive(.changes(changes))
            let truth = try store.snapshot()
            #expect(recipes.mirror == truth)
            let naive = recipes.naive.stale(against: truth)
            let helped = recipes.helped.stale(against: truth)
            #expect(naive.sameIDs && helped.sameIDs)
            staleAfterEach.append((naive.cells + naive.headers, helped.cells + helped.headers))
        }
        #expect(staleAfterEach.map(\.helped) == [0, 0, 0, 0, 0])
        #expect(staleAfterEach.map(\.naive) == [1, 2, 4, 5, 6], "each scenario adds to what the old recipe leaves stale")
        let end = recipes.naive.stale(against: try store.snapshot())
        #expect(end.cells == 3 && end.headers == 3, "a1, b2, c1; A, B, C")
        #expect(recipes.inexact.isEmpty, "\(recipes.inexact)")
        #expect(recipes.naive.problems.isEmpty && recipes.helped.problems.isEmpty)
    }

    /// The same store with edits UIKit expresses directly (updates, inserts, deletes, moves without a
    /// change): both recipes stay right — the helper adds nothing there, and reloads nothing needlessly.
    @Test func plainEditsLeaveNothingStaleWithEitherRecipe() throws {
        let store = try ListStore.inMemory()
        let ids = try Self.seed(store)
        var recipes = DiffableRecipes()
        try recipes.receive(.initial(try store.snapshot()))
        var reloaded = 0
        let transactions: [(ListTransaction) throws -> Void] = [
            { try $0.updateRow(id: ids[0][1], title: "a2 renamed") },
            { try $0.moveRow(id: ids[0][0], toSection: SectionID(rawValue: 2), at: 1) },
            { try $0.insertRows(["new"], intoSection: 0, at: 0) },
            { try $0.deleteRows(ids: [ids[2][1]]) },
            { try $0.moveSection(from: 0, to: 2) },
            { try $0.updateRow(id: ids[1][0], payload: .set("{}")) },
        ]
        for body in transactions {
            let changes = try store.write(body).changes
            var probe = recipes.mirror
            reloaded += try probe.applyReturningReloads(changes).itemsToReconfigure.count
            try recipes.receive(.changes(changes))
        }
        let truth = try store.snapshot()
        let naive = recipes.naive.stale(against: truth)
        let helped = recipes.helped.stale(against: truth)
        #expect(naive.cells + naive.headers == 0 && helped.cells + helped.headers == 0)
        #expect(reloaded == 2, "only the two rows whose content changed")
        #expect(recipes.inexact.isEmpty)
    }

    // MARK: - Under load: three writer processes

    /// One random transaction for `liststore batch`: renames, payload edits, moves, a move and an edit of
    /// the same row, section renames, moves and replacements, deletes, inserts; indexes are guesses, so
    /// some batches fail (and change nothing), as a stale UI's would.
    static func batch(writer: Int, step: Int, _ random: inout SeededGenerator) -> String {
        func s() -> Int { Int.random(in: 0..<5, using: &random) }
        func path() -> String { "\(s()):\(Int.random(in: 0..<5, using: &random))" }
        func title() -> String { "w\(writer)-\(step)-\(Int.random(in: 0..<100, using: &random))" }
        var lines: [String] = []
        for _ in 0..<Int.random(in: 1...2, using: &random) {
            switch Int.random(in: 0..<12, using: &random) {
            case 0: lines.append("edit \(path()) --title \(title())")
            case 1: lines.append("edit \(path()) --payload '{\"n\":\(step)}'")
            case 2: lines.append("move \(path()) \(path())")
            case 3:
                let to = path()
                lines += ["move \(path()) \(to)", "edit \(to) --title \(title())"]
            case 4:
                let to = path()
                lines += ["move \(path()) \(to)", "edit \(to) --payload '[\(step)]'"]
            case 5: lines.append("section rename \(s()) \(title())")
            case 6:
                let section = s()
                lines += ["section rename \(section) \(title())", "edit \(section):\(Int.random(in: 0..<4, using: &random)) --title \(title())"]
            case 7:
                let to = s()
                lines += ["section move \(s()) \(to)", "section rename \(to) \(title())"]
            case 8:
                let section = s()
                lines += ["section delete \(section)", "section add \(title()) --at \(section)", "add \(section) " + (0..<5).map { _ in title() }.joined(separator: " ")]
            case 9: lines.append("delete \(path())")
            case 10: lines.append("add \(s()) \(title()) --at \(Int.random(in: 0..<5, using: &random))")
            default: lines.append("section move \(s()) \(s())")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Three `liststore batch` processes edit for a few seconds (4 s, at least 60 commits) while this process observes the store and
    /// feeds every update to both recipes. At the end the mirror is the store and the helper's table
    /// shows exactly the store — no stale cell or header, ever — while the old recipe's does not.
    @Test func underLoadTheHelperLeavesNoStaleCellOrHeader() async throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary, "build the liststore executable first (swift build)")
        let store = try ListStore.open(at: cli.database)
        try store.write { tx in
            for section in 0..<5 {
                try tx.insertSection(title: "S\(section)")
                try tx.insertRows((0..<6).map { "r\(section)-\($0)" }, intoSection: section)
            }
        }
        // Observing starts here, on this thread; the poller (a thread of its own) buffers every update
        // while the writers run, so the test needs no task of the shared pool until they have stopped.
        let stream = store.observe()

        let stop = cli.directory.appendingPathComponent("stop").path
        var writers: [BackgroundProcess] = []
        for writer in 0..<3 {
            // One shell script per writer: each batch fed to its own `liststore batch -` process, until `stop` exists.
            var random = SeededGenerator(seed: 2_004 + UInt64(writer))
            var script = ""
            for step in 0..<1_500 {
                script += "[ -e \"$1\" ] && exit 0\n\"$2\" --db \"$3\" --json batch - >/dev/null 2>>\"$4\" <<'BATCH' && echo ok\n"
                script += Self.batch(writer: writer, step: step, &random) + "BATCH\n"
            }
            script += "exit 0\n"
            let file = cli.directory.appendingPathComponent("writer\(writer).sh")
            try script.write(to: file, atomically: false, encoding: .utf8)
            writers.append(
                try BackgroundProcess(
                    "/bin/sh", [file.path, stop, binary.path, cli.database, cli.directory.appendingPathComponent("writer\(writer).errors").path],
                    in: cli.directory, name: "writer\(writer)"))
        }
        // Four seconds, and at least 60 commits in all (a loaded machine starts processes slowly), at most 30 s.
        let started = Date()
        while Date().timeIntervalSince(started) < 30 {
            let elapsed = Date().timeIntervalSince(started)
            if elapsed >= 4, writers.map({ $0.lines().count }).reduce(0, +) >= 60 { break }
            usleep(200_000)
        }
        _ = FileManager.default.createFile(atPath: stop, contents: nil)
        for writer in writers { #expect(writer.waitForExit(timeout: 60) == 0) }
        let committed = writers.map { $0.lines().count }

        // Every commit is in the stream once this returns; the mirror catches up by reading it (bounded: a
        // watchdog ends the reading after 120 s, and the expectations below then fail).
        try store.deliverChangesFromOtherConnections()
        let final = try store.snapshot()
        let reader = Task {
            var recipes = DiffableRecipes()
            var failure: String?
            do {
                for try await update in stream {
                    try recipes.receive(update)
                    if recipes.mirror == final { break }
                }
            } catch { failure = "\(error)" }
            return (recipes, failure)
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            reader.cancel()
        }
        let (seen, failure) = await reader.value
        watchdog.cancel()
        #expect(failure == nil)
        #expect(seen.mirror == final, "the mirror followed the store")

        let naive = seen.naive.stale(against: final)
        let helped = seen.helped.stale(against: final)
        print(
            "diffable under load: \(committed) batches committed, \(seen.changeSets) change sets, \(seen.resets) resets; "
                + "old recipe: \(naive.cells) stale cells, \(naive.headers) stale headers at the end (\(seen.naive.staleSeen) stale after applies); "
                + "helper: \(helped.cells) stale cells, \(helped.headers) stale headers (\(seen.helped.staleSeen) after applies)")
        #expect(committed.allSatisfy { $0 > 0 } && committed.reduce(0, +) >= 60, "each writer committed: \(committed)")
        #expect(seen.changeSets >= 10)
        #expect(helped.sameIDs && helped.cells == 0 && helped.headers == 0)
        #expect(seen.helped.staleSeen == 0, "never stale after any apply")
        #expect(seen.inexact.isEmpty, "\(seen.inexact.prefix(1))")
        #expect(seen.naive.problems.isEmpty && seen.helped.problems.isEmpty, "\(seen.helped.problems.prefix(3))")
        #expect(seen.naive.staleSeen > 0, "the old recipe leaves stale cells or headers under the same load")
    }
}
