import Foundation
import ListStoreMigrations
import SQLiteLayer
import Testing

@testable import ListStore

/// The oldest SQLite the library supports: iOS 17's system SQLite is 3.39.5; the nearest build that can
/// be had here is the one PyPI's `apsw` 3.39.4.0 wheel carries (3.39.4 and 3.39.5 differ by bug fixes only).
enum OldestSQLite {
    static let version = "3.39.4"
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Where `.ci/run` installs the wheel (`pip install --target`).
    static let apswFolder = root.appendingPathComponent(".build/tools/sqlite-\(version)")
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: apswFolder.appendingPathComponent("apsw").path) }
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
}

/// Every migration and every statement the library prepares compiles on the oldest SQLite it supports
/// (VersionsAndPlatforms.md, "SQLite"): a query or migration that needs a newer SQLite fails this test.
@Suite(.enabled(if: OldestSQLite.isInstalled || OldestSQLite.inCI, "apsw \(OldestSQLite.version) is not installed: run .ci/run"))
struct SQLiteCompatibilityTests {
    @Test func everyStatementTheLibraryRunsCompilesOnTheOldestSupportedSQLite() async throws {
        try #require(OldestSQLite.isInstalled, "apsw \(OldestSQLite.version) is missing from \(OldestSQLite.apswFolder.path): .ci/run installs it")
        let directory = try TemporaryDirectory()
        StatementRecorder.start(folder: directory.url.path)
        let recorded: Set<StatementRecorder.Recorded>
        do {
            defer { StatementRecorder.stop(folder: directory.url.path) }
            try await Self.runEveryKindOfStatement(in: directory)
            recorded = StatementRecorder.stop(folder: directory.url.path)
        }
        #expect(recorded.count > 80, "the workload should reach most of the library's SQL; it recorded \(recorded.count) statements")
        let statementsFile = directory.url.appendingPathComponent("statements.json")
        let entries = recorded.sorted { $0.sql < $1.sql }.map { ["sql": $0.sql, "parameterCount": $0.parameterCount] as [String: Any] }
        try JSONSerialization.data(withJSONObject: entries).write(to: statementsFile)

        let (status, text) = try Self.check(statementsFile)
        #expect(status == 0, "on SQLite \(OldestSQLite.version):\n\(text)")
        #expect(text.contains("\(recorded.count) statements checked on SQLite \(OldestSQLite.version): 0 failed"), "\(text)")
    }

    /// The checker itself fails on SQL this SQLite cannot compile (`unhex` arrived in 3.41.0).
    @Test func theCheckerRefusesSQLThatNeedsANewerSQLite() throws {
        try #require(OldestSQLite.isInstalled, "apsw \(OldestSQLite.version) is missing from \(OldestSQLite.apswFolder.path): .ci/run installs it")
        let directory = try TemporaryDirectory()
        let statementsFile = directory.url.appendingPathComponent("statements.json")
        try Data(#"[{"sql": "SELECT count(*) FROM rows", "parameterCount": 0}, {"sql": "SELECT unhex(?1) FROM rows", "parameterCount": 1}]"#.utf8).write(to: statementsFile)
        let (status, text) = try Self.check(statementsFile)
        #expect(status == 1)
        #expect(text.contains("SELECT unhex(?1) FROM rows: SQLError: no such function: unhex"), "\(text)")
        #expect(text.contains("2 statements checked on SQLite \(OldestSQLite.version): 1 failed"), "\(text)")
    }

    /// Runs `Tests/SQLiteCompatibility/prepare_all.py` on the statements in `statementsFile`.
    static func check(_ statementsFile: URL) throws -> (status: Int32, output: String) {
        let checker = Process()
        checker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        checker.arguments = [
            "python3", OldestSQLite.root.appendingPathComponent("Tests/SQLiteCompatibility/prepare_all.py").path,
            OldestSQLite.root.appendingPathComponent("Migrations").path, statementsFile.path, OldestSQLite.version,
        ]
        checker.environment = ProcessInfo.processInfo.environment.merging(["PYTHONPATH": OldestSQLite.apswFolder.path]) { _, new in new }
        let output = Pipe()
        checker.standardOutput = output
        checker.standardError = output
        try checker.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        checker.waitUntilExit()
        return (checker.terminationStatus, text)
    }

    /// Reaches every kind of statement: creation and migration from each older schema, every edit,
    /// reads, scans, observation of another connection's and a hand edit, import, check, repair, backup.
    static func runEveryKindOfStatement(in directory: TemporaryDirectory) async throws {
        let (store, path, first) = try edit(in: directory)
        try await observe(store, path: path)
        try maintain(store, path: path, first: first, in: directory)
    }

    /// Older schemas migrated, then every kind of edit and read (synchronous: in an `async` function
    /// the store's `async` overloads would be chosen).
    static func edit(in directory: TemporaryDirectory) throws -> (ListStore, String, RowID) {
        for version in 1..<Schema.migrator.latestVersion {
            let path = directory.path("v\(version).sqlite")
            let db = try Connection(path: path, mode: .readWriteCreate)
            try db.executeScript("PRAGMA journal_mode = WAL")
            try Migrator(migrations: Array(Schema.migrations.prefix(version)), applicationID: Schema.applicationID).migrate(db)
            try db.executeScript("INSERT INTO sections (position, title) VALUES (0, 'Roles'); INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'Barbarian')")
            let old = try ListStore.open(at: path)
            try old.insertRow("Wizard", intoSection: 0)
            _ = try old.checkInvariants()
        }

        let path = directory.path("store.sqlite")
        let store = try ListStore.open(at: path)
        let inbox = try store.write { tx in
            let inbox = try tx.insertSection(title: "Inbox")
            _ = try tx.insertSection(title: "Later", at: 0)
            try tx.insertRows(["Invoice", "Lunch?", "Invoice", NewRow(title: "Trip", payload: #"{"days":3}"#)], intoSection: inbox)
        }.changes
        _ = inbox
        try store.appendRowToEverySection("New item")
        try store.insertRows(["a", "b", "c"], intoSection: 1, at: 1)
        let first = try store.row(at: ListIndexPath(section: 1, row: 0)).id
        let second = try store.row(at: ListIndexPath(section: 1, row: 1)).id
        try store.write { tx in
            try tx.insertRows(["before"], before: first)
            try tx.insertRows(["after"], after: first)
            try tx.moveRow(id: second, before: first)
            try tx.moveRow(id: second, after: first)
            try tx.moveRow(id: second, to: ListIndexPath(section: 0, row: 0))
            try tx.moveRow(id: second, toSection: try tx.section(at: 1).id, at: 2)
            try tx.updateRow(id: second, title: "renamed", payload: .set(#"{"x":1}"#))
            try tx.updateRow(at: ListIndexPath(section: 1, row: 0), payload: .remove)
            _ = try tx.totalRowCount()
        }
        try store.moveRow(from: ListIndexPath(section: 1, row: 5), to: ListIndexPath(section: 1, row: 1))
        try store.moveRow(from: ListIndexPath(section: 1, row: 1), to: ListIndexPath(section: 0, row: 0))
        try store.renameSection(at: 0, to: "Someday")
        try store.moveSection(from: 0, to: 1)
        let extra = try store.write { tx in try tx.insertSection(title: "Extra") }.changes
        _ = extra
        try store.deleteRows(at: [ListIndexPath(section: 0, row: 0), ListIndexPath(section: 0, row: 2)])
        try store.deleteRows(ids: [try store.row(at: ListIndexPath(section: 1, row: 0)).id])
        var selection = ListSelection()
        selection.toggle(try store.row(at: ListIndexPath(section: 0, row: 0)).id)
        _ = try selection.indexPaths(in: store)
        try selection.deleteSelected(in: store)
        try store.deleteSections(at: [2])
        // Undo and redo (schema 8): a section back with its rows, deleted again, the history listed.
        try store.undo()
        try store.redo()
        _ = try store.nextUndo()
        _ = try store.history()
        try store.undo()
        try store.deleteSections(at: [2])

        _ = try store.sections()
        _ = try store.snapshot()
        _ = try store.snapshot(ofSection: 0)
        _ = try store.rows(inSection: 1, range: 0..<2)
        _ = try store.indexPath(of: try store.row(at: ListIndexPath(section: 0, row: 0)).id)
        _ = try store.index(of: try store.section(at: 0).id)
        _ = try store.rowCount(inSection: 0)
        try store.scan { _ in }
        try store.scan(section: 1) { _ in }
        _ = try store.read { reader in try reader.sectionCount() }
        return (store, path, first)
    }

    static func observe(_ store: ListStore, path: String) async throws {
        // Observation: own commits, another connection's commit, then a hand edit (a reset).
        var updates = store.observe().makeAsyncIterator()
        _ = try await nextElement(&updates)
        let other = try ListStore.open(at: path)
        try other.insertRow("from elsewhere", intoSection: 0)
        try store.deliverChangesFromOtherConnections()
        _ = try await nextElement(&updates)
        let shell = try Connection(path: path, mode: .readWrite)
        try shell.executeScript("UPDATE rows SET title = 'by hand' WHERE id = (SELECT min(id) FROM rows)")
        try shell.executeScript("DELETE FROM rows WHERE id = (SELECT max(id) FROM rows)")
        try store.deliverChangesFromOtherConnections()
        _ = try await nextElement(&updates)
    }

    static func maintain(_ store: ListStore, path: String, first: RowID, in directory: TemporaryDirectory) throws {
        let shell = try Connection(path: path, mode: .readWrite)
        try store.importDocument(ListDocument(sections: [.init(title: "Imported", rows: [.init(title: "one"), .init(title: "two", payload: "[1]")])]), replacing: true)
        _ = try store.importStream(replacing: true) { importer in
            try importer.addSection(title: "Streamed")
            try importer.addRow(title: "row")
        }
        try store.write(tracksChanges: false) { tx in try tx.insertRow("untracked", intoSection: 0) }

        _ = try store.checkInvariants()
        _ = try store.fileSchemaVersion()
        try store.backup(to: directory.path("backup.sqlite"))
        // Damage by hand that repair fixes: a block that counts a row it does not hold.
        try shell.executeScript("UPDATE row_blocks SET row_count = row_count + 1 WHERE section_id = (SELECT section_id FROM rows WHERE id = (SELECT max(id) FROM rows))")
        _ = try store.checkInvariants()
        _ = try store.repair()
        _ = try ListStore.open(at: path, mode: .readOnly).snapshot()
        _ = try ListStore.open(at: path, mode: .inspect).checkInvariants()
    }
}
