import Foundation
import ListStoreMigrations
import SQLiteLayer
import Testing

@testable import ListStore

/// Opening: creation, migration, recognition of files that are not ours (left untouched).
@Suite struct OpeningTests {
    @Test func aNewFileIsCreatedMigratedAndReopened() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("new.sqlite")
        do {
            let store = try ListStore.open(at: path)
            try store.insertSection(title: "Inbox")
            try store.insertRows(["one", "two"], intoSection: 0)
        }
        let reopened = try ListStore.open(at: path)
        #expect(try reopened.snapshot().titles == [["one", "two"]])
        let readOnly = try ListStore.open(at: path, mode: .readOnly)
        #expect(try readOnly.rowCount(inSection: 0) == 2)
        #expect(throws: ListStoreError.openedForReading(path: path)) { try readOnly.insertRow("three", intoSection: 0) }
        #expect(try reopened.rowCount(inSection: 0) == 2)
    }

    @Test func theFileCarriesOurApplicationIDVersionAndPragmas() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("ids.sqlite")
        _ = try ListStore.open(at: path)
        let connection = try Connection(path: path, mode: .readOnly)
        #expect(try connection.scalarInt("PRAGMA application_id") == Int(Schema.applicationID))
        #expect(Schema.applicationID == 1_281_979_252, "TheFile.md documents this number")
        #expect(try connection.scalarInt("PRAGMA user_version") == Schema.migrator.latestVersion)
        #expect(try connection.scalarText("PRAGMA journal_mode") == "wal")
        let objects = try connection.cached("SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_autoindex%'").bind([]).map { $0.text(0) }
        #expect(
            Set(objects) == [
                "sections", "rows", "list_rows", "sqlite_sequence", "lists", "lists_logged_changes", "lists_logged_deletes",
                "row_blocks", "row_pages", "sections_given_blocks", "sections_blocks_follow_ids", "sections_blocks_deleted",
                "rows_counted_on_insert", "rows_counted_on_delete", "rows_counted_on_move",
                "sections_counted_on_insert", "sections_counted_on_delete", "sections_counted_on_list_change",
                "row_blocks_logged_changes", "row_blocks_logged_inserts", "row_blocks_logged_deletes",
                "row_pages_logged_changes", "row_pages_logged_inserts", "row_pages_logged_deletes",
                "liststore_state", "liststore_log", "rows_logged_content", "rows_logged_moves", "rows_logged_inserts",
                "rows_logged_deletes", "sections_logged_titles", "sections_logged_moves", "sections_logged_inserts",
                "sections_logged_deletes", "liststore_state_kept",
                "liststore_history", "liststore_history_rows", "liststore_history_by_author",
                "liststore_log_guarded_inserts", "liststore_log_guarded_updates",
                "liststore_payload_indexes", "liststore_payload_values", "liststore_payload_values_by_value", "liststore_payload_stale",
                "rows_payload_stale_on_insert", "rows_payload_stale_on_update", "rows_payload_stale_on_delete", "liststore_replica", "liststore_tombstones", "liststore_hand_stamp",
                "rows_stamped_by_hand",
                "sections_stamped_by_hand", "lists_stamped_by_hand", "rows_buried_by_hand", "sections_buried_by_hand", "lists_buried_by_hand",
                "rows_by_changed_stamp", "sections_by_changed_stamp", "liststore_tombstones_by_changed_stamp", "rows_without_order_key",
                "sections_without_order_key", "liststore_merged", "liststore_overwritten", "rows_overwritten_forgotten", "sections_overwritten_forgotten", "rows_moved_by_hand",
                "sections_moved_by_hand", "lists_moved_by_hand",
            ])
        #expect(try Schema.differences(in: connection, version: Schema.migrator.latestVersion).isEmpty)
    }

    @Test func aTextFileIsRefusedAndLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("notes.txt")
        try Data("just some notes\n".utf8).write(to: URL(fileURLWithPath: path))
        try expectRefusedAndUntouched(path)
    }

    @Test func anotherApplicationsDatabaseIsRefusedAndLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("other.sqlite")
        do {
            let other = try Connection(path: path, mode: .readWriteCreate)
            try other.executeScript("CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada');")
        }
        try expectRefusedAndUntouched(path)
        do {
            let tagged = try Connection(path: path, mode: .readWrite)
            try tagged.executeScript("PRAGMA application_id = 42")
        }
        try expectRefusedAndUntouched(path)
    }

    @Test func aFileFromANewerVersionIsRefusedAndLeftUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("future.sqlite")
        _ = try ListStore.open(at: path)
        do {
            let connection = try Connection(path: path, mode: .readWrite)
            try connection.executeScript("PRAGMA user_version = 99")
        }
        let before = try #require(fileBytes(path))
        #expect(throws: ListStoreError.newerSchema(path: path, fileVersion: 99, supportedVersion: Schema.migrator.latestVersion)) {
            try ListStore.open(at: path)
        }
        #expect(fileBytes(path) == before)
    }

    @Test func everyMigrationFileIsRegisteredInOrderWithoutGaps() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Migrations")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(!onDisk.isEmpty)
        #expect(MigrationFiles.all.map(\.name) == onDisk)
        #expect(Schema.migrations.map(\.version) == Array(1...onDisk.count))
        for (file, migration) in zip(onDisk, Schema.migrations) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(migration.sql == text, "\(file) compiled into the binary differs from the file")
        }
    }

    private func expectRefusedAndUntouched(_ path: String) throws {
        let before = try #require(fileBytes(path))
        var thrown: (any Error)?
        do { _ = try ListStore.open(at: path) } catch { thrown = error }
        guard case .notAListStore(let refusedPath, _)? = (thrown as? ListStoreError)?.reason else {
            Issue.record("expected notAListStore, got \(String(describing: thrown))")
            return
        }
        #expect(refusedPath == path)
        #expect(fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
