import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// The migration that gives every list its recorded section count (schema 12, `0012_section_counts.sql`)
/// commits with the first write: a SIGKILL at any moment of `liststore section add new --at 0` on a
/// schema-11 file of three lists and 60,000 sections — the sections counted into `lists.section_count`,
/// the counting triggers made, then every section of the default list shifted for the new one, in one
/// transaction — leaves the file at schema 11 as it was, or at 12 (or later, when newer migrations run
/// in the same write) with every list's count right and the new section first; `check` passes either way.
@Suite struct SectionCountsMigrationKillTests {
    static let earlier = 11
    static let latest = Schema.migrator.latestVersion
    /// Sections of each list in the schema-11 file (the default list has one more, made with its rows).
    static let sections: [Int64: Int] = [1: 30_001, 2: 20_000, 3: 10_000]

    /// A schema-11 file: lists 1 (default), 2 and 3 with `sections` sections, 100 rows in the first.
    static func makeFile(_ path: String) throws {
        try ChangeLogMigrationTests.makeFile(path, version: earlier, rows: 100)
        try Connection(path: path, mode: .readWrite).executeScript(
            """
            BEGIN;
            INSERT INTO lists (id, name, position) VALUES (2, 'second', 1), (3, 'third', 2);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000)
            INSERT INTO sections (list_id, position, title) SELECT 1, i, 'd' || i FROM n;
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 19999)
            INSERT INTO sections (list_id, position, title) SELECT 2, i, 's' || i FROM n;
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999)
            INSERT INTO sections (list_id, position, title) SELECT 3, i, 't' || i FROM n;
            COMMIT;
            """)
    }

    @Test func aKillDuringTheMigratingFirstWriteLeavesTheFileBeforeOrAfter() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let pristine = cli.directory.appendingPathComponent("v\(Self.earlier).sqlite").path
        try Self.makeFile(pristine)
        let kills = MigrationKills(
            binary: binary, database: cli.database, pristine: try #require(fileBytes(pristine)), arguments: ["section", "add", "new", "--at", "0"],
            seed: 12_012)
        let tally = try kills.run(attempts: 60, enoughKills: 15, needsAfter: true) { attempt, killed in
            let version = try Self.outcome(cli.database)
            if attempt < 0 {
                let lists = try cli.run(["--json", "lists"])
                #expect(lists.status == 0 && lists.stdout.contains("30002"), "\(lists.stdout) \(lists.stderr)")
            }
            return kills.side(of: version, before: Self.earlier, after: Self.latest, attempt: attempt, killed: killed)
        }
        MigrationKills.expectKillsOnBothSides(tally)
    }

    /// The file's version after a kill, checked whole: its schema exactly its version's; every list's
    /// sections there, dense; at 12 each list's recorded count its number of sections and "new" first in
    /// the default list; `check` clean either way.
    static func outcome(_ path: String) throws -> Int {
        try MigrationKills.checkedVersion(of: path) { db, version in
            let added = version == latest ? 1 : 0
            for (list, count) in sections {
                let order = try SectionOrderState.counted(db, list: list)
                #expect(order.count == count + (list == 1 ? added : 0) && !order.isDamaged, "version \(version), list \(list): \(order)")
                if version == latest {
                    #expect(try SectionOrderState.recordedCount(db, list: list) == order.count, "list \(list)")
                }
            }
            let first = try db.scalarText("SELECT title FROM sections WHERE list_id = 1 AND position = 0")
            #expect(first == (version == latest ? "new" : "S"), "version \(version)")
            #expect(try db.scalarInt("SELECT count(*) FROM rows") == 100)
        }
    }
}
