import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The change log's record format is declared (``LogRecord``): records written by schema 3 to 5
/// (format 1, Swift's synthesized shape then) and by schema 6 on (format 2) decode to the same edits,
/// whatever the Swift names are today.
@Suite struct LogRecordTests {
    /// Each kind of event, with the record format 1 writers (schemas 3 to 5) wrote for it alone,
    /// captured from their output, and the one format 2 writes.
    static let fixtures: [(event: EditEvent, format1: String, format2: String)] = [
        (
            .sectionInserted(id: 7, index: 2),
            #"[{"sectionInserted":{"index":2,"id":7}}]"#,
            #"{"events":[{"index":2,"kind":"section-inserted","section":7}],"v":2}"#
        ),
        (
            .sectionsDeleted([[0, 3], [1, 4]]),
            #"[{"sectionsDeleted":{"_0":[[0,3],[1,4]]}}]"#,
            #"{"events":[{"kind":"sections-deleted","sections":[[0,3],[1,4]]}],"v":2}"#
        ),
        (
            .sectionMoved(id: 5, from: 0, to: 3),
            #"[{"sectionMoved":{"to":3,"from":0,"id":5}}]"#,
            #"{"events":[{"from":0,"kind":"section-moved","section":5,"to":3}],"v":2}"#
        ),
        (
            .sectionRenamed(id: 6, index: 1, oldTitle: "Old \"q\" é"),
            #"[{"sectionRenamed":{"oldTitle":"Old \"q\" é","id":6,"index":1}}]"#,
            #"{"events":[{"index":1,"kind":"section-renamed","oldTitle":"Old \"q\" é","section":6}],"v":2}"#
        ),
        (
            .rowsInserted(ids: [[10, 3], [20, 1]], section: 2, sectionIndex: 1, at: 4),
            #"[{"rowsInserted":{"ids":[[10,3],[20,1]],"section":2,"sectionIndex":1,"at":4}}]"#,
            #"{"events":[{"at":4,"ids":[[10,3],[20,1]],"kind":"rows-inserted","section":2,"sectionIndex":1}],"v":2}"#
        ),
        (
            .rowsDeleted([[2, 1, 18, 3], [2, 2, 19, 3]]),
            #"[{"rowsDeleted":{"_0":[[2,1,18,3],[2,2,19,3]]}}]"#,
            #"{"events":[{"kind":"rows-deleted","rows":[[2,1,18,3],[2,2,19,3]]}],"v":2}"#
        ),
        (
            .rowMoved(id: 9, from: ListIndexPath(section: 0, row: 1), source: 1, to: ListIndexPath(section: 1, row: 0), target: 2),
            #"[{"rowMoved":{"to":{"row":0,"section":1},"source":1,"target":2,"from":{"row":1,"section":0},"id":9}}]"#,
            #"{"events":[{"from":[0,1],"fromSection":1,"kind":"row-moved","row":9,"to":[1,0],"toSection":2}],"v":2}"#
        ),
        (
            .rowUpdated(id: 11, section: 2, path: ListIndexPath(section: 1, row: 5), oldTitle: "was", oldPayload: "{\"a\":1}"),
            #"[{"rowUpdated":{"section":2,"path":{"section":1,"row":5},"id":11,"oldPayload":"{\"a\":1}","oldTitle":"was"}}]"#,
            #"{"events":[{"kind":"row-updated","oldPayload":"{\"a\":1}","oldTitle":"was","path":[1,5],"row":11,"section":2}],"v":2}"#
        ),
        (
            .rowUpdated(id: 12, section: 2, path: ListIndexPath(section: 1, row: 6), oldTitle: "was2", oldPayload: nil),
            #"[{"rowUpdated":{"section":2,"path":{"section":1,"row":6},"oldTitle":"was2","id":12}}]"#,
            #"{"events":[{"kind":"row-updated","oldPayload":null,"oldTitle":"was2","path":[1,6],"row":12,"section":2}],"v":2}"#
        ),
    ]

    /// A whole transaction's record as format 1 wrote it: every kind, in one entry.
    static let format1Transaction =
        #"[{"sectionInserted":{"index":2,"id":7}},{"sectionsDeleted":{"_0":[[0,3],[1,4]]}},{"sectionMoved":{"to":3,"id":5,"from":0}},{"sectionRenamed":{"index":1,"id":6,"oldTitle":"Old \"q\" é"}},{"rowsInserted":{"section":2,"ids":[[10,3],[20,1]],"sectionIndex":1,"at":4}},{"rowsDeleted":{"_0":[[2,1,18,3],[2,2,19,3]]}},{"rowMoved":{"to":{"section":1,"row":0},"target":2,"id":9,"from":{"section":0,"row":1},"source":1}},{"rowUpdated":{"section":2,"path":{"section":1,"row":5},"id":11,"oldPayload":"{\"a\":1}","oldTitle":"was"}},{"rowUpdated":{"section":2,"path":{"section":1,"row":6},"id":12,"oldTitle":"was2"}}]"#

    @Test func format1RecordsDecode() {
        for fixture in Self.fixtures {
            #expect(LogRecord.decode(fixture.format1) == ListedEvents([fixture.event], list: 1), "\(fixture.format1)")
        }
        #expect(LogRecord.decode(Self.format1Transaction) == ListedEvents(Self.fixtures.map(\.event), list: 1))
        #expect(LogRecord.decode("[]") == ListedEvents([], list: 1))
    }

    @Test func format2IsWrittenExactlyAsDeclaredAndDecodes() throws {
        for fixture in Self.fixtures {
            #expect(try LogRecord.encodeVersion2([fixture.event]) == fixture.format2)
            #expect(LogRecord.decode(fixture.format2) == ListedEvents([fixture.event], list: 1), "\(fixture.format2)")
        }
        let all = Self.fixtures.map(\.event)
        #expect(LogRecord.decode(try LogRecord.encodeVersion2(all)) == ListedEvents(all, list: 1))
    }

    @Test func recordsOfNoVersionListStoreWritesDoNotDecode() {
        for text in [
            #"{"v":3,"events":[]}"#, #"{"events":[]}"#, #"{"v":2}"#, #"{"v":2,"events":[{"kind":"rowsDeleted","rows":[]}]}"#,
            #"{"v":2,"events":[{"kind":"row-moved","row":1,"from":[0],"fromSection":1,"to":[0,0],"toSection":1}]}"#,
            #"[{"rows-deleted":{"_0":[]}}]"#, #"[{"rowsDeleted":{"_0":[]},"sectionMoved":{"to":3,"from":0,"id":5}}]"#,
            #"[{"sectionInserted":{"index":2}}]"#, "", "null", "{}", "[null]",
        ] {
            #expect(LogRecord.decode(text) == nil, "\(text)")
        }
    }

    /// A file of schema 5 whose log holds a format-1 entry (written the way ListStore 5 did, inside a
    /// transaction marked as its own): an observer of the migrated file gets that entry's edits as a
    /// change set, not a reset, and ListStore's next entry is format 2.
    @Test func aFormat1EntryInAMigratedFileReachesObservers() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("v5.sqlite")
        let db = try Connection(path: path, mode: .readWriteCreate)
        try Migrator(migrations: Array(Schema.migrations.prefix(5)), applicationID: Schema.applicationID).migrate(db)
        try db.run("INSERT INTO sections (position, title) VALUES (0, 'S')")
        try db.run("INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'a')")
        let store = try ListStore.open(at: path)
        _ = try store.insertRow("b", intoSection: 0)  // migrates to the latest version
        var updates = store.observe(pollInterval: .seconds(3600)).makeAsyncIterator()
        guard case .initial = try #require(try await nextElement(&updates)) else {
            Issue.record("no initial state")
            return
        }
        try db.transaction(.immediate) {
            try db.run("UPDATE liststore_state SET writing = 1")
            try db.run("UPDATE rows SET title = 'renamed' WHERE id = 1")
            try db.run(
                "INSERT INTO liststore_log (kind, events) VALUES ('edits', ?1)",
                [.text(#"[{"rowUpdated":{"section":1,"path":{"section":0,"row":0},"id":1,"oldTitle":"a"}}]"#)])
            try db.run("UPDATE liststore_state SET writing = 0")
        }
        try store.deliverChangesFromOtherConnections()
        guard case .changes(let changes) = try #require(try await nextElement(&updates)) else {
            Issue.record("not a change set")
            return
        }
        #expect(changes.updatedRows.map(\.id.rawValue) == [1])
        _ = try store.renameSection(at: 0, to: "T")
        let last = try db.scalarText("SELECT events FROM liststore_log ORDER BY seq DESC LIMIT 1")
        #expect(last?.hasPrefix(#"{"lists":[{"events":[{"index":0,"kind":"section-renamed""#) == true, "\(last ?? "nil")")
    }
}
