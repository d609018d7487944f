import Foundation
import SQLiteLayer
import TestSupport
import Testing

@Suite struct ConnectionTests {
    func memory() throws -> Connection { try Connection(path: ":memory:", mode: .readWriteCreate) }

    @Test func valuesRoundTripThroughBindingsAndColumns() throws {
        let db = try memory()
        try db.executeScript("CREATE TABLE t (a ANY, b ANY) STRICT")
        let texts = ["", "plain", "with\u{0}nul", "長い 👩‍👩‍👧", "'; DROP TABLE t; --"]
        for text in texts { try db.run("INSERT INTO t (a, b) VALUES (?1, ?2)", [.text(text), .null]) }
        let read = try db.cached("SELECT a, b, typeof(a) FROM t ORDER BY rowid").bind([]).map { ($0.text(0), $0.optionalText(1), $0.text(2)) }
        #expect(read.map(\.0) == texts)
        #expect(read.allSatisfy { $0.1 == nil && $0.2 == "text" }, "an empty string must stay text, never NULL")
        try db.run("DELETE FROM t")
        try db.run("INSERT INTO t VALUES (?1, ?2)", [.integer(Int64.max), .real(2.5)])
        #expect(try db.cached("SELECT a, b FROM t").bind([]).first { [$0.int64(0) == Int64.max, $0.double(1) == 2.5] } == [true, true])
    }

    @Test func errorsCarryCodeMessageAndSQL() throws {
        let db = try memory()
        try db.executeScript("CREATE TABLE t (x INTEGER UNIQUE)")
        try db.run("INSERT INTO t VALUES (1)")
        let error = try #require(throws: SQLiteError.self) { try db.run("INSERT INTO t VALUES (?1)", [1]) }
        #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.primaryCode == 19)
        #expect(error.message.contains("UNIQUE constraint failed"))
        #expect(error.sql == "INSERT INTO t VALUES (?1)")
        #expect(error.description.contains("INSERT INTO t VALUES (?1)"))
        let syntax = try #require(throws: SQLiteError.self) { try db.run("SELEC 1") }
        #expect(syntax.message.contains("syntax error"))
    }

    @Test func aFailedTransactionRollsBackEverything() throws {
        let db = try memory()
        try db.executeScript("CREATE TABLE t (x INTEGER UNIQUE)")
        #expect(throws: SQLiteError.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (1)")
                try db.run("INSERT INTO t VALUES (2)")
                try db.run("INSERT INTO t VALUES (1)")
            }
        }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
        #expect(db.isAutocommit)
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES (3)")
                throw Refused()
            }
        }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 0)
        try db.transaction { try db.run("INSERT INTO t VALUES (4)") }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 1)
    }

    @Test func readTransactionsSeeOneStateAndEndWithoutCommitting() throws {
        let db = try memory()
        try db.executeScript("CREATE TABLE t (x)")
        let counts = try db.readTransaction { [try db.scalarInt("SELECT count(*) FROM t"), try db.scalarInt("SELECT count(*) FROM t")] }
        #expect(counts == [0, 0])
        #expect(db.isAutocommit)
        struct Stop: Error {}
        #expect(throws: Stop.self) { try db.readTransaction { throw Stop() } }
        #expect(db.isAutocommit)
    }

    @Test func transactionsDoNotNest() throws {
        let db = try memory()
        try db.transaction {
            #expect(throws: SQLiteError.self) { try db.transaction(.deferred) {} }
        }
        #expect(db.isAutocommit)
    }

    @Test func cachedStatementsAreReused() throws {
        let db = try memory()
        #expect(try db.cached("SELECT 1") === db.cached("SELECT 1"))
        #expect(try db.prepare("SELECT 1") !== db.cached("SELECT 1"))
    }

    /// Turning checkpoint-on-close on waits for the close: changing the connection's flags at once would
    /// expire every prepared statement. Closing then checkpoints and removes the `-wal`; turned off, it leaves it.
    @Test func checkpointOnCloseTakesEffectAtCloseWithoutRecompilingStatements() throws {
        let directory = try TemporaryDirectory(prefix: "sqlite-layer")
        for enabled in [true, false] {
            let path = directory.path("close-\(enabled).sqlite")
            do {
                let db = try Connection(path: path, mode: .readWriteCreate)
                try db.setCheckpointOnClose(false)
                try db.executeScript("PRAGMA journal_mode = WAL; CREATE TABLE t (x)")
                try db.run("INSERT INTO t VALUES (?1)", [.integer(1)])
                try db.setCheckpointOnClose(enabled)
                try db.run("INSERT INTO t VALUES (?1)", [.integer(2)])
                #expect(db.recompilations == 0)
            }
            #expect(FileManager.default.fileExists(atPath: path + "-wal") == !enabled)
            #expect(try Connection(path: path, mode: .readOnly).scalarInt("SELECT count(*) FROM t") == 2)
        }
    }

    @Test func aSecondWriterGetsBusyAfterTheTimeout() throws {
        let directory = try TemporaryDirectory(prefix: "sqlite-layer")
        let path = directory.path("busy.sqlite")
        let first = try Connection(path: path, mode: .readWriteCreate)
        try first.executeScript("PRAGMA journal_mode = WAL; CREATE TABLE t (x)")
        let second = try Connection(path: path, mode: .readWrite)
        second.setBusyTimeout(milliseconds: 50)
        try first.run("BEGIN IMMEDIATE")
        let error = try #require(throws: SQLiteError.self) { try second.transaction { try second.run("INSERT INTO t VALUES (1)") } }
        #expect(error.isBusy)
        // A reader is not blocked by the writer (WAL).
        #expect(try second.scalarInt("SELECT count(*) FROM t") == 0)
        try first.run("COMMIT")
        try second.transaction { try second.run("INSERT INTO t VALUES (1)") }
    }
}

@Suite struct MigratorTests {
    let migrations = [
        Migration(version: 1, name: "0001", sql: "CREATE TABLE a (x);"),
        Migration(version: 2, name: "0002", sql: "CREATE TABLE b (y); INSERT INTO a VALUES (1);"),
    ]

    @Test func appliesInOrderOnceAndRecordsTheVersion() throws {
        let db = try Connection(path: ":memory:", mode: .readWriteCreate)
        let migrator = Migrator(migrations: migrations, applicationID: 7)
        try migrator.migrate(db)
        try migrator.migrate(db)
        #expect(try Migrator.version(of: db) == 2)
        #expect(try db.scalarInt("PRAGMA application_id") == 7)
        #expect(try db.scalarInt("SELECT count(*) FROM a") == 1)
    }

    @Test func aFailingMigrationLeavesTheFileAtThePreviousVersion() throws {
        let db = try Connection(path: ":memory:", mode: .readWriteCreate)
        let broken = Migrator(migrations: [migrations[0], Migration(version: 2, name: "0002", sql: "CREATE TABLE c (z); SELEC oops;")], applicationID: 7)
        #expect(throws: SQLiteError.self) { try broken.migrate(db) }
        #expect(try Migrator.version(of: db) == 1)
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'c'") == 0)
    }

    @Test func validationRunsBeforeEachStepAndCanRefuse() throws {
        let db = try Connection(path: ":memory:", mode: .readWriteCreate)
        struct NotOurs: Error {}
        #expect(throws: NotOurs.self) { try Migrator(migrations: migrations, applicationID: 7).migrate(db) { _ in throw NotOurs() } }
        #expect(try db.scalarInt("SELECT count(*) FROM sqlite_schema") == 0)
    }
}
