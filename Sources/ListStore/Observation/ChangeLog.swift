import Foundation
import SQLiteLayer

/// The change log (`liststore_log`, schema version 3): one entry per ListStore write transaction with
/// its edits, and entries the schema's triggers add for writes made outside ListStore. Observers in
/// other processes read it to learn what a commit changed without reading the store again.
enum ChangeLog {
    /// How many entries are kept; an observer further behind reads the store afresh.
    static let keptEntries: Int64 = 1_000

    /// What a write transaction records.
    enum Entry {
        /// Its edits, from which an observer builds the same change set.
        case edits([EditEvent])
        /// Only that something changed (an import, a repair): observers read the store afresh.
        case structure
    }

    /// One entry as stored.
    struct Stored {
        let sequence: Int64
        let kind: String
        let id: Int64?
        let events: String?
    }

    /// Marks the transaction as ListStore's own, so that the schema's triggers do not log its writes.
    static func beginWriting(_ db: Connection) throws {
        try db.run("UPDATE liststore_state SET writing = 1")
    }

    /// Appends `entry`, drops entries older than ``keptEntries``, and clears the mark; returns the
    /// new entry's sequence number.
    static func finishWriting(_ db: Connection, _ entry: Entry) throws -> Int64 {
        switch entry {
        case let .edits(events):
            let json = String(decoding: try JSONEncoder().encode(events), as: UTF8.self)
            try db.run("INSERT INTO liststore_log (kind, events) VALUES ('edits', ?1)", [.text(json)])
        case .structure:
            try db.run("INSERT INTO liststore_log (kind) VALUES ('structure')")
        }
        let sequence = db.lastInsertedRowID
        try db.run("DELETE FROM liststore_log WHERE seq <= ?1", [.integer(sequence - keptEntries)])
        try db.run("UPDATE liststore_state SET writing = 0")
        return sequence
    }

    /// The sequence number of the last entry ever written (0 for none).
    static func lastSequence(_ db: Connection) throws -> Int64 {
        try db.cached("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'liststore_log'), 0)").bind([]).first { $0.int64(0) } ?? 0
    }

    /// The entries after `sequence`, oldest first.
    static func entries(after sequence: Int64, _ db: Connection) throws -> [Stored] {
        try db.cached("SELECT seq, kind, id, events FROM liststore_log WHERE seq > ?1 ORDER BY seq").bind([.integer(sequence)]).map {
            Stored(sequence: $0.int64(0), kind: $0.text(1), id: $0.isNull(2) ? nil : $0.int64(2), events: $0.optionalText(3))
        }
    }

    /// What the entries after `position` mean for an observer whose state is at `position`: a change
    /// set, or nil when only a fresh read of the store describes them (writes outside ListStore that
    /// move rows or sections, entries already dropped, an entry that cannot be read).
    static func changes(after sequence: Int64, _ db: Connection) throws -> ChangeSet? {
        let entries = try entries(after: sequence, db)
        guard let first = entries.first else {
            // Nothing logged: a commit that changed nothing ListStore shows, unless entries were lost.
            return try lastSequence(db) == sequence ? ChangeSet() : nil
        }
        guard first.sequence == sequence + 1 else { return nil }
        var tracker = ChangeTracker()
        // Titles and payloads changed by hand only change content, which moves nothing: they are noted
        // after the edits, at the index paths they have now, wherever they fell among the edits.
        var handRows: [Int64] = [], handSections: [Int64] = []
        for entry in entries {
            switch entry.kind {
            case "edits":
                guard let json = entry.events,
                      let events = try? JSONDecoder().decode([EditEvent].self, from: Data(json.utf8)) else { return nil }
                for event in events { tracker.apply(event) }
            case "row":
                if let id = entry.id { handRows.append(id) }
            case "section":
                if let id = entry.id { handSections.append(id) }
            default:
                return nil
            }
        }
        for id in handRows {
            guard let location = try? db.location(of: RowID(rawValue: id)) else { continue }  // deleted since
            tracker.rowUpdated(RowID(rawValue: id), in: SectionID(rawValue: location.section), at: location.path, from: nil)
        }
        for id in handSections {
            guard let index = try db.scalarInt("SELECT position FROM sections WHERE id = ?1", [.integer(id)]) else { continue }
            tracker.sectionRenamed(SectionID(rawValue: id), at: index, from: nil)
        }
        return try tracker.changes(db)
    }
}
