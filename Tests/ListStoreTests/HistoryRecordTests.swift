import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The history record's declared on-disk format (TheFile.md, "The history record"), the change log's
/// restored kinds, and what a history changed by hand or an id taken by hand does to an undo.
@Suite struct HistoryRecordTests {
    static let steps: [HistoryStep] = [
        .rowsInserted(section: 3, rows: [HistoryRow(id: 7, title: "a", payload: nil), HistoryRow(id: 8, title: "b", payload: #"{"k":1}"#)]),
        .rowsDeleted(section: 3, rows: [DeletedRow(row: HistoryRow(id: 18, title: "Lunch?", payload: nil), index: 1, after: 17, before: nil)]),
        .rowMoved(id: 9, fromSection: 1, fromIndex: 2, after: nil, before: 10, toSection: 2),
        .rowUpdated(id: 11, oldTitle: "was", oldPayload: nil, title: "is", payload: "[1]"),
        .sectionInserted(id: 4, title: "New", rows: [[20, 3]]),
        .sectionsDeleted([DeletedSection(id: 5, title: "Old", index: 0, after: nil, before: 6, rowCount: 2)]),
        .sectionMoved(id: 6, from: 1, after: 2, before: nil),
        .sectionRenamed(id: 6, oldTitle: "x", title: "y"),
    ]

    static let record =
        #"{"steps":[{"kind":"rows-inserted","rows":[{"id":7,"payload":null,"title":"a"},{"id":8,"payload":"{\"k\":1}","title":"b"}],"section":3},"#
        + #"{"kind":"rows-deleted","rows":[{"after":17,"before":null,"index":1,"payload":null,"row":18,"title":"Lunch?"}],"section":3},"#
        + #"{"after":null,"before":10,"fromIndex":2,"fromSection":1,"kind":"row-moved","row":9,"toSection":2},"#
        + #"{"kind":"row-updated","oldPayload":null,"oldTitle":"was","payload":"[1]","row":11,"title":"is"},"#
        + #"{"kind":"section-inserted","rows":[[20,3]],"section":4,"title":"New"},"#
        + #"{"kind":"sections-deleted","sections":[{"after":null,"before":6,"index":0,"rowCount":2,"section":5,"title":"Old"}]},"#
        + #"{"after":2,"before":null,"from":1,"kind":"section-moved","section":6},"#
        + #"{"kind":"section-renamed","oldTitle":"x","section":6,"title":"y"}],"v":1}"#

    /// Format 2 (what ListStore writes): format 1's steps, and a large insert as ids and a digest.
    static let stepsV2 = steps + [.rowsInsertedRuns(section: 3, ids: [[30, 17], [50, 1]], digest: 0x0123_4567_89ab_cdef)]
    static let recordV2 =
        String(record.dropLast(#"],"v":1}"#.count)) + #",{"digest":"0123456789abcdef","ids":[[30,17],[50,1]],"kind":"rows-inserted","section":3}],"v":2}"#

    @Test func theRecordIsTheDeclaredFormat() throws {
        #expect(try HistoryRecord.encode(Self.stepsV2) == Self.recordV2)
        #expect(HistoryRecord.decode(Self.recordV2) == Self.stepsV2)
        // Format 1, written before format 2, is still read.
        #expect(HistoryRecord.decode(Self.record) == Self.steps)
        for bad in [
            "", "{}", #"{"v":3,"steps":[]}"#, #"{"v":1,"steps":[{"kind":"row-exploded"}]}"#, #"{"v":1,"steps":[{"kind":"row-moved","row":1}]}"#,
            // Format 1 has no digest; a digest is 16 lowercase hexadecimal digits.
            #"{"v":1,"steps":[{"digest":"0123456789abcdef","ids":[[1,20]],"kind":"rows-inserted","section":3}]}"#,
            #"{"v":2,"steps":[{"digest":"0123456789ABCDEF","ids":[[1,20]],"kind":"rows-inserted","section":3}]}"#,
            #"{"v":2,"steps":[{"digest":"123","ids":[[1,20]],"kind":"rows-inserted","section":3}]}"#,
        ] {
            #expect(HistoryRecord.decode(bad) == nil, "\(bad)")
        }
    }

    /// The digest's declared bytes (TheFile.md, "The history record"): FNV-1a 64 of each row, summed.
    @Test func theDigestIsTheDeclaredOne() throws {
        func fnv(_ bytes: [UInt8]) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return hash
        }
        func le(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let a = le(7) + le(2) + Array("ab".utf8) + [0]
        let b = le(UInt64(bitPattern: -1)) + le(3) + Array("é!".utf8) + [1] + le(5) + Array("[1,2]".utf8)
        var digest = RowDigest()
        digest.add(id: 7, title: "ab", payload: nil)
        digest.add(id: -1, title: "é!", payload: "[1,2]")
        #expect(digest.value == fnv(a) &+ fnv(b))
        #expect(digest.count == 2)
        var reversed = RowDigest()
        reversed.add(id: -1, title: "é!", payload: "[1,2]")
        reversed.add(id: 7, title: "ab", payload: nil)
        #expect(reversed == digest, "the order rows are read back in does not matter")
        var changed = RowDigest()
        changed.add(id: 7, title: "ab", payload: "")
        changed.add(id: -1, title: "é!", payload: "[1,2]")
        #expect(changed.value != digest.value, "no payload is not an empty payload")
        #expect(RowDigest.hex(0xab) == "00000000000000ab")
        #expect(RowDigest.value(ofHex: "00000000000000ab") == 0xab)
    }

    @Test func theChangeLogRecordsRestoredKinds() throws {
        let events: [EditEvent] = [.sectionRestored(id: 5, index: 0), .rowsRestored(ids: [[18, 2]], section: 5, sectionIndex: 0, at: 0)]
        let json = try LogRecord.encode(ListedEvents(events, list: 1))
        #expect(
            json
                == #"{"lists":[{"events":[{"index":0,"kind":"section-restored","section":5},{"at":0,"ids":[[18,2]],"kind":"rows-restored","section":5,"sectionIndex":0}],"list":1}],"v":3}"#
        )
        #expect(LogRecord.decode(json) == ListedEvents(events, list: 1))
    }

    @Test func aRecordChangedByHandRefusesItsUndo() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("tampered.sqlite")
        let store = try ListStore.open(at: path, author: "app")
        try store.insertSection(title: "S")
        try Connection(path: path, mode: .readWrite).executeScript("UPDATE liststore_history SET record = '{\"v\":9}'")
        #expect {
            try store.undo()
        } throws: { error in
            guard case .undoRefused(_, _, _, let reason)? = (error as? ListStoreError)?.reason else { return false }
            return reason.contains("not of a format ListStore writes")
        }
        #expect(try store.sectionCount() == 1)
    }

    @Test func keptRowsDeletedByHandRefuseTheSectionsRestore() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("kept.sqlite")
        let store = try ListStore.open(at: path, author: "app")
        let section = try store.insertSection(title: "S").id
        try store.insertRows(["a", "b"], intoSection: section)
        try store.deleteSections(ids: [section])
        try Connection(path: path, mode: .readWrite).executeScript("DELETE FROM liststore_history_rows WHERE ord = 1")
        #expect(throws: ListStoreError.self) { try store.undo() }
        #expect(try store.sectionCount() == 0)
    }

    /// Without the refusal, the restore would fail on the primary key or, worse, restore over another row.
    @Test func anIdTakenByHandRefusesTheRestore() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("taken.sqlite")
        let store = try ListStore.open(at: path, author: "app")
        let section = try store.insertSection(title: "S").id
        let (ids, _) = try store.insertRows(["a", "b"], intoSection: section)
        try store.deleteRows(ids: [ids[1]])
        try Connection(path: path, mode: .readWrite).executeScript(
            "INSERT INTO rows (id, section_id, position, title) VALUES (\(ids[1].rawValue), \(section.rawValue), 1048576, 'squatter')")
        let before = try store.snapshot()
        #expect(
            throws: ListStoreError.undoRefused(
                action: nil, entry: 3, redo: false, reason: "row #\(ids[1].rawValue) exists again (an import or a hand edit gave its id to another row)")
        ) {
            try store.undo()
        }
        #expect(try store.snapshot() == before)
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aHistoryLimitOfZeroKeepsNothing() throws {
        let folder = try TemporaryDirectory()
        let store = try ListStore.open(at: folder.path("none.sqlite"), author: "app", historyLimit: 0)
        try store.insertSection(title: "S")
        #expect(throws: ListStoreError.nothingToUndo(author: "app")) { try store.undo() }
        #expect(try store.history().map(\.kind) == [.other])
        #expect(ListStore.defaultAuthor.isEmpty == false)
        #expect(try ListStore.open(at: folder.path("default.sqlite")).author == ListStore.defaultAuthor)
    }
}
