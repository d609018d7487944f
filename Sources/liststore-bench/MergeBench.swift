import Foundation
import ListStore
import StoreShorthands

/// `liststore-bench --merge [--quick]` (issue 34): a copy of a list of 1,000,000 rows in 10 sections
/// (10,000 with `--quick`) makes 10,000 edits (100), each its own write, as another device would; the
/// original then merges them (`ListStore.merge(from:)`, timed in a process of its own for its peak
/// memory), and again with nothing new — side by side with Loro (PyPI `loro`, `Benchmarks/loro_merge.py`)
/// importing the same kinds and counts of edits into a movable list in the same run; and the same edits
/// delivered through segment files (`ListStore.sync(throughFolder:)`, MergeSegments.swift) to a copy of A.
/// Fails when the copies differ after the merge or the sync, or when Loro cannot be run (no figure is made up for it).
struct MergeBench {
    let fixtures: Fixtures
    let quick: Bool
    /// The PyPI version `.ci/run` installs into `.build/tools/loro-VERSION`.
    static let loroVersion = "1.17.1"
    static let sections = 10

    /// Loro's peer ids for its second run: A's 2⁶³ or more and B's below, the only kind of pair whose
    /// import of many moves took milliseconds rather than seconds (Benchmarks/loro_merge.py).
    static let fastLoroPeers = ["9223372036854775813", "7"]

    /// ListStore's side: the two merges and what they left.
    struct ListStoreFigures {
        let merge: ChildMerge
        let again: ChildMerge
        let sizeBefore: Int
        let sizeAfter: Int
        let converged: Bool
        /// The same edits through segment files (MergeSegments.swift).
        let segments: SegmentFigures
    }

    func run() throws {
        let n = quick ? 10_000 : 1_000_000
        let mix = EditMix(edits: quick ? 100 : 10_000)
        let loro = try LoroRunner()
        let loadBefore = Chart.loadAverage()
        print("liststore-bench --merge: \(n) rows in \(Self.sections) sections; copy B makes \(mix.description),")
        print("each its own write (seed \(EditMix.seed)); A merges them (release build, wall time, change set included)")
        print("")
        let ours = try measureListStore(rows: n, mix: mix)
        let theirs = try [[], Self.fastLoroPeers].map { peers in
            let figures = try loro.run(rows: n, mix: mix, peers: peers)
            print(
                "Loro setup (peers \(figures.text("peer_a")) and \(figures.text("peer_b"))): build A (push × \(n), one commit) "
                    + "\(Measurement.format(figures["build_seconds"])), snapshot into B \(Measurement.format(figures["copy_seconds"])), "
                    + "B's \(mix.edits) edits \(Measurement.format(figures["edit_seconds"])) (\(figures.int("rows_inserted")) rows inserted), "
                    + "export of B's updates \(Measurement.format(figures["export_seconds"])) (\(figures.int("update_bytes")) bytes)")
            return figures
        }
        let label = n >= 1_000_000 ? "\(n / 1_000_000)M" : "\(n / 1_000)K"
        print("")
        print(
            pad("operation", 40) + pad("ListStore", 20, right: true) + pad("Loro \(loro.version)", 20, right: true) + pad("LS / Loro", 11, right: true)
                + pad("Loro, A's id ≥ 2⁶³", 20, right: true))
        for (name, figure, key) in [
            ("merge \(mix.edits) remote edits into \(label) rows", ours.merge.seconds, "merge_seconds"),
            ("merge with nothing new, \(label) rows", ours.again.seconds, "nothing_new_seconds"),
        ] {
            print(
                pad(name, 40) + pad(Measurement.format(figure), 20, right: true) + pad(Measurement.format(theirs[0][key]), 20, right: true)
                    + pad(Self.ratio(figure / theirs[0][key]), 11, right: true) + pad(Measurement.format(theirs[1][key]), 20, right: true))
        }
        print(
            pad("peak resident memory while merging", 40) + pad(Self.megabytes(kib: ours.merge.peakKiB), 20, right: true)
                + pad(Self.megabytes(kib: theirs[0].int("peak_kib")), 20, right: true) + pad("", 11)
                + pad(Self.megabytes(kib: theirs[1].int("peak_kib")), 20, right: true))
        let sizes = theirs.map { Self.megabytes(bytes: $0.int("snapshot_bytes_before")) + " → " + Self.megabytes(bytes: $0.int("snapshot_bytes_after")) }
        print(
            pad("file / snapshot size before → after", 40)
                + pad(Self.megabytes(bytes: ours.sizeBefore) + " → " + Self.megabytes(bytes: ours.sizeAfter), 20, right: true)
                + pad(sizes[0], 20, right: true) + pad("", 11) + pad(sizes[1], 20, right: true))
        print("")
        print(pad("through segments (sync(throughFolder:))", 58) + pad("ListStore", 12, right: true) + pad("peak memory", 14, right: true) + pad("/ file merge", 14, right: true))
        for (name, figure, file) in [
            ("merge \(mix.edits) remote edits into \(label) rows, through a segment", ours.segments.sync, ours.merge),
            ("sync with nothing new, \(label) rows, through segments", ours.segments.again, ours.again),
        ] {
            print(
                pad(name, 58) + pad(Measurement.format(figure.seconds), 12, right: true) + pad(Self.megabytes(kib: figure.peakKiB), 14, right: true)
                    + pad(Self.ratio(figure.seconds / file.seconds), 14, right: true))
        }
        print(
            pad("B's sync writing its \(mix.edits) edits' segment", 58) + pad(Measurement.format(ours.segments.bSeconds), 12, right: true)
                + pad("\(ours.segments.editsBytes) bytes, \(String(format: "%.1f", Double(ours.segments.editsBytes) / Double(mix.edits))) an edit", 30, right: true))
        print("")
        print("ListStore: the merge in a process of its own (A open, B read); its peak includes opening A. Loro: import_ of B's")
        print(
            "updates and len() of the list, in the process that built both docs (B dropped first; before the import: "
                + "\(theirs.map { Self.megabytes(kib: $0.int("rss_before_kib")) }.joined(separator: ", "))); sections are tenths of its one list.")
        print("Loro's ids are drawn from its seed (below 2⁶³); the last column's run gives A \(Self.fastLoroPeers[0]) and B \(Self.fastLoroPeers[1]),")
        print("the only kind of pair tried whose import of many moves into a large list took milliseconds rather than seconds.")
        print("Segments: A2, a copy of A made after A's first merge from B (A is not written until its timed merge), syncs through its view of")
        print("the shared folder, into which the bench carries B's segments (B's view holds none of A2's), in a process of its own: B's edit")
        print("segment applied to A2's mirror of B, the mirror merged, A2's own segment of what changed written. B is the file merge's own B")
        print("(its syncs only read it), so its edits are made once; the last column is the time against the file merge's row above.")
        print("Load average before \(loadBefore), after \(Chart.loadAverage()).")
        guard ours.converged else { throw BenchmarkFailure("A and B differ after A merged B's edits") }
        guard ours.segments.converged else { throw BenchmarkFailure("A2 (synced through segments) and A (merged from B's file) differ") }
        guard theirs.allSatisfy({ $0.text("converged") == "yes" }) else { throw BenchmarkFailure("Loro's A and B differ after the import") }
    }

    /// Builds A, copies it to B, merges once with nothing new, makes B's edits, then times A's merge of
    /// them and a merge again, each in a child process, and checks that A and B hold the same rows.
    func measureListStore(rows n: Int, mix: EditMix) throws -> ListStoreFigures {
        let a = fixtures.path("merge-a.sqlite")
        let b = fixtures.path("merge-b.sqlite")
        let build = try Measurement.seconds { try Self.buildStore(at: a, rows: n) }
        // A plain copy of the closed (checkpointed) file: B takes a replica number of its own at its first write.
        let copy = try Measurement.seconds { try FileManager.default.copyItem(atPath: a, toPath: b) }
        // B's first write claims its replica number, as a device's copy does before it is merged from; A's first
        // merge from B reads both files whole, the later ones only what changed since.
        try ListStore.open(at: b).write { tx in try tx.renameSection(at: 0, to: "section 0 (copy B)") }
        let firstMerge = try Measurement.seconds { _ = try ListStore.open(at: a).merge(from: URL(fileURLWithPath: b)) }
        // The segment path's copy of A and its setup, before B's edits (MergeSegments.swift).
        let segmentPath = try setUpSegments(a: a, b: b)
        var inserted = 0
        let edits = try Measurement.seconds {
            let store = try ListStore.open(at: b)
            inserted = try mix.apply(to: store, rowsPerSection: n / Self.sections)
        }
        print(
            "ListStore setup: build A \(Measurement.format(build)), copy to B \(Measurement.format(copy)), A's first merge from B (both read whole) "
                + "\(Measurement.format(firstMerge)), B's \(mix.edits) edits \(Measurement.format(edits)) (\(inserted) rows inserted; B's file "
                + "\(Self.megabytes(bytes: fixtures.size(of: a))) → \(Self.megabytes(bytes: fixtures.size(of: b))))")
        print(segmentPath.setup)
        let sizeBefore = fixtures.size(of: a)
        let merge = try Self.mergeInChild(a, from: b, report: fixtures.path("merge-1.txt"))
        let sizeAfter = fixtures.size(of: a)
        let again = try Self.mergeInChild(a, from: b, report: fixtures.path("merge-2.txt"))
        let converged = try Self.contents(of: a) == Self.contents(of: b)
        print(
            "ListStore merge's change set: \(merge.inserted) rows inserted, \(merge.deleted) deleted, \(merge.moved) moved, \(merge.updated) updated; "
                + "then \(again.inserted + again.deleted + again.moved + again.updated) changes; A and B \(converged ? "hold the same rows" : "DIFFER")")
        let segments = try measureSegments(segmentPath, b: b, mergedA: a, mix: mix)
        return ListStoreFigures(merge: merge, again: again, sizeBefore: sizeBefore, sizeAfter: sizeAfter, converged: converged, segments: segments)
    }

    /// A store of `rows` rows in ``sections`` sections ("row 0", "row 1", … in each), written untracked
    /// in chunks of 100,000, then closed (checkpointed, no -wal).
    static func buildStore(at path: String, rows: Int) throws {
        let store = try ListStore.open(at: path)
        let perSection = rows / sections
        for section in 0..<sections {
            _ = try store.insertSection(title: "section \(section)")
            var written = 0
            while written < perSection {
                let batch = (written..<min(written + 100_000, perSection)).map { NewRow(title: "row \($0)") }
                try store.write(tracksChanges: false) { _ = try $0.insertRows(batch, intoSection: section) }
                written += batch.count
            }
        }
    }

    /// Every section's title and rows (ids and titles) of the file at `path`.
    static func contents(of path: String) throws -> [String] {
        let store = try ListStore.open(at: path, mode: .readOnly)
        return try store.sections().enumerated().flatMap { index, section in
            try ["\(section.id) \(section.title)"] + store.rows(inSection: index).map { "\($0.id) \($0.title)" }
        }
    }

    /// `2.31x`, `545x`, or `1/20` (20 times faster).
    static func ratio(_ value: Double) -> String {
        guard value.isFinite, value > 0 else { return "—" }
        return value < 0.1 ? String(format: "1/%.0f", 1 / value) : String(format: value < 10 ? "%.2fx" : "%.0fx", value)
    }

    static func megabytes(kib: Int) -> String { kib > 0 ? String(format: "%.0f MB", Double(kib) / 1024) : "n/a" }
    static func megabytes(bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

    /// What one merge in a child process reported.
    struct ChildMerge {
        let seconds: Double
        let peakKiB: Int
        let inserted: Int
        let deleted: Int
        let moved: Int
        let updated: Int
    }

    /// Runs `liststore-bench --child-merge A B` and reads its report.
    static func mergeInChild(_ path: String, from peer: String, report: String) throws -> ChildMerge {
        let child = Measurement.spawn(CommandLine.arguments[0], ["--child-merge", path, peer], output: report)
        let fields = ((try? String(contentsOfFile: report, encoding: .utf8)) ?? "").split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        guard child.status == 0, fields.count == 6, let seconds = Double(fields[0]) else {
            throw BenchmarkFailure("the merging child exited with \(child.status), reporting \(fields)")
        }
        let counts = fields.dropFirst().map { Int($0) ?? -1 }
        return ChildMerge(seconds: seconds, peakKiB: counts[0], inserted: counts[1], deleted: counts[2], moved: counts[3], updated: counts[4])
    }

    /// The child's side (`--child-merge A B`): opens A, times its merge of B, closes A, and prints the
    /// seconds, its peak resident memory in KiB and the change set's rows inserted, deleted, moved, updated.
    static func child(_ path: String, peer: String) throws {
        var changes = ChangeSet()
        let seconds = try {
            let store = try ListStore.open(at: path)
            return try Measurement.seconds { changes = try store.merge(from: URL(fileURLWithPath: peer)) }
        }()
        print(
            String(format: "%.6f", seconds), Measurement.peakResidentKiB() ?? -1, changes.insertedRows.count, changes.deletedRows.count,
            changes.movedRows.count, changes.updatedRows.count)
    }
}

/// The edits another device makes (issue 34): single-row inserts at random places (40% less the runs),
/// a few inserts of 10–50 rows (one per 1,000 edits), moves of one row within a section and across
/// sections (25%), title edits (20%), deletes of one row (15%), shuffled with a fixed seed.
struct EditMix: CustomStringConvertible {
    static let seed: UInt64 = 34
    let edits: Int
    var runs: Int { max(1, edits / 1_000) }
    var singleInserts: Int { edits * 40 / 100 - runs }
    var movesAcross: Int { edits * 25 / 100 / 2 }
    var movesWithin: Int { edits * 25 / 100 - movesAcross }
    var titles: Int { edits * 20 / 100 }
    var deletes: Int { edits - singleInserts - runs - movesWithin - movesAcross - titles }

    var description: String {
        "\(edits) edits: \(singleInserts) single-row inserts, \(runs) × an insert of 10–50 rows, \(movesWithin) moves within a section, "
            + "\(movesAcross) across sections, \(titles) title edits, \(deletes) deletes of one row"
    }

    enum Kind { case insert, run, moveWithin, moveAcross, title, delete }

    /// The kinds, shuffled.
    func kinds(_ random: inout SplitMix) -> [Kind] {
        var kinds =
            Array(repeating: Kind.insert, count: singleInserts) + Array(repeating: .run, count: runs) + Array(repeating: .moveWithin, count: movesWithin)
            + Array(repeating: .moveAcross, count: movesAcross) + Array(repeating: .title, count: titles) + Array(repeating: .delete, count: deletes)
        for index in kinds.indices.reversed() { kinds.swapAt(index, Int(random.next() % UInt64(index + 1))) }
        return kinds
    }

    /// Makes the edits on `store` (``MergeBench/sections`` sections of `rowsPerSection` rows), each its
    /// own write; returns the rows inserted.
    func apply(to store: ListStore, rowsPerSection: Int) throws -> Int {
        var random = SplitMix(seed: Self.seed)
        func below(_ bound: Int) -> Int { Int(random.next() % UInt64(max(bound, 1))) }
        var counts = Array(repeating: rowsPerSection, count: MergeBench.sections)
        var inserted = 0
        for (k, kind) in kinds(&random).enumerated() {
            let section = below(counts.count)
            switch kind {
            case .insert:
                _ = try store.insertRow(NewRow(title: "new \(k)"), intoSection: section, at: below(counts[section] + 1))
                counts[section] += 1
                inserted += 1
            case .run:
                let rows = (0..<10 + below(41)).map { NewRow(title: "run \(k).\($0)") }
                _ = try store.insertRows(rows, intoSection: section, at: below(counts[section] + 1))
                counts[section] += rows.count
                inserted += rows.count
            case .moveWithin:
                let from = ListIndexPath(section: section, row: below(counts[section]))
                _ = try store.moveRow(from: from, to: ListIndexPath(section: section, row: below(counts[section])))
            case .moveAcross:
                let target = (section + 1 + below(counts.count - 1)) % counts.count
                let from = ListIndexPath(section: section, row: below(counts[section]))
                _ = try store.moveRow(from: from, to: ListIndexPath(section: target, row: below(counts[target] + 1)))
                counts[section] -= 1
                counts[target] += 1
            case .title:
                _ = try store.updateRow(at: ListIndexPath(section: section, row: below(counts[section])), title: "edited \(k)")
            case .delete:
                _ = try store.deleteRows(at: [ListIndexPath(section: section, row: below(counts[section]))])
                counts[section] -= 1
            }
        }
        return inserted
    }
}
