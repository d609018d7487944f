import Foundation
import ListStore
import StoreShorthands

/// What observing costs (issue 9): a write with an observer of other connections active, against the
/// same write unobserved; and how long an observer takes to have another process's commit once it
/// checks (the poll interval excluded).
struct ObservationBench {
    let fixtures: Fixtures
    let sizes: [Int]
    let repetitions: Int
    /// Tiny sizes: check every result.
    let quick: Bool
    /// The `liststore` binary, for the other process; nil when it was not built next to the benchmark.
    let cli: String?

    /// Timed writes per opened store after the first one (which also prepares the store's statements).
    static let warmWrites = 10
    /// Timed notices per observed store and writer, after one untimed warm-up notice.
    static let notices = 4
    static let insertedTitle = "new row"
    static let noticedTitle = "noticed row"

    /// Medians of one row of the observation tables.
    struct Figures {
        var insertCold: (observed: Double, unobserved: Double)
        var insertWarm: (observed: Double, unobserved: Double)
        var noticeProcess: Double
        var noticeConnection: Double
        var deliverCall: Double
    }

    func run() throws {
        print("")
        print("observation: an observer of other connections (observe(), poll 100 ms), the stream drained by a task while writes are timed")
        print("insert at head, alternately on a store being observed and on one that is not (fresh copies of the n-row fixture);")
        print("first = the first write after opening (as in the table above), warm = the \(Self.warmWrites) writes after it")
        print(
            pad("operation", 34) + pad("n", 9, right: true) + pad("observed", 12, right: true) + pad("unobserved", 12, right: true)
                + pad("obs / unobs", 13, right: true))
        var figures: [Int: Figures] = [:]
        for n in sizes {
            let (cold, warm) = try measureInserts(n: n)
            for (label, pair) in [("insert at head, observed (first)", cold), ("insert at head, observed (warm)", warm)] {
                print(
                    pad(label, 34) + pad(String(n), 9, right: true) + pad(Measurement.format(pair.observed), 12, right: true)
                        + pad(Measurement.format(pair.unobserved), 12, right: true) + pad(String(format: "%.2fx", pair.observed / pair.unobserved), 13, right: true))
            }
            figures[n] = Figures(insertCold: cold, insertWarm: warm, noticeProcess: .nan, noticeConnection: .nan, deliverCall: .nan)
        }

        print("")
        print("a commit by another connection noticed: after the other side's commit returned, the time from calling")
        print("deliverChangesFromOtherConnections() until the observer's task has the .changes element (poll interval excluded:")
        print("the poller is set to 1 day); medians of \(repetitions) observed stores × \(Self.notices) head inserts each, after one warm-up")
        print(pad("operation", 34) + pad("n", 9, right: true) + pad("noticed", 12, right: true) + pad("deliver call", 14, right: true))
        for n in sizes {
            let notice = try measureNotices(n: n)
            figures[n]?.noticeProcess = notice.process
            figures[n]?.noticeConnection = notice.connection
            figures[n]?.deliverCall = notice.deliverCall
            if cli != nil {
                print(
                    pad("other process's commit noticed", 34) + pad(String(n), 9, right: true)
                        + pad(Measurement.format(notice.process), 12, right: true) + pad(Measurement.format(notice.processDeliverCall), 14, right: true))
            }
            print(
                pad("other connection's commit noticed", 34) + pad(String(n), 9, right: true)
                    + pad(Measurement.format(notice.connection), 12, right: true) + pad(Measurement.format(notice.deliverCall), 14, right: true))
        }
        if cli == nil {
            print("(other process's commit noticed — skipped: build the CLI next to this binary, e.g. swift build -c release)")
        }

        guard let smallest = sizes.first, let largest = sizes.last, let first = figures[smallest], let last = figures[largest] else { return }
        print("")
        print("scaling, n = \(largest) over n = \(smallest) (1.00 = independent of n):")
        if cli != nil { print("  " + pad("other process's commit noticed", 34) + String(format: "%8.2fx", last.noticeProcess / first.noticeProcess)) }
        print("  " + pad("other connection's commit noticed", 34) + String(format: "%8.2fx", last.noticeConnection / first.noticeConnection))
        print("  " + pad("insert at head, observed (first)", 34) + String(format: "%8.2fx", last.insertCold.observed / first.insertCold.observed))
        print("  " + pad("insert at head, observed (warm)", 34) + String(format: "%8.2fx", last.insertWarm.observed / first.insertWarm.observed))
    }

    // MARK: - Insert at head, observed and not

    /// Medians of the first write after opening and of the warm writes after it, observed and unobserved.
    private func measureInserts(n: Int) throws -> (cold: (observed: Double, unobserved: Double), warm: (observed: Double, unobserved: Double)) {
        let template = try fixtures.template(rows: n)
        var cold: [Bool: [Double]] = [true: [], false: []]
        var warm: [Bool: [Double]] = [true: [], false: []]
        for repetition in 0..<repetitions {
            // Alternate which side runs first, so neither always gets the warmer cache.
            for observed in repetition % 2 == 0 ? [true, false] : [false, true] {
                let path = try fixtures.copy(template, to: observed ? "work-observed.sqlite" : "work-unobserved.sqlite")
                let times = try insertAtHead(path: path, n: n, observed: observed)
                cold[observed, default: []].append(times[0])
                warm[observed, default: []].append(contentsOf: times.dropFirst())
            }
        }
        return (
            (Measurement.median(cold[true] ?? []), Measurement.median(cold[false] ?? [])),
            (Measurement.median(warm[true] ?? []), Measurement.median(warm[false] ?? []))
        )
    }

    /// Opens `path`, observes it (initial state taken before any timing) when `observed`, and times
    /// 1 + ``warmWrites`` head inserts; every change an observer receives is checked.
    private func insertAtHead(path: String, n: Int, observed: Bool) throws -> [Double] {
        let store = try ListStore.open(at: path)
        _ = try store.sectionCount()
        var receiver: UpdateReceiver?
        defer { receiver?.stop() }
        if observed {
            let started = UpdateReceiver(store.observe())
            receiver = started
            try expectInitial(try started.next().update, rows: n)
        }
        var times: [Double] = []
        var written: [ChangeSet] = []
        for _ in 0...Self.warmWrites {
            var changes = ChangeSet()
            times.append(try Measurement.seconds { changes = try store.insertRow(Self.insertedTitle, intoSection: 0, at: 0).changes })
            try expectOneInsertedRow(changes, title: Self.insertedTitle, what: "insert at head")
            written.append(changes)
        }
        // The receiving task drains the stream while the writes run; the elements are checked afterwards,
        // so the writing thread never waits for the receiver between writes.
        if let receiver {
            for (index, changes) in written.enumerated() {
                guard case .changes(let delivered) = try receiver.next().update, delivered == changes else {
                    throw BenchmarkFailure("insert at head, observed: write \(index) was not delivered as its own change set")
                }
            }
        }
        if let receiver, receiver.pending != 0 { throw BenchmarkFailure("insert at head, observed: \(receiver.pending) unexpected updates") }
        try check(store, rows: n + Self.warmWrites + 1, what: "insert at head\(observed ? ", observed" : "")")
        return times
    }

    // MARK: - Another connection's commit noticed

    private struct Notices {
        var process: Double
        var processDeliverCall: Double
        var connection: Double
        var deliverCall: Double
    }

    /// Medians of the time to notice a head insert by the `liststore` process and by a second
    /// `ListStore` on the same file.
    private func measureNotices(n: Int) throws -> Notices {
        let template = try fixtures.template(rows: n)
        var process: [Double] = []
        var processCall: [Double] = []
        var connection: [Double] = []
        var connectionCall: [Double] = []
        for _ in 0..<repetitions {
            let path = try fixtures.copy(template, to: "work-noticed.sqlite")
            let observed = try ListStore.open(at: path)
            // The poller would notice on its own within 100 ms; a day keeps it out of the measurement.
            let receiver = UpdateReceiver(observed.observe(pollInterval: .seconds(86_400)))
            defer { receiver.stop() }
            try expectInitial(try receiver.next().update, rows: n)
            let writer = try ListStore.open(at: path)
            _ = try writer.sectionCount()
            // Warm-up, untimed: the observer's first catch-up prepares its statements, as in a running app.
            _ = try notice(receiver, observed, what: "warm-up") { _ = try writer.insertRow(Self.noticedTitle, intoSection: 0, at: 0) }
            var rows = n + 1
            for _ in 0..<Self.notices {
                if let cli {
                    let time = try notice(receiver, observed, what: "other process's commit") {
                        let run = Measurement.spawn(cli, ["--db", path, "add", "0", Self.noticedTitle, "--at", "0"])
                        guard run.status == 0 else { throw BenchmarkFailure("liststore add --at 0 exited with \(run.status)") }
                    }
                    process.append(time.noticed)
                    processCall.append(time.deliverCall)
                    rows += 1
                }
                let time = try notice(receiver, observed, what: "other connection's commit") {
                    _ = try writer.insertRow(Self.noticedTitle, intoSection: 0, at: 0)
                }
                connection.append(time.noticed)
                connectionCall.append(time.deliverCall)
                rows += 1
            }
            try check(observed, rows: rows, what: "commit noticed")
        }
        return Notices(
            process: Measurement.median(process), processDeliverCall: Measurement.median(processCall),
            connection: Measurement.median(connection), deliverCall: Measurement.median(connectionCall))
    }

    /// Runs `commit` (another connection's write, not timed), then times `deliverChangesFromOtherConnections()`
    /// on `observed` until `receiver` has the change set, which must be exactly the one inserted row.
    private func notice(
        _ receiver: UpdateReceiver, _ observed: ListStore, what: String,
        commit: () throws -> Void
    ) throws -> (noticed: Double, deliverCall: Double) {
        try commit()
        guard receiver.pending == 0 else { throw BenchmarkFailure("\(what): delivered before it was asked for (by the poller?)") }
        let start = ContinuousClock.now
        try observed.deliverChangesFromOtherConnections()
        let returned = ContinuousClock.now
        let (update, arrived) = try receiver.next()
        guard case .changes(let changes) = update else { throw BenchmarkFailure("\(what): received \(update) instead of a change set") }
        try expectOneInsertedRow(changes, title: Self.noticedTitle, what: what)
        guard receiver.pending == 0 else { throw BenchmarkFailure("\(what): \(receiver.pending) more updates than the one commit") }
        return (seconds(start, arrived), seconds(start, returned))
    }

    // MARK: - Checks

    private func expectInitial(_ update: ListUpdate, rows: Int) throws {
        guard case .initial(let snapshot) = update else { throw BenchmarkFailure("the first observation update is \(update), not .initial") }
        guard snapshot.sections.count == 1, snapshot.rowCount == rows else {
            throw BenchmarkFailure("the initial snapshot has \(snapshot.sections.count) sections and \(snapshot.rowCount) rows, not 1 and \(rows)")
        }
    }

    /// The change set is exactly one row inserted at 0:0 with `title`, nothing else.
    private func expectOneInsertedRow(_ changes: ChangeSet, title: String, what: String) throws {
        var expected = ChangeSet()
        expected.version = changes.version  // the check is of what changed; any version will do
        if let inserted = changes.insertedRows.first {
            expected.insertedRows = [.init(indexPath: ListIndexPath(section: 0, row: 0), row: ListRow(id: inserted.id, title: title))]
        }
        guard changes == expected, !changes.isEmpty else {
            throw BenchmarkFailure("\(what): expected one row \"\(title)\" inserted at 0:0 and nothing else, got \(changes)")
        }
    }

    private func check(_ store: ListStore, rows: Int, what: String) throws {
        if quick, let problem = try store.checkInvariants().first { throw BenchmarkFailure("\(what): \(problem)") }
        guard try store.rowCount(inSection: 0) == rows else { throw BenchmarkFailure("\(what): wrong row count") }
    }

    private func seconds(_ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: end)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
