import Foundation
import SQLiteLayer
import TestSupport
import Testing

/// The VFS a connection that may write opens its file with (`Sources/CWALWrites`) gathers the -wal's
/// writes into large ones. What it must never change is what anyone reads: a commit is whole in the
/// file before another connection or process can see it, and the -wal a crash leaves holds exactly the
/// committed transactions, every frame in its place with its checksum — including frames SQLite spilled
/// before the commit and frames it wrote again in place within the transaction. A crash is stood in for
/// by copying the database and its -wal (not the -shm) while the writer still has them open: opening the
/// copy rebuilds the index from the -wal's frames, checking each one, as after a crash.
@Suite struct WALWritesTests {
    /// A writer in WAL mode as ListStore runs one (`synchronous = NORMAL`: no sync at a commit, which
    /// would write the gathered frames out anyway) that never checkpoints by itself (so the -wal keeps
    /// every frame).
    static func writer(_ path: String, cachePages: Int = 2_000) throws -> Connection {
        let db = try Connection(path: path, mode: .readWriteCreate)
        try db.executeScript("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; PRAGMA cache_size = \(cachePages)")
        try db.executeScript("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, body BLOB NOT NULL, note TEXT NOT NULL)")
        return db
    }

    /// `count` rows of 300 bytes each from `first`, in one transaction.
    static func insert(_ db: Connection, from first: Int, count: Int) throws {
        try db.transaction(.immediate) {
            for id in first..<(first + count) {
                try db.run("INSERT INTO t (id, body, note) VALUES (?1, randomblob(300), ?2)", [.int(id), .text("row \(id)")])
            }
        }
    }

    /// The rows' count and a digest of their contents.
    static func contents(_ db: Connection) throws -> [Int] {
        try db.cached("SELECT count(*), coalesce(sum(length(body)), 0), coalesce(sum(id), 0), coalesce(sum(length(note)), 0) FROM t").bind([])
            .first { [$0.int(0), $0.int(1), $0.int(2), $0.int(3)] } ?? []
    }

    /// What a crash right now would leave, opened as the next process would open it.
    static func afterCrash(_ path: String, in directory: TemporaryDirectory) throws -> Connection {
        let copy = directory.path("crashed-\(UUID().uuidString).sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        return try Connection(path: copy, mode: .readOnly)
    }

    @Test func aWriterUsesTheVFSAndAReaderTheDefaultOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vfs.sqlite")
        let db = try Self.writer(path)
        #expect(db.vfsNames()?.hasPrefix("liststore-wal-writes/") == true, "\(db.vfsNames() ?? "none")")
        let reader = try Connection(path: path, mode: .readOnly)
        #expect(reader.vfsNames()?.contains("liststore-wal-writes") == false, "\(reader.vfsNames() ?? "none")")
    }

    @Test func aLargeCommitIsWholeForAnotherConnectionAndAfterACrash() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("large.sqlite")
        let db = try Self.writer(path)
        let reader = try Connection(path: path, mode: .readOnly)
        for round in 0..<3 {
            try Self.insert(db, from: round * 4_000, count: 4_000)  // about 400 pages a commit
            let written = try Self.contents(db)
            #expect(written[0] == (round + 1) * 4_000)
            #expect(try Self.contents(reader) == written, "another connection reads the whole commit at once")
            let crashed = try Self.afterCrash(path, in: directory)
            #expect(try Self.contents(crashed) == written, "the -wal holds every committed frame")
            #expect(try crashed.scalarText("PRAGMA integrity_check") == "ok")
        }
        #expect(try Self.sqliteShell(path, "SELECT count(*) FROM t;") == "12000", "another process reads it too")
    }

    /// A transaction larger than the page cache spills pages to the -wal before it commits, then writes
    /// some of them again in place; one that is rolled back after spilling leaves nothing.
    @Test func spilledAndRewrittenFramesAndARollbackLeaveExactlyTheCommits() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("spill.sqlite")
        let db = try Self.writer(path, cachePages: 16)
        try Self.insert(db, from: 0, count: 3_000)
        try db.transaction(.immediate) {
            try db.run("UPDATE t SET note = note || ' again', body = randomblob(200) WHERE id % 3 = 0")
            try db.run("UPDATE t SET note = note || ' and again' WHERE id % 6 = 0")
            try db.run("INSERT INTO t (id, body, note) SELECT id + 100000, body, note FROM t WHERE id < 1500")
        }
        let committed = try Self.contents(db)
        #expect(committed[0] == 4_500)
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try db.transaction(.immediate) {
                try db.run("INSERT INTO t (id, body, note) SELECT id + 200000, randomblob(500), note FROM t")
                throw Abandoned()
            }
        }
        #expect(try Self.contents(db) == committed)
        let reader = try Connection(path: path, mode: .readOnly)
        #expect(try Self.contents(reader) == committed)
        let crashed = try Self.afterCrash(path, in: directory)
        #expect(try Self.contents(crashed) == committed)
        #expect(try crashed.scalarText("PRAGMA integrity_check") == "ok")
        // And the next commit after the rollback (its frames written over the abandoned ones).
        try Self.insert(db, from: 300_000, count: 500)
        let next = try Self.contents(db)
        #expect(try Self.contents(Self.afterCrash(path, in: directory)) == next)
    }

    /// A checkpoint copies the gathered frames into the database file like any others.
    @Test func aCheckpointCopiesTheGatheredFrames() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("checkpoint.sqlite")
        let db = try Self.writer(path)
        try Self.insert(db, from: 0, count: 5_000)
        let written = try Self.contents(db)
        try db.executeScript("PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? -1) == 0)
        let copy = directory.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(try Self.contents(Connection(path: copy, mode: .readOnly)) == written)
    }

    /// `sqlite3 PATH SQL`'s output, trimmed.
    static func sqliteShell(_ path: String, _ sql: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", path, sql]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
