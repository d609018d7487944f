import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// Damaged and hostile files, a full disk, readers during a write, check, repair and backup.
@Suite struct ReliabilityTests {
    /// A closed store file with two sections and enough rows to span several pages.
    func makeFile(_ directory: TemporaryDirectory, _ name: String = "store.sqlite") throws -> String {
        let path = directory.path(name)
        let store = try ListStore.open(at: path)
        try store.insertSection(title: "A")
        try store.insertSection(title: "B")
        try store.insertRows((0..<2_000).map { NewRow(title: "row \($0) " + String(repeating: "x", count: 40)) }, intoSection: 0)
        try store.insertRows(["b0", "b1"], intoSection: 1)
        return path
    }

    func expectRefused(_ path: String, _ matches: (ListStoreError) -> Bool) throws {
        let before = try #require(fileBytes(path))
        for mode in [ListStore.AccessMode.readWrite, .readOnly] {
            do {
                let store = try ListStore.open(at: path, mode: mode)
                _ = try store.snapshot()
                try store.insertRow("x", intoSection: 0)
                Issue.record("\(mode): expected a refusal")
            } catch let error as ListStoreError {
                #expect(matches(error), "\(mode): \(error)")
                #expect(!error.description.contains("\n"))
            }
        }
        #expect(fileBytes(path) == before, "the file must be left byte-for-byte as it was")
    }

    @Test func aTruncatedFileIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(directory)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size / 2)
        try handle.close()
        try expectRefused(path) { if case .corrupt(let detail) = $0.reason { return detail.contains("truncated") } else { return false } }
    }

    @Test func aCorruptedPageIsRefusedUntouchedAndReportedByCheck() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(directory)
        let root = try Connection(path: path, mode: .readOnly).scalarInt("SELECT rootpage FROM sqlite_schema WHERE name = 'rows'") ?? 0
        let pageSize = try Connection(path: path, mode: .readOnly).scalarInt("PRAGMA page_size") ?? 4096
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.seek(toOffset: UInt64((root - 1) * pageSize))
        handle.write(Data(repeating: 0xA5, count: 64))
        try handle.close()
        try expectRefused(path) { if case .corrupt = $0.reason { return true } else { return false } }
        let inspected = try ListStore.open(at: path, mode: .inspect)
        #expect(try inspected.checkInvariants().first?.description.hasPrefix("integrity_check:") == true)
    }

    @Test func aHandAlteredSchemaIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        for (name, sql) in [
            ("trigger", "CREATE TRIGGER sneaky AFTER INSERT ON rows BEGIN DELETE FROM rows; END"),
            ("view", "DROP VIEW list_rows; CREATE VIEW list_rows AS SELECT 1"),
            ("dropped", "DROP TRIGGER rows_counted_on_insert"),
            ("index", "CREATE UNIQUE INDEX by_title ON rows (title)"),
        ] {
            let path = try makeFile(directory, "\(name).sqlite")
            do {
                let shell = try Connection(path: path, mode: .readWrite)
                try shell.executeScript(sql)
            }
            try expectRefused(path) { if case .schemaAltered = $0.reason { return true } else { return false } }
            let problems = try ListStore.open(at: path, mode: .inspect).checkInvariants()
            #expect(problems.contains { $0.description.hasPrefix("schema: ") }, "\(name): \(problems)")
        }
    }

    @Test func aFullDiskFailsTheWriteAndKeepsTheOldData() throws {
        let directory = try TemporaryDirectory()
        let store = try ListStore.open(at: try makeFile(directory))
        let before = try store.snapshot()
        let pages = try store.withLockedConnection { try $0.scalarInt("PRAGMA page_count") ?? 0 }
        try store.withLockedConnection { try $0.run("PRAGMA max_page_count = \(pages + 2)") }
        let big = (0..<5_000).map { NewRow(title: "filler \($0) " + String(repeating: "y", count: 200)) }
        #expect { try store.insertRows(big, intoSection: 1, at: 0) } throws: { error in
            guard case .full = (error as? ListStoreError)?.reason else { return false }
            return (error as? ListStoreError)?.description.contains("nothing was changed") == true
        }
        #expect(try store.snapshot() == before)
        #expect(try store.checkInvariants().isEmpty)
        try store.withLockedConnection { try $0.run("PRAGMA max_page_count = 1073741823") }
        try store.insertRows(big, intoSection: 1, at: 0)
        #expect(try store.rowCount(inSection: 1) == 5_002)
    }

    @Test func aWriterThatCannotGetTheLockFailsClearlyAfterTheBusyTimeout() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(directory)
        let store = try ListStore.open(at: path, busyTimeout: 100)
        let before = try store.snapshot()
        let other = try Connection(path: path, mode: .readWrite)
        try other.run("BEGIN IMMEDIATE")
        let started = Date()
        #expect { try store.insertRow("late", intoSection: 1) } throws: { error in
            guard case .busy = (error as? ListStoreError)?.reason else { return false }
            return "\(error)".hasPrefix("database is busy") && "\(error)".contains("nothing was changed — try again")
        }
        #expect(Date().timeIntervalSince(started) >= 0.09, "it waits for the busy timeout first")
        try other.run("ROLLBACK")
        #expect(try store.snapshot() == before)
        try store.insertRow("now", intoSection: 1)
    }

    @Test func readersAreNotBlockedByAWriter() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(directory)
        // A busy timeout of 1 ms: a read that had to wait for the writer's lock would fail with `.busy`
        // at once, so succeeding proves it did not wait — without timing the read on a loaded machine.
        let store = try ListStore.open(at: path, busyTimeout: 1)
        let writer = try Connection(path: path, mode: .readWrite)
        try writer.run("BEGIN IMMEDIATE")
        try writer.run("UPDATE rows SET title = 'changed' WHERE position = 0")
        let snapshot = try store.snapshot()
        #expect(snapshot.sections[0].rows[0].title.hasPrefix("row 0"), "a read sees the last commit, not the writer's transaction")
        #expect(try store.checkInvariants().isEmpty)
        // The same store does wait for (and here fail on) the write lock: the 1 ms timeout is in force.
        #expect { try store.insertRow("blocked", intoSection: 1) } throws: { error in
            if case .busy = (error as? ListStoreError)?.reason { return true } else { return false }
        }
        try writer.run("ROLLBACK")
    }

    @Test func repairRenumbersHandDamageKeepingTheOrder() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("repair.sqlite")
        let store = try ListStore.open(at: path)
        for title in ["A", "B", "C"] { try store.insertSection(title: title) }
        try store.insertRows(["a0", "a1", "a2", "a3"], intoSection: 0)
        try store.insertRows(["b0", "b1"], intoSection: 1, at: 0)
        try store.insertRow("b-head", intoSection: 1, at: 0)
        do {
            let shell = try Connection(path: path, mode: .readWrite)
            // A row deleted and one moved within its gap by hand are legitimate (the triggers count them);
            // A's count, B's block count and C's position are damage.
            try shell.executeScript(
                """
                DELETE FROM rows WHERE title = 'a1';
                UPDATE rows SET position = position + 100 WHERE title = 'b1';
                UPDATE sections SET row_count = 99 WHERE title = 'A';
                UPDATE row_blocks SET row_count = row_count + 1 WHERE section_id = (SELECT id FROM sections WHERE title = 'B');
                UPDATE sections SET position = 7 WHERE title = 'C';
                """)
        }
        let damaged = try store.scannedTitles()
        #expect(try store.checkInvariants().count == 3)
        #expect(throws: ListStoreError.sectionOrderDamaged(sectionCount: 3, lowest: 0, highest: 7)) { try store.insertRow("x", intoSection: 0) }
        #expect(throws: ListStoreError.sectionOrderDamaged(sectionCount: 3, lowest: 0, highest: 7)) { try store.snapshot() }
        let report = try store.repair()
        // The three, and the order keys the hand moves took away (schema 16) given back where the rows stand.
        #expect(report.fixes.count == 5, "\(report.fixes)")
        #expect(report.fixes.filter { $0.contains("order keys where they stand") }.count == 2, "\(report.fixes)")
        #expect(report.changes.isEmpty, "order is kept, so a table view sees no change")
        #expect(try store.snapshot().titles == damaged)
        #expect(try store.checkInvariants().isEmpty)
        try store.insertRow("a-new", intoSection: 0, at: 1)
        #expect(try store.snapshot().titles[0] == ["a0", "a-new", "a2", "a3"])
        #expect(try store.repair().fixes.isEmpty)
    }

    @Test func repairRefusesADamagedFile() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(directory)
        let store = try ListStore.open(at: path)
        let pages = try store.withLockedConnection { try $0.scalarInt("PRAGMA page_count") ?? 0 }
        let pageSize = try store.withLockedConnection { try $0.scalarInt("PRAGMA page_size") ?? 4096 }
        let file = try #require(FileHandle(forUpdatingAtPath: path))
        for page in stride(from: pages / 3, to: 2 * pages / 3, by: 1) {  // the middle third: the rows' leaf pages
            try file.seek(toOffset: UInt64(page * pageSize))
            file.write(Data(repeating: 0x5A, count: 64))
        }
        try file.close()
        // Refused by its integrity check, or before it when the write's first read (which replica the file is)
        // already meets a damaged page: either way the error says the file is damaged and how to recover it.
        #expect { try store.repair() } throws: { error in
            guard case .corrupt = (error as? ListStoreError)?.reason else { return false }
            return (error as? ListStoreError)?.description.contains(".recover") == true
        }
    }

    @Test func backupIsAConsistentCopyEvenDuringAWrite() throws {
        let directory = try TemporaryDirectory()
        let path = try makeFile(directory)
        let store = try ListStore.open(at: path)
        let committed = try store.snapshot()
        let writer = try Connection(path: path, mode: .readWrite)
        try writer.run("BEGIN IMMEDIATE")
        try writer.run("DELETE FROM rows")
        let copy = directory.path("backup.sqlite")
        try store.backup(to: copy)
        try writer.run("ROLLBACK")
        let restored = try ListStore.open(at: copy)
        #expect(try restored.snapshot() == committed)
        #expect(try restored.checkInvariants().isEmpty)
        #expect(throws: ListStoreError.self) { try store.backup(to: copy) }
        // A store opened for reading can be backed up, and still refuses writes afterwards.
        let reader = try ListStore.open(at: path, mode: .readOnly)
        try reader.backup(to: directory.path("second.sqlite"))
        #expect(try ListStore.open(at: directory.path("second.sqlite")).snapshot() == committed)
        #expect(throws: ListStoreError.openedForReading(path: path)) { try reader.insertRow("x", intoSection: 0) }
    }
}
