import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// A copy of a list — `cp`, `backup`, a Litestream restore, a file carried to another device — is
/// another replica from its first write on: it gives new rows, sections and lists ids of its own range,
/// so that the copies of one list never give one id to two things (schema 14, Docs/Merging.md).
@Suite struct ReplicaIdentityTests {
    /// The replica number and the ids it claimed for, read with SQLite.
    static func replica(_ path: String) throws -> (number: Int64, device: Int64?, lastID: Int64?) {
        let db = try Connection(path: path, mode: .readOnly)
        let number = try #require(try db.scalarInt("SELECT number FROM liststore_replica"))
        let device = try db.scalarInt("SELECT device FROM liststore_replica")
        let lastID = try db.scalarInt("SELECT seq FROM sqlite_sequence WHERE name = 'liststore_replica_ids'")
        return (Int64(number), device.map(Int64.init), lastID.map(Int64.init))
    }

    static func copy(_ from: String, to: String) throws {
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    /// A store with one section of three rows, closed.
    static func original(in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("phone.sqlite")
        let store = try ListStore.open(at: path)
        try store.write { tx in
            try tx.insertSection(title: "Groceries")
            _ = try tx.insertRows(["milk", "eggs", "bread"], intoSection: 0)
        }
        return path
    }

    @Test func aFileNeverCopiedGivesTheSmallIdsItAlwaysGave() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let path = try Self.original(in: directory)
        let store = try ListStore.open(at: path)
        let ids = try store.write { tx in try tx.insertRows(["tea"], intoSection: 0) }.value
        #expect(ids == [RowID(rawValue: 4)])
        let list = try store.addList(named: "Work")
        #expect(try list.write { tx in try tx.insertSection(title: "Today") }.value == SectionID(rawValue: 2))
        let replica = try Self.replica(path)
        #expect(replica.number == 0 && replica.device != nil && replica.lastID == nil)
    }

    @Test func aCopyGivesIdsOfItsOwnRangeAndTheOriginalKeepsItsOwn() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let phone = try Self.original(in: directory)
        let laptop = directory.path("laptop.sqlite")
        try Self.copy(phone, to: laptop)

        let onLaptop = try ListStore.open(at: laptop)
        let laptopRows = try onLaptop.write { tx in try tx.insertRows(["tea", "rice"], intoSection: 0) }.value
        let laptopSection = try onLaptop.write { tx in try tx.insertSection(title: "Hardware") }.value
        let laptopList = try onLaptop.addList(named: "Work")
        let number = try Self.replica(laptop).number
        #expect(number > 0 && number < ReplicaIdentity.numberLimit)
        let range = ReplicaIdentity.range(of: number)
        #expect(laptopRows.map(\.rawValue) == [range.lowerBound, range.lowerBound + 1])
        #expect(laptopSection.rawValue == range.lowerBound + 2)
        #expect(laptopList.listID == range.lowerBound + 3)
        #expect(range.upperBound < 1 << 53, "exact as a JSON double")
        // The rows the copy had keep their ids; its second write keeps its number.
        #expect(try onLaptop.rows(inSection: 0).map(\.id.rawValue) == [1, 2, 3, range.lowerBound, range.lowerBound + 1])
        _ = try onLaptop.write { tx in try tx.insertRows(["soap"], intoSection: 0) }.value
        #expect(try Self.replica(laptop).number == number)

        let onPhone = try ListStore.open(at: phone)
        #expect(try onPhone.write { tx in try tx.insertRows(["jam"], intoSection: 0) }.value == [RowID(rawValue: 4)])
        #expect(try Self.replica(phone).number == 0)
    }

    @Test func aBackupAndARenamedFile() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let phone = try Self.original(in: directory)
        let store = try ListStore.open(at: phone)
        try store.backup(to: directory.path("backup.sqlite"))
        let restored = try ListStore.open(at: directory.path("backup.sqlite"))
        let id = try #require(try restored.write { tx in try tx.insertRows(["tea"], intoSection: 0) }.value.first)
        #expect(id.rawValue >> 32 == (try Self.replica(directory.path("backup.sqlite")).number) && id.rawValue >> 32 > 0)

        // A rename is the same file: same number, same ids.
        try FileManager.default.moveItem(atPath: phone, toPath: directory.path("moved.sqlite"))
        let moved = try ListStore.open(at: directory.path("moved.sqlite"))
        #expect(try moved.write { tx in try tx.insertRows(["jam"], intoSection: 0) }.value == [RowID(rawValue: 4)])
        #expect(try Self.replica(directory.path("moved.sqlite")).number == 0)
    }

    @Test func aCopyNeverGivesAnIdTwiceNorOneAnotherProgramTook() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let phone = try Self.original(in: directory)
        let laptop = directory.path("laptop.sqlite")
        try Self.copy(phone, to: laptop)
        let store = try ListStore.open(at: laptop)
        let first = try store.write { tx in try tx.insertRows(["a", "b"], intoSection: 0) }.value
        try store.write { tx in try tx.deleteRows(ids: [first[1]]) }
        let next = try store.write { tx in try tx.insertRows(["c"], intoSection: 0) }.value
        #expect(next == [RowID(rawValue: first[1].rawValue + 1)], "the deleted row's id is not given again")

        // Another program inserts a row in the range, past what the copy gave.
        let taken = next[0].rawValue + 1
        let db = try Connection(path: laptop, mode: .readWrite)
        try db.run(
            "INSERT INTO rows (id, section_id, position, title) VALUES (?1, 1, (SELECT max(position) + 1048576 FROM rows WHERE section_id = 1), 'by hand')",
            [.integer(taken)])
        let after = try store.write { tx in try tx.insertRows(["d", "e"], intoSection: 0) }.value
        #expect(after.map(\.rawValue) == [taken + 1, taken + 2])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func undoPutsRowsBackWithTheirIdsInACopy() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let phone = try Self.original(in: directory)
        let laptop = directory.path("laptop.sqlite")
        try Self.copy(phone, to: laptop)
        let store = try ListStore.open(at: laptop)
        let added = try store.write { tx in try tx.insertRows(["a", "b"], intoSection: 0) }.value
        try store.write { tx in try tx.deleteRows(ids: [added[0], RowID(rawValue: 1)]) }
        _ = try store.undo()
        #expect(try store.rows(inSection: 0).map(\.id) == [RowID(rawValue: 1), RowID(rawValue: 2), RowID(rawValue: 3)] + added)
    }

    @Test func anImportIntoACopyKeepsGivenIdsAndGivesTheOthersFromItsRange() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let phone = try Self.original(in: directory)
        let laptop = directory.path("laptop.sqlite")
        try Self.copy(phone, to: laptop)
        let store = try ListStore.open(at: laptop)
        _ = try store.importStream(replacing: true) { importer in
            try importer.addSection(title: "S")
            try importer.addRow(id: RowID(rawValue: 7), title: "kept")
            for index in 0..<40 { try importer.addRow(title: "new \(index)") }
            try importer.addSection(id: SectionID(rawValue: 9), title: "T")
        }
        let number = try Self.replica(laptop).number
        let range = ReplicaIdentity.range(of: number)
        let ids = try store.rows(inSection: 0).map(\.id.rawValue)
        #expect(ids == [7] + (0..<40).map { range.lowerBound + 1 + Int64($0) }, "the section took the range's first id")
        #expect(try store.sections().map(\.id.rawValue) == [range.lowerBound, 9])
        #expect(try store.checkInvariants().isEmpty)
    }

    @Test func aNumberIsNeverOneWhoseRangeTheFileAlreadyUses() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let phone = try Self.original(in: directory)
        let laptop = directory.path("laptop.sqlite")
        try Self.copy(phone, to: laptop)
        // The copy's first draw would be 5 and then 6; ids of both ranges are in the file already.
        let db = try Connection(path: laptop, mode: .readWrite)
        try db.run("UPDATE rows SET id = ?1 WHERE id = 1", [.integer(ReplicaIdentity.range(of: 5).lowerBound + 9)])
        try db.run("UPDATE sections SET id = ?1 WHERE id = 1", [.integer(ReplicaIdentity.range(of: 6).upperBound)])
        try db.transaction {
            try ReplicaIdentity.claim(db, drawing: { 5 })
        }
        #expect(try Self.replica(laptop).number == 7)
    }

    @Test func aCopyWhoseRangeIsUsedUpTakesANewNumber() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let phone = try Self.original(in: directory)
        let laptop = directory.path("laptop.sqlite")
        try Self.copy(phone, to: laptop)
        let store = try ListStore.open(at: laptop)
        _ = try store.write { tx in try tx.insertRows(["a"], intoSection: 0) }.value
        let number = try Self.replica(laptop).number
        let db = try Connection(path: laptop, mode: .readWrite)
        try db.run("UPDATE sqlite_sequence SET seq = ?1 WHERE name = 'liststore_replica_ids'", [.integer(ReplicaIdentity.range(of: number).upperBound)])
        let id = try #require(try store.write { tx in try tx.insertRows(["b"], intoSection: 0) }.value.first)
        let renumbered = try Self.replica(laptop).number
        #expect(renumbered != number && id.rawValue == ReplicaIdentity.range(of: renumbered).lowerBound)
    }

    @Test func aFileWhoseReplicaRowWasDeletedByHandTakesANewNumber() throws {
        let directory = try TemporaryDirectory(prefix: "replica")
        let phone = try Self.original(in: directory)
        try Connection(path: phone, mode: .readWrite).run("DELETE FROM liststore_replica")
        let store = try ListStore.open(at: phone)
        let id = try #require(try store.write { tx in try tx.insertRows(["a"], intoSection: 0) }.value.first)
        let number = try Self.replica(phone).number
        #expect(number > 0 && id.rawValue == ReplicaIdentity.range(of: number).lowerBound)
    }

    @Test func aStoreInMemoryStaysReplicaZero() throws {
        let store = try ListStore.inMemory()
        let ids = try store.write { tx in
            try tx.insertSection(title: "S")
            return try tx.insertRows(["a"], intoSection: 0)
        }.value
        #expect(ids == [RowID(rawValue: 1)])
    }
}
