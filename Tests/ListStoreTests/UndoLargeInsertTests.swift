import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The undo of a large insert (history record format 2, TheFile.md, "The history record"): its entry keeps
/// the rows' ids as runs and a digest of their values, not the values; the undo deletes exactly those
/// rows while every one is as inserted, refuses (changing nothing) when one was changed or deleted
/// since, by another author or by hand, and its redo brings them back with their ids and values.
/// Entries of format 1, which kept every row's values, still undo.
@Suite struct UndoLargeInsertTests {
    typealias Fixture = UndoTests.Fixture

    /// 5,000 rows, every third with a payload, inserted by "app" between two rows of a seeded section.
    static let count = 5_000
    static func newRows() -> [NewRow] {
        (0..<count).map { NewRow(title: "bulk \($0)", payload: $0 % 3 == 0 ? #"{"n":\#($0)}"# : nil) }
    }

    /// A seeded store; then `app` inserts the 5,000 rows at 0:2. Returns the state before and after, and the ids.
    static func inserted(_ fixture: Fixture, _ app: ListStore) throws -> (before: [[String]], after: [[String]], ids: [RowID]) {
        try UndoTests.seeded(try fixture.open("seed"))
        let before = try UndoTests.state(app)
        let (ids, _) = try app.write(actionName: "Paste") { tx in try tx.insertRows(newRows(), intoSection: 0, at: 2) }
        return (before, try UndoTests.state(app), ids)
    }

    static func record(_ path: String, entry: Int64) throws -> String {
        let db = try Connection(path: path, mode: .readOnly)
        return try db.cached("SELECT record FROM liststore_history WHERE id = ?1").bind([.integer(entry)]).first { $0.text(0) } ?? ""
    }

    static func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch {
            guard case .undoRefused(_, _, _, let reason)? = (error as? ListStoreError)?.reason else { return "other error: \(error)" }
            return reason
        }
        return nil
    }

    @Test func aLargeInsertKeepsIdsAndADigestAndUndoesAndRedoes() throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let (before, after, ids) = try Self.inserted(fixture, app)
        // The entry is a few numbers, not 5,000 rows' values (before format 2: about 150 KB), and keeps no rows aside.
        let entry = try #require(try app.nextUndo()?.entry)
        let record = try Self.record(fixture.path, entry: entry)
        #expect(record.utf8.count < 200, "\(record.utf8.count) bytes: \(record.prefix(300))")
        #expect(record.contains(#""ids":[[\#(ids[0].rawValue),\#(Self.count)]]"#) && record.hasSuffix(#""v":2}"#), "\(record)")
        #expect(try Connection(path: fixture.path, mode: .readOnly).scalarInt("SELECT count(*) FROM liststore_history_rows") == 0)

        let undone = try app.undo()
        #expect(undone.deletedRows.count == Self.count)
        #expect(try UndoTests.state(app) == before, "exactly the inserted rows are gone, the others as they were")
        try UndoTests.expectSound(app)
        let redone = try app.redo()
        #expect(redone.insertedRows.map(\.row.id) == ids)
        #expect(try UndoTests.state(app) == after, "back with their ids, titles, payloads and places")
        try UndoTests.expectSound(app)
        // The redo's entry (rows put back) is kept the same way, and can be undone again.
        let redoEntry = try #require(try app.nextUndo()?.entry)
        #expect(try Self.record(fixture.path, entry: redoEntry).utf8.count < 200)
        try app.undo()
        #expect(try UndoTests.state(app) == before)
    }

    @Test(arguments: [false, true]) func aRowChangedByAnotherAuthorRefusesTheUndo(payload: Bool) throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let (_, _, ids) = try Self.inserted(fixture, app)
        let other = try fixture.open("other")
        let victim = ids[3_456]
        if payload {
            try other.updateRow(id: victim, payload: .set(#"{"n":"changed"}"#))
        } else {
            try other.updateRow(id: victim, title: "changed")
        }
        let state = try UndoTests.state(app)
        let reason = Self.refusal { try app.undo() }
        #expect(reason == "one of the 5000 rows it inserted (#\(ids[0].rawValue) on) was changed since (its title or payload)", "\(reason ?? "undone")")
        #expect(try UndoTests.state(app) == state, "nothing changed")
        // Once the other author takes their change back, the undo goes through.
        try other.undo()
        try app.undo()
        #expect(try app.snapshot().sections[0].rows.count == 4)
    }

    @Test(arguments: [false, true]) func aRowChangedByHandRefusesTheUndo(payload: Bool) throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let (_, _, ids) = try Self.inserted(fixture, app)
        let hand = try Connection(path: fixture.path, mode: .readWrite)
        let victim = ids[Self.count - 1].rawValue  // no payload (4999 is not a multiple of 3)
        let change = payload ? "payload = '[1]'" : "title = 'bulk 4999 '"
        try hand.executeScript("UPDATE rows SET \(change) WHERE id = \(victim)")
        let state = try UndoTests.state(app)
        #expect(Self.refusal { try app.undo() }?.contains("was changed since (its title or payload)") == true)
        #expect(try UndoTests.state(app) == state, "nothing changed")
        // Put back by hand as it was inserted: the undo goes through.
        try hand.executeScript("UPDATE rows SET title = 'bulk 4999', payload = NULL WHERE id = \(victim)")
        try app.undo()
        #expect(try app.snapshot().sections[0].rows.count == 4)
    }

    @Test func aRowDeletedSinceRefusesAndAllDeletedIsPassedOver() throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let (_, _, ids) = try Self.inserted(fixture, app)
        let other = try fixture.open("other")
        try other.deleteRows(ids: [ids[10]])
        let state = try UndoTests.state(app)
        #expect(
            Self.refusal { try app.undo() }
                == "row #\(ids[10].rawValue), one of the 5000 rows it inserted, was deleted since (the others cannot be checked against what it inserted)")
        #expect(try UndoTests.state(app) == state)
        // Every one deleted: nothing left to take back, so the undo passes over it to the one before.
        try app.renameSection(at: 1, to: "renamed")
        try app.undo()
        try other.deleteRows(ids: Array(ids[0..<10] + ids[11...]))
        #expect(throws: ListStoreError.nothingToUndo(author: "app")) { try app.undo() }
    }

    /// A record written the old way (format 1: every row's values) still undoes, and still refuses a changed row.
    @Test(arguments: [false, true]) func aFormatOneRecordStillUndoes(changed: Bool) throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        let (before, _, ids) = try Self.inserted(fixture, app)
        let entry = try #require(try app.nextUndo()?.entry)
        let section = try app.section(at: 0).id.rawValue
        let rows = zip(ids, Self.newRows()).map { id, row in
            #"{"id":\#(id.rawValue),"payload":\#(row.payload.map { "\"\($0.replacingOccurrences(of: "\"", with: "\\\""))\"" } ?? "null"),"title":"\#(row.title)"}"#
        }
        let v1 = #"{"steps":[{"kind":"rows-inserted","rows":[\#(rows.joined(separator: ","))],"section":\#(section)}],"v":1}"#
        let hand = try Connection(path: fixture.path, mode: .readWrite)
        try hand.cached("UPDATE liststore_history SET record = ?1 WHERE id = ?2").bind([.text(v1), .integer(entry)]).run()
        if changed {
            try hand.executeScript("UPDATE rows SET title = 'by hand' WHERE id = \(ids[7].rawValue)")
            let state = try UndoTests.state(app)
            #expect(Self.refusal { try app.undo() } == #"row #\#(ids[7].rawValue) was changed since (its title is now "by hand")"#)
            #expect(try UndoTests.state(app) == state)
        } else {
            try app.undo()
            #expect(try UndoTests.state(app) == before)
            try app.redo()
            #expect(try app.snapshot().sections[0].rows.map(\.id)[2..<(2 + Self.count)] == ids[...])
        }
    }

    /// Up to 16 rows an insert keeps with their values, as format 1 did: a changed one is named.
    @Test func aSmallInsertNamesTheChangedRow() throws {
        let fixture = try Fixture()
        let app = try fixture.open("app")
        try UndoTests.seeded(app)
        let (ids, _) = try app.insertRows((0..<16).map { NewRow(title: "small \($0)") }, intoSection: 1)
        try fixture.open("other").updateRow(id: ids[5], title: "theirs")
        #expect(Self.refusal { try app.undo() } == #"row #\#(ids[5].rawValue) was changed since (its title is now "theirs")"#)
    }
}
