import Foundation
import SQLiteLayer
import TestSupport
import Testing

/// ``Connection/readStamp()`` tells whether anything was committed between two reads — what a read
/// connection's memo of the counts rests on.
@Suite struct ReadStampTests {
    static func stamp(_ db: Connection) throws -> Connection.ReadStamp? {
        try db.readTransaction {
            _ = try db.scalarInt("SELECT count(*) FROM t")
            return db.readStamp()
        }
    }

    @Test func theStampChangesWithEveryCommitOfAnyConnectionAndOnlyThen() throws {
        let directory = try TemporaryDirectory(prefix: "read-stamp")
        let path = directory.path("stamp.sqlite")
        let reader = try Connection(path: path, mode: .readWriteCreate)
        try reader.executeScript("PRAGMA journal_mode = WAL; CREATE TABLE t (x)")
        let other = try Connection(path: path, mode: .readWrite)
        let first = try #require(try Self.stamp(reader))
        #expect(try Self.stamp(reader) == first, "nothing committed: the same state")
        try other.run("INSERT INTO t VALUES (1)")
        let afterOther = try #require(try Self.stamp(reader))
        #expect(afterOther != first, "another connection's commit")
        try reader.run("INSERT INTO t VALUES (2)")
        let afterOwn = try #require(try Self.stamp(reader))
        #expect(afterOwn != afterOther, "this connection's own commit")
        try Connection(path: path, mode: .readWrite).executeScript("UPDATE t SET x = x + 1")
        #expect(try Self.stamp(reader) != afterOwn, "a hand edit through a connection opened for it")
    }

    @Test func aStatementInAutocommitHasTheStampOfWhatItReadsWhileItReads() throws {
        let directory = try TemporaryDirectory(prefix: "read-stamp")
        let path = directory.path("stamp.sqlite")
        let reader = try Connection(path: path, mode: .readWriteCreate)
        try reader.executeScript("PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1), (2)")
        let inTransaction = try #require(try Self.stamp(reader))
        #expect(reader.readStamp() == nil, "outside any transaction and statement")
        var whileReading: [Connection.ReadStamp?] = []
        try reader.cached("SELECT x FROM t").bind([]).forEachRow { _ in whileReading.append(reader.readStamp()) }
        #expect(whileReading == [inTransaction, inTransaction])
        #expect(reader.readStamp() == nil, "the statement reset: its read ended")
        try Connection(path: path, mode: .readWrite).run("INSERT INTO t VALUES (3)")
        whileReading = []
        try reader.cached("SELECT x FROM t").bind([]).forEachRow { _ in whileReading.append(reader.readStamp()) }
        #expect(whileReading.count == 3 && whileReading.allSatisfy { $0 != nil && $0 != inTransaction })
        #expect(try reader.transaction { reader.readStamp() } == nil, "a write transaction has no stamp")
    }
}
