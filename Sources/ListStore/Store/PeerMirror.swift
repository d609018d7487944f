import Foundation
import SQLiteLayer

/// Another copy's registers rebuilt from its segment files (``Segment``): a SQLite file of ListStore's in
/// the store's folder of mirrors (`<store file>-mirrors/<replica>.sqlite`, format 1, Docs/Segments.md),
/// which a merge reads as it reads another copy's file — its rows, sections and tombstones with their
/// registers, not the list. Each segment is applied in one transaction; a mirror is only ever a cache: moved
/// away, it is rebuilt from the segments.
enum PeerMirror {
    /// `PRAGMA application_id` of a mirror ("LSMR"), not a ListStore file's: no command takes one for a list.
    static let applicationID: Int32 = 0x4C53_4D52
    static let formatVersion = 1

    private static let schema = """
        CREATE TABLE liststore_mirror (
            id INTEGER PRIMARY KEY CHECK (id = 1), lineage INTEGER NOT NULL, replica INTEGER NOT NULL, clock INTEGER NOT NULL);
        CREATE TABLE peer_lists (
            id INTEGER PRIMARY KEY, order_key BLOB NOT NULL, name TEXT NOT NULL, name_stamp INTEGER NOT NULL, revived_stamp INTEGER NOT NULL);
        CREATE TABLE peer_sections (
            id INTEGER PRIMARY KEY, list_id INTEGER NOT NULL, order_key BLOB NOT NULL, title TEXT NOT NULL,
            title_stamp INTEGER NOT NULL, revived_stamp INTEGER NOT NULL, changed_stamp INTEGER NOT NULL);
        CREATE TABLE peer_rows (
            id INTEGER PRIMARY KEY, section_id INTEGER NOT NULL, order_key BLOB NOT NULL, title TEXT NOT NULL, payload TEXT,
            title_stamp INTEGER NOT NULL, payload_stamp INTEGER NOT NULL, revived_stamp INTEGER NOT NULL, changed_stamp INTEGER NOT NULL);
        CREATE TABLE peer_tombstones (
            kind TEXT NOT NULL, id INTEGER NOT NULL, stamp INTEGER NOT NULL, changed_stamp INTEGER NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID;
        CREATE INDEX peer_sections_by_changed_stamp ON peer_sections (changed_stamp);
        CREATE INDEX peer_rows_by_changed_stamp ON peer_rows (changed_stamp);
        CREATE INDEX peer_tombstones_by_changed_stamp ON peer_tombstones (changed_stamp);
        """

    /// What a mirror says of the copy it rebuilds.
    struct Meta {
        let lineage: Int64
        let replica: Int64
        /// The copy's clock at the last segment applied.
        let clock: Int64
    }

    /// The mirror of copy `replica` for the store at `storePath`.
    static func path(ofReplica replica: Int64, storePath: String) -> String { "\(storePath)-mirrors/\(replica).sqlite" }

    /// Opens the mirror at `path`, making it (and its folder) when there is none.
    static func open(_ path: String) throws -> Connection {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw ListStoreError.cannotMerge(path: path, reason: "its folder cannot be made (\(error.localizedDescription))")
        }
        do {
            let connection = try Connection(path: path, mode: .readWriteCreate)
            connection.setBusyTimeout(milliseconds: 5_000)
            try connection.transaction {
                if try connection.scalarInt("SELECT count(*) FROM sqlite_schema") == 0, try connection.scalarInt("PRAGMA application_id") == 0 {
                    try connection.executeScript(schema)
                    try connection.run("PRAGMA application_id = \(applicationID)")
                    try connection.run("PRAGMA user_version = \(formatVersion)")
                } else {
                    try recognise(connection, path: path)
                }
            }
            return connection
        } catch let error as SQLiteError {
            throw ListStoreError.cannotMerge(path: path, reason: "the mirror cannot be opened (\(error.message)); move it away, and it is rebuilt from the segments")
        }
    }

    /// Throws unless `db` is a mirror of this format.
    static func recognise(_ db: Connection, path: String) throws {
        guard try db.scalarInt("PRAGMA application_id") == Int(applicationID), try db.scalarInt("PRAGMA user_version") == formatVersion else {
            throw ListStoreError.cannotMerge(
                path: path, reason: "it is not a mirror of format \(formatVersion) (another file, or another version's); move it away, and it is rebuilt from the segments")
        }
    }

    /// What the mirror behind `db` says of its copy, or nil before its first segment.
    static func meta(_ db: Connection) throws -> Meta? {
        guard
            let (lineage, replica, clock) = try db.cached("SELECT lineage, replica, clock FROM liststore_mirror WHERE id = 1").bind([]).first({
                ($0.int64(0), $0.int64(1), $0.int64(2))
            })
        else { return nil }
        return Meta(lineage: lineage, replica: replica, clock: clock)
    }

    /// Applies `segment` to the mirror behind `db` in one transaction: the copy's state at the segment's
    /// `to` for every id it names (all of it for a whole segment). Each element it writes is marked changed
    /// after the mirror's clock before, so that a merge whose cursor is at that clock or earlier reads it.
    static func apply(_ segment: Segment, to db: Connection, path: String) throws {
        try db.transaction {
            let meta = try meta(db)
            if let meta, meta.lineage != segment.lineage || meta.replica != segment.replica {
                throw ListStoreError.cannotMerge(
                    path: path, reason: "it mirrors copy \(meta.replica) of lineage \(meta.lineage), the segment is copy \(segment.replica)'s of lineage \(segment.lineage)")
            }
            let clock = meta?.clock ?? 0
            guard segment.from <= clock, segment.to > clock else { return }
            let changed = SQLiteValue.integer(MergeClock.firstStamp(after: clock))
            if segment.isWhole {
                for table in ["peer_rows", "peer_sections", "peer_tombstones", "peer_lists"] { try db.run("DELETE FROM \(table)") }
            } else {
                let forgetRow = try db.cached("DELETE FROM peer_rows WHERE id = ?1")
                let forgetSection = try db.cached("DELETE FROM peer_sections WHERE id = ?1")
                let forgetTombstone = try db.cached("DELETE FROM peer_tombstones WHERE kind = ?1 AND id = ?2")
                for id in segment.rows.map(\.id) + segment.tombstones.map(\.id) {
                    try forgetRow.bind([.integer(id)]).run()
                    try forgetTombstone.bind([.text("row"), .integer(id)]).run()
                }
                for id in segment.sections.map(\.id) + segment.sectionTombstones.map(\.id) {
                    try forgetSection.bind([.integer(id)]).run()
                    try forgetTombstone.bind([.text("section"), .integer(id)]).run()
                }
            }
            let insertRow = try db.cached(
                "INSERT INTO peer_rows (id, section_id, order_key, title, payload, title_stamp, payload_stamp, revived_stamp, changed_stamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
            )
            for row in segment.rows {
                try insertRow.bind([
                    .integer(row.id), .integer(row.section), .blob(row.key), .text(row.title), .optionalText(row.payload), .integer(row.titleStamp),
                    .integer(row.payloadStamp), .integer(row.revivedStamp), changed,
                ]).run()
            }
            let insertSection = try db.cached(
                "INSERT INTO peer_sections (id, list_id, order_key, title, title_stamp, revived_stamp, changed_stamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            for section in segment.sections {
                try insertSection.bind([
                    .integer(section.id), .integer(section.list), .blob(section.key), .text(section.title), .integer(section.titleStamp),
                    .integer(section.revivedStamp), changed,
                ]).run()
            }
            let insertTombstone = try db.cached("INSERT INTO peer_tombstones (kind, id, stamp, changed_stamp) VALUES (?1, ?2, ?3, ?4)")
            for (kind, tombstones) in [("row", segment.tombstones), ("section", segment.sectionTombstones)] {
                for tombstone in tombstones { try insertTombstone.bind([.text(kind), .integer(tombstone.id), .integer(tombstone.stamp), changed]).run() }
            }
            if let lists = segment.lists {
                try db.run("DELETE FROM peer_lists")
                try db.run("DELETE FROM peer_tombstones WHERE kind = 'list'")
                let insertList = try db.cached("INSERT INTO peer_lists (id, order_key, name, name_stamp, revived_stamp) VALUES (?1, ?2, ?3, ?4, ?5)")
                for list in lists {
                    try insertList.bind([.integer(list.id), .blob(list.key), .text(list.name), .integer(list.nameStamp), .integer(list.revivedStamp)]).run()
                }
                for tombstone in segment.listTombstones {
                    try insertTombstone.bind([.text("list"), .integer(tombstone.id), .integer(tombstone.stamp), changed]).run()
                }
            }
            try db.run(
                "INSERT INTO liststore_mirror (id, lineage, replica, clock) VALUES (1, ?1, ?2, ?3) ON CONFLICT DO UPDATE SET clock = ?3",
                [.integer(segment.lineage), .integer(segment.replica), .integer(segment.to)])
        }
    }
}
