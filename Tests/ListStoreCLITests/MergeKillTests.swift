import Foundation
import SQLiteLayer
import Testing

@testable import ListStore

/// A merge is one write: a SIGKILL at any moment of `liststore merge PEER_FILE` — 3,000 rows the peer
/// inserted arriving, 300 it moved, 300 it retitled, 300 it deleted — leaves the file as it was, or with all
/// of it merged and every row where its order key says; the peer is only read.
@Suite struct MergeKillTests {
    /// A file of three sections of 1,000 rows at `base`, and a copy of it at `copy` that then inserts 1,000 rows in
    /// the middle of each section, moves 300 of the base's rows, retitles 300 and deletes 300.
    static func baseAndEditedCopy(base: String, copy: String) throws {
        do {
            let store = try ListStore.open(at: base)
            try store.write { tx in
                for section in 0..<3 {
                    try tx.insertSection(title: "S\(section)")
                    _ = try tx.insertRows((0..<1_000).map { "base \(section).\($0)" }, intoSection: section)
                }
            }
        }
        try FileManager.default.copyItem(atPath: base, toPath: copy)
        let store = try ListStore.open(at: copy)
        try store.write { tx in
            for section in 0..<3 { _ = try tx.insertRows((0..<1_000).map { "peer \(section).\($0)" }, intoSection: section, at: 500) }
        }
        let rows = try store.snapshot().sections.flatMap { $0.rows.filter { $0.title.hasPrefix("base") } }
        try store.write { tx in
            for row in rows.prefix(300) { try tx.moveRow(id: row.id, to: ListIndexPath(section: 2, row: 0)) }
            for row in rows.dropFirst(300).prefix(300) { try tx.updateRow(id: row.id, title: "retitled \(row.title)") }
            try tx.deleteRows(ids: Array(rows.dropFirst(600).prefix(300).map(\.id)))
        }
    }

    @Test func aKillDuringAMergeLeavesTheFileBeforeOrFullyMerged() throws {
        let cli = try CLIHarness()
        let binary = try #require(CLIHarness.binary)
        let base = cli.directory.appendingPathComponent("base.sqlite").path
        let peer = cli.directory.appendingPathComponent("peer.sqlite").path
        try Self.baseAndEditedCopy(base: base, copy: peer)
        let pristine = try #require(fileBytes(base))
        let expected = try ListStore.open(at: peer).snapshot().sections.map { $0.rows.map(\.id) }
        let peerBytes = try #require(fileBytes(peer))
        let kills = MigrationKills(binary: binary, database: cli.database, pristine: pristine, arguments: ["merge", peer], seed: 34_034)
        let tally = try kills.run(attempts: 60, enoughKills: 15, needsAfter: true) { _, _ in
            #expect(fileBytes(peer) == peerBytes, "the peer was written")
            let db = try Connection(path: cli.database, mode: .readWrite)
            #expect(try db.scalarText("PRAGMA integrity_check") == "ok")
            let count = try db.scalarInt("SELECT count(*) FROM rows") ?? -1
            let outOfOrder = try db.scalarInt(
                """
                SELECT count(*) FROM (SELECT order_key, lag(order_key) OVER (PARTITION BY section_id ORDER BY position) AS previous FROM rows)
                WHERE order_key IS NULL OR previous >= order_key
                """)
            #expect(outOfOrder == 0)
            switch count {
            case 3_000: return .before
            case 3_000 + 3_000 - 300:
                let merged = try ListStore.open(at: cli.database, mode: .readOnly).snapshot().sections.map { $0.rows.map(\.id) }
                #expect(merged == expected, "merged, but not into the peer's order")
                return .after
            default:
                Issue.record("\(count) rows: neither before nor after the merge")
                return nil
            }
        }
        MigrationKills.expectKillsOnBothSides(tally)
    }
}
