import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The change log cannot silently lie: hand edits that change what a table view shows reach observers
/// in other connections (ids changed by hand included), a state row deleted or left stuck makes them
/// reload instead of going stale, an entry deleted from the log's middle is a reset rather than a skip,
/// and a forged or damaged entry is a reset — never a trap, a huge allocation or a change set that
/// does not fit the mirror.
@Suite struct ChangeLogTamperingTests {
    /// An observer of another connection's commits, kept in step by hand (no poller).
    struct Observer {
        let path: String
        let store: ListStore
        var updates: AsyncThrowingStream<ListUpdate, any Error>.Iterator
        var mirror: ListSnapshot
        /// The kinds of update received since the last `catchUp`: "changes" or "reset".
        var received: [String] = []

        init(_ path: String) async throws {
            self.path = path
            store = try ListStore.open(at: path)
            updates = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
            guard case .initial(let state) = try await ObservationTests.next(&updates) else { throw UIKitReplay.Failure(description: "no initial state") }
            mirror = state
        }

        /// How many sentinel commits this observer made.
        var sentinels = 0

        /// Delivers what other connections committed, then makes a commit of its own (a sentinel: a
        /// section renamed), and applies every update to the mirror up to the sentinel's, which must fit:
        /// the mirror must then equal the store. What arrived before the sentinel is in `received`.
        mutating func catchUp() async throws {
            received = []
            try store.deliverChangesFromOtherConnections()
            sentinels += 1
            let sentinel =
                try store.snapshot().sections.isEmpty
                ? try store.insertSection(title: "sentinel \(sentinels)").changes
                : try store.renameSection(at: 0, to: "sentinel \(sentinels)")
            while true {
                let update = try await ObservationTests.next(&updates, timeout: .seconds(20))
                switch update {
                case .changes(let changes):
                    try mirror.apply(changes)
                    if changes == sentinel {
                        guard mirror == (try store.snapshot()) else { throw UIKitReplay.Failure(description: "the mirror differs from the store") }
                        return
                    }
                    received.append("changes")
                case .reset(let state):
                    received.append("reset")
                    mirror = state
                case .initial:
                    throw UIKitReplay.Failure(description: "a second start")
                }
            }
        }

        /// Delivers what other connections committed, with no commit of its own, and applies updates
        /// until the mirror equals the store (a change set must fit); `wait` bounds the wait for each.
        mutating func catchUpWithoutWriting(wait: Duration = .seconds(5)) async throws {
            received = []
            try store.deliverChangesFromOtherConnections()
            let expected = try store.snapshot()
            while mirror != expected {
                guard received.count < 3 else { throw UIKitReplay.Failure(description: "the mirror never reached the store") }
                switch try await ObservationTests.next(&updates, timeout: wait) {
                case .changes(let changes):
                    received.append("changes")
                    try UIKitReplay.checkAll(changes, from: mirror, to: expected)
                    try mirror.apply(changes)
                case .reset(let state):
                    received.append("reset")
                    mirror = state
                case .initial:
                    throw UIKitReplay.Failure(description: "a second start")
                }
            }
        }
    }

    /// A store with three sections and a few rows at `path`, written by ListStore.
    static func makeStore(_ path: String) throws -> ListStore {
        let store = try ListStore.open(at: path)
        for (title, rows) in [("A", ["a0", "a1", "a2"]), ("B", ["b0", "b1"]), ("C", [])] {
            try store.insertSection(title: title)
            if !rows.isEmpty { try store.insertRows(rows.map { NewRow(title: $0) }, intoSection: try store.sectionCount() - 1) }
        }
        return store
    }

    /// Runs `sql` as the `sqlite3` shell would: another connection, its own transaction per statement.
    static func shell(_ path: String, _ sql: String) throws {
        try Connection(path: path, mode: .readWrite).executeScript(sql)
    }

    /// The usual way to reset an AUTOINCREMENT table — its rows and its counter deleted — starts the log's
    /// numbers again: entries numbered as the observer's last one name other commits. The observer must
    /// reload (a reset), not take the renumbered log for the one it followed (red team, issue 20).
    @Test func aLogWhoseCounterWasResetByHandIsAReset() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("counter.sqlite")
        let store = try Self.makeStore(path)
        for title in ["a", "b", "c"] { try store.renameSection(at: 0, to: title) }
        var observer = try await Observer(path)
        let before = try store.version().rawValue
        try #require(before >= 2)
        // Entries 1…`before` again, up to where the observer was: a row deleted (logged with the counts
        // it changed), then titles set by hand until the counter is where it was.
        let shell = try Connection(path: path, mode: .readWrite)
        try shell.executeScript(
            """
            BEGIN;
            DELETE FROM liststore_log;
            DELETE FROM sqlite_sequence WHERE name = 'liststore_log';
            DELETE FROM rows WHERE id = (SELECT max(id) FROM rows);
            """)
        let counter = "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'liststore_log'), 0)"
        try #require(try shell.scalarInt(counter) ?? 0 < before, "the hand delete alone logged as many entries as the observer saw")
        while try shell.scalarInt(counter) ?? 0 < before { try shell.executeScript("UPDATE sections SET title = title || '.' WHERE position = 0") }
        try shell.executeScript("COMMIT")
        #expect(try store.version().rawValue == before)
        try await observer.catchUp()
        #expect(observer.received == ["reset"])
    }

    /// The same deletions without touching the log's counter arrive as they always did.
    @Test func handDeletionsWithTheCounterKeptAreResetsToo() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("kept.sqlite")
        let store = try Self.makeStore(path)
        for title in ["a", "b", "c"] { try store.renameSection(at: 0, to: title) }
        var observer = try await Observer(path)
        try Self.shell(path, "DELETE FROM rows WHERE id = (SELECT max(id) FROM rows)")
        try await observer.catchUp()
        #expect(observer.received == ["reset"])
    }

    @Test(arguments: ["rows", "sections"])
    func idsChangedByHandReachObservers(table: String) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ids.sqlite")
        let store = try Self.makeStore(path)
        var observer = try await Observer(path)
        // Without the attack: a title changed by hand arrives as an update.
        try Self.shell(path, "UPDATE \(table) SET title = 'renamed' WHERE id = 1")
        try await observer.catchUp()
        #expect(observer.received == ["changes"])
        // Docs/CLI.md's advice for used-up ids: give one a new id. The observer must not keep the old one.
        let sql =
            table == "rows"
            ? "UPDATE rows SET id = 1000 WHERE id = 2"
            : "UPDATE sections SET id = 1000 WHERE id = 3"  // the section without rows
        try Self.shell(path, sql)
        try await observer.catchUp()
        #expect(observer.received == ["reset"])
        #expect(observer.mirror == (try store.snapshot()))
    }

    @Test func aStateRowLeftAtWritingMakesObserversReloadUntilListStoreWritesAgain() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("stuck.sqlite")
        let store = try Self.makeStore(path)
        var observer = try await Observer(path)
        try Self.shell(path, "UPDATE liststore_state SET writing = 1")
        #expect(try store.checkInvariants().map(\.description).contains { $0.contains("liststore_state") && $0.contains("writing = 1") })
        // Hand edits are not logged while it stays so: every one is a reset, nothing goes unseen.
        for step in 0..<3 {
            try Self.shell(path, Shell.appendRow("hand \(step)", toSection: 1))
            try await observer.catchUpWithoutWriting()
            #expect(observer.received == ["reset"], "step \(step)")
        }
        // The next ListStore write puts the state back: hand edits are logged again.
        try ListStore.open(at: path).insertRow("by ListStore", intoSection: 1)
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT writing FROM liststore_state WHERE id = 1") == 0)
        try await observer.catchUp()
        #expect(observer.received == ["changes"])
        try Self.shell(path, "UPDATE rows SET title = 'logged again' WHERE id = 1")
        try await observer.catchUp()
        #expect(observer.received == ["changes"])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func theStateRowCannotBeDeletedAndAMissingOneIsNoticed() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("missing.sqlite")
        let store = try Self.makeStore(path)
        try store.insertRow("x", intoSection: 0)  // migrated and written by this build
        var observer = try await Observer(path)
        #expect(throws: SQLiteError.self) { try Self.shell(path, "DELETE FROM liststore_state") }
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT writing FROM liststore_state WHERE id = 1") == 0)

        // A file whose row went missing all the same (a copy of the table without it, a deleted trigger):
        // hand edits are still logged, and observers reload until ListStore writes again.
        let guardSQL = try #require(try Connection(path: path, mode: .readOnly).scalarText("SELECT sql FROM sqlite_schema WHERE name = 'liststore_state_kept'"))
        try Self.shell(path, "BEGIN; DROP TRIGGER liststore_state_kept; DELETE FROM liststore_state; \(guardSQL); COMMIT")
        #expect(try store.checkInvariants().map(\.description).contains { $0.contains("liststore_state") && $0.contains("deleted") })
        try Self.shell(path, "UPDATE rows SET title = 'hand' WHERE id = 1")
        try await observer.catchUp()
        // The poll's read connection reloads; the sentinel write's own look (on the writer connection,
        // which cannot know what that read saw in a log that may miss hand edits) may reload once more.
        #expect(!observer.received.isEmpty && observer.received.allSatisfy { $0 == "reset" })
        try ListStore.open(at: path).renameSection(at: 2, to: "C2")
        #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT writing FROM liststore_state WHERE id = 1") == 0)
        try await observer.catchUp()
        #expect(observer.received == ["changes"])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test(arguments: [false, true])
    func aLoggingTriggerDroppedByHandEndsObservationWithAnError(dropTrigger: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("dropped.sqlite")
        _ = try Self.makeStore(path)
        var observer = try await Observer(path)
        // A schema change of another program's own (tolerated) is no reason to stop.
        try Self.shell(path, "CREATE TABLE app_notes (note TEXT)")
        try await observer.catchUp()
        if dropTrigger { try Self.shell(path, "DROP TRIGGER rows_logged_inserts") }
        try Self.shell(path, Shell.appendRow("unlogged?", toSection: 1))
        guard dropTrigger else {
            try await observer.catchUpWithoutWriting()
            #expect(observer.received == ["reset"])
            return
        }
        do {
            try observer.store.deliverChangesFromOtherConnections()
            let update = try await nextElement(&observer.updates, timeout: .seconds(5))
            Issue.record("the observer went on: \(String(describing: update))")
        } catch let error as ListStoreError {
            #expect("\(error)".contains("schema was changed outside ListStore") && "\(error)".contains("rows_logged_inserts"), "\(error)")
        }
    }

    @Test(arguments: [false, true])
    func anEntryDeletedFromTheMiddleOfTheLogIsAResetNotASkip(deleteOne: Bool) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("gap.sqlite")
        let store = try Self.makeStore(path)
        var observer = try await Observer(path)
        let other = try ListStore.open(at: path)
        try other.insertRow("one", intoSection: 0, at: 0)
        try other.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 1, row: 0))
        try other.insertRow("three", intoSection: 0, at: 0)
        if deleteOne {
            try Self.shell(path, "DELETE FROM liststore_log WHERE seq = (SELECT max(seq) - 1 FROM liststore_log)")
            #expect(try store.checkInvariants().map(\.description).contains { $0.contains("change log entries") && $0.contains("deleted") })
        }
        try await observer.catchUp()
        #expect(observer.received == [deleteOne ? "reset" : "changes"])
        // Entries deleted from the end too (the last entry the sequence says was written is gone).
        try other.insertRow("four", intoSection: 2)
        try Self.shell(path, "DELETE FROM liststore_log WHERE seq = (SELECT max(seq) FROM liststore_log)")
        try await observer.catchUp()
        #expect(observer.received == ["reset"])
        _ = try store.repair()
        #expect(try store.checkInvariants().isEmpty)
    }

    // MARK: Forged and damaged entries

    /// Numbers no store can have as an index, count or id (its ids are small), and values of other types.
    static func implausible() -> [Any] {
        [
            -1, Int64.min, Int64.max, Int64.max - 1, 1 << 48, 1 << 62, 4_000_000_000_000_000_000, 1_000_000_000_000_000,
            -4_611_686_018_427_387_904, 1e300, 0.5, "7", NSNull(), [Any](), [String: Any](),
        ]
    }

    /// Events of every kind with plausible numbers for the store `makeStore` builds.
    static func plausibleEvents() -> [EditEvent] {
        [
            .sectionInserted(id: 2, index: 1),
            .sectionsDeleted([[1, 2], [0, 1]]),
            .sectionMoved(id: 1, from: 0, to: 2),
            .sectionRenamed(id: 2, index: 1, oldTitle: "B"),
            .rowsInserted(ids: [[1, 3]], section: 1, sectionIndex: 0, at: 0),
            .rowsDeleted([[0, 1, 2, 1], [1, 0, 4, 2]]),
            .rowMoved(id: 1, from: ListIndexPath(section: 0, row: 0), source: 1, to: ListIndexPath(section: 1, row: 0), target: 2),
            .rowUpdated(id: 3, section: 1, path: ListIndexPath(section: 0, row: 2), oldTitle: "a2", oldPayload: "{}"),
        ]
    }

    /// Every number in `value` (a parsed JSON tree), as paths of keys and indexes.
    static func numberPaths(_ value: Any, _ path: [Any] = []) -> [[Any]] {
        if let array = value as? [Any] { return array.enumerated().flatMap { numberPaths($0.element, path + [$0.offset]) } }
        if let object = value as? [String: Any] { return object.sorted { $0.key < $1.key }.flatMap { numberPaths($0.value, path + [$0.key]) } }
        return value is NSNumber && !(value is Bool) ? [path] : []
    }

    static func replacing(_ value: Any, at path: ArraySlice<Any>, with new: Any) -> Any {
        guard let step = path.first else { return new }
        if var array = value as? [Any], let index = step as? Int {
            array[index] = replacing(array[index], at: path.dropFirst(), with: new)
            return array
        }
        if var object = value as? [String: Any], let key = step as? String, let inner = object[key] {
            object[key] = replacing(inner, at: path.dropFirst(), with: new)
            return object
        }
        return value
    }

    static func json(_ value: Any) -> String {
        // Whole numbers above 2^53 would lose digits as doubles: write Int64s as they are.
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) else { return "[" }
        return String(decoding: data, as: UTF8.self)
    }

    /// One forged entry: its kind, id and events, and what was done to make it.
    struct Forgery {
        let kind: String
        let id: Int64?
        let events: String?
        let what: String
    }

    static func forgery(_ random: inout SeededGenerator) throws -> Forgery {
        let events = plausibleEvents()
        let event = events.randomElement(using: &random) ?? events[0]
        let genuine = try JSONSerialization.jsonObject(
            with: Data(LogRecord.encodeVersion2([event] + events.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))).utf8))
        switch Int.random(in: 0..<9, using: &random) {
        case 0, 1, 2:
            // One number of a well-formed entry replaced by one no store could hold (or by another type).
            let paths = numberPaths(genuine)
            let path = paths.randomElement(using: &random) ?? []
            let value = implausible().randomElement(using: &random) ?? -1
            return Forgery(kind: "edits", id: nil, events: json(replacing(genuine, at: path[...], with: value)), what: "\(path) = \(value)")
        case 3:
            let text = json(genuine)
            let cut = Int.random(in: 0..<text.utf8.count, using: &random)
            return Forgery(kind: "edits", id: nil, events: String(decoding: Array(text.utf8.prefix(cut)), as: UTF8.self), what: "truncated at \(cut)")
        case 4:
            let depth = [10, 600, 100_000].randomElement(using: &random) ?? 10
            return Forgery(kind: "edits", id: nil, events: String(repeating: "[", count: depth) + String(repeating: "]", count: depth), what: "nested \(depth) deep")
        case 5:
            // Runs of ids that overflow, or count 4·10^18 rows.
            let runs = [[Int64.max, 2], [1, 4_000_000_000_000_000_000], [Int64.max - 1, Int64.max], [-5, 10], [1, 0], [1]].randomElement(using: &random) ?? [[1]]
            return Forgery(kind: "edits", id: nil, events: #"[{"rowsInserted":{"ids":[\#(json(runs))],"section":1,"sectionIndex":0,"at":0}}]"#, what: "runs \(runs)")
        case 6 where Bool.random(using: &random):
            // Wrong shapes of the current format (``LogRecord``).
            let shapes = [
                #"{"v":2,"events":[{"kind":"rows-deleted","rows":[[0,1]]}]}"#, #"{"v":3,"events":[]}"#, #"{"events":[]}"#,
                #"{"v":2,"events":[{"kind":"row-moved","row":1,"from":[0],"fromSection":1,"to":[0,0],"toSection":1}]}"#,
                #"{"v":2,"events":[{"kind":"bogus"}]}"#, #"{"v":2,"events":{}}"#, #"{"v":"2","events":[]}"#,
                #"{"v":2,"events":[{"kind":"sections-deleted","sections":[[0,1,2]]}]}"#,
            ]
            let shape = shapes.randomElement(using: &random) ?? "{}"
            return Forgery(kind: "edits", id: nil, events: shape, what: "shape \(shape)")
        case 6:
            // Wrong shapes of format 1: the right keys around the wrong values.
            let shapes = [
                #"{"rowsDeleted":{"_0":[[0,1]]}}"#, #"{"sectionsDeleted":{"_0":[[0,1,2]]}}"#, #"{"rowsDeleted":{"_0":[]}}"#,
                #"{"rowMoved":{"id":1}}"#, #"{"bogus":{}}"#, #"[]"#, #""edits""#, #"{"sectionInserted":{"id":1,"index":1,"extra":[[[[1]]]]}}"#,
            ]
            let shape = shapes.randomElement(using: &random) ?? "[]"
            return Forgery(kind: "edits", id: nil, events: "[\(shape)]", what: "shape \(shape)")
        case 7:
            return Forgery(
                kind: ["row", "section"].randomElement(using: &random) ?? "row",
                id: [nil, Int64.max, Int64.min, -1, 0, 1_000_000].randomElement(using: &random) ?? nil, events: nil, what: "hand entry")
        default:
            return Forgery(
                kind: ["bogus", "", "EDITS", "edits"].randomElement(using: &random) ?? "bogus", id: 1,
                events: [nil, "", "null", "{}", "[null]"].randomElement(using: &random) ?? nil, what: "wrong kind")
        }
    }

    /// Writes `forgery` as the next entry the way a damaged file or a determined hand would: past
    /// the log's guards (marking the transaction as ListStore's) and its CHECK constraint.
    static func write(_ forgery: Forgery, _ shell: Connection) throws {
        try shell.run("PRAGMA ignore_check_constraints = 1")
        try shell.transaction(.immediate) {
            try shell.run("UPDATE liststore_state SET writing = 1")
            try shell.run(
                "INSERT INTO liststore_log (kind, id, events) VALUES (?1, ?2, ?3)",
                [.text(forgery.kind), forgery.id.map(SQLiteValue.integer) ?? .null, forgery.events.map(SQLiteValue.text) ?? .null])
            try shell.run("UPDATE liststore_state SET writing = 0")
        }
    }

    /// Forged entries of every kind, alone and between genuine commits: the observer never traps, never
    /// allocates by a forged count, and every update it delivers fits the mirror (a reset is fine).
    @Test(arguments: [16, 1_610, 77_001])
    func forgedEntriesNeverCrashObserversNorMisleadTheirMirror(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("forged.sqlite")
        let store = try Self.makeStore(path)
        let other = try ListStore.open(at: path)
        let shell = try Connection(path: path, mode: .readWrite)
        var observer = try await Observer(path)
        var random = SeededGenerator(seed: seed)
        var resets = 0
        for step in 0..<150 {
            let forgery = try Self.forgery(&random)
            try Self.write(forgery, shell)
            do {
                try await observer.catchUp()
                resets += observer.received.filter { $0 == "reset" }.count
                // A genuine commit after it arrives as what it is, once the forged entry is behind.
                try ObservationTests.randomTransaction(other, &random)
                try await observer.catchUp()
            } catch {
                Issue.record("seed \(seed), step \(step), \(forgery.kind) \(forgery.id.map(String.init) ?? "nil") \(forgery.what) \(forgery.events ?? "nil"): \(error)")
                return
            }
        }
        #expect(resets > 50, "most forged entries make a reset: \(resets)")
        #expect(observer.mirror == (try store.snapshot()))
    }

    @Test func overflowingForgedEntriesAreResetsAndCheckReportsThem() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("forged.sqlite")
        let store = try Self.makeStore(path)
        var observer = try await Observer(path)
        let shell = try Connection(path: path, mode: .readWrite)
        for runs in [#"[[9223372036854775807,2]]"#, #"[[1,4000000000000000000]]"#] {
            let forgery = Forgery(kind: "edits", id: nil, events: #"[{"rowsInserted":{"ids":\#(runs),"section":1,"sectionIndex":0,"at":0}}]"#, what: runs)
            try Self.write(forgery, shell)
            try Self.shell(path, "UPDATE rows SET title = 'after \(runs)' WHERE id = 1")
            try await observer.catchUp()
            #expect(observer.received == ["reset"])
        }
        let problems = try store.checkInvariants()
        #expect(problems.count == 2 && problems.allSatisfy { $0.isRepairable && $0.description.contains("cannot be trusted") }, "\(problems)")
        let report = try store.repair()
        #expect(report.fixes.contains { $0.contains("change log: cleared") }, "\(report.fixes)")
        #expect(try store.checkInvariants().isEmpty)
        try await observer.catchUp()
        try Self.shell(path, "UPDATE rows SET title = 'after repair' WHERE id = 1")
        try await observer.catchUp()
        #expect(observer.received == ["changes"])
        // A hand-written entry of ListStore's own kind, or a changed one, is refused outright.
        #expect(throws: SQLiteError.self) { try Self.shell(path, #"INSERT INTO liststore_log (kind, events) VALUES ('edits', '[]')"#) }
        #expect(throws: SQLiteError.self) { try Self.shell(path, "UPDATE liststore_log SET events = '[]'") }
    }
}
