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
        /// Its edits, list by list, from which an observer builds the same change sets.
        case edits(ListedEvents)
        /// Only that something changed (an import, a repair) in `lists` (nil: any list): their observers
        /// read the store afresh.
        case structure(lists: Set<Int64>?)
    }

    /// One entry as stored.
    struct Stored {
        let sequence: Int64
        let kind: String
        let id: Int64?
        let events: String?
    }

    /// What an entry says, once read and checked.
    enum Reading {
        case edits(ListedEvents)
        case row(Int64)
        case section(Int64)
        /// Lists to read afresh (nil: every list).
        case structure(Set<Int64>?)
    }

    /// Marks the transaction as ListStore's own, so that the schema's triggers do not log its writes;
    /// re-creates the state row when a hand edit deleted it. Returns what it found, for ``ListStore/repair()``.
    @discardableResult
    static func beginWriting(_ db: Connection) throws -> LogState {
        try db.cached("UPDATE liststore_state SET writing = 1 WHERE id = 1 AND writing = 0").bind([]).run()
        if db.changes == 1 { return .sound }  // the usual case: one statement
        let found = try LogHead.read(db).state
        try db.cached("INSERT INTO liststore_state (id, writing) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET writing = 1").bind([]).run()
        return found
    }

    /// Appends `entry`, drops entries older than ``keptEntries``, and clears the mark; returns the
    /// new entry's sequence number.
    static func finishWriting(_ db: Connection, _ entry: Entry) throws -> Int64 {
        switch entry {
        case .edits(let events):
            let json = try LogRecord.encode(events)
            try db.run("INSERT INTO liststore_log (kind, events) VALUES ('edits', ?1)", [.text(json)])
        case .structure(let lists?):
            try db.run("INSERT INTO liststore_log (kind, events) VALUES ('structure', ?1)", [.text(LogRecord.encodeStructure(lists: lists))])
        case .structure(nil):
            try db.run("INSERT INTO liststore_log (kind) VALUES ('structure')")
        }
        let sequence = db.lastInsertedRowID
        try db.run("DELETE FROM liststore_log WHERE seq <= ?1", [.integer(sequence - keptEntries)])
        try db.run("UPDATE liststore_state SET writing = 0")
        return sequence
    }

    /// The entries after `sequence`, oldest first.
    static func entries(after sequence: Int64, _ db: Connection) throws -> [Stored] {
        try db.cached("SELECT seq, kind, id, events FROM liststore_log WHERE seq > ?1 ORDER BY seq").bind([.integer(sequence)]).map {
            Stored(sequence: $0.int64(0), kind: $0.text(1), id: $0.isNull(2) ? nil : $0.int64(2), events: $0.optionalText(3))
        }
    }

    /// Whether `entries`, read after `sequence`, are every entry up to `last`: no entry missing between
    /// them or at the end (deleted by hand). A gap means observers cannot know what was lost.
    static func isUnbroken(_ entries: [Stored], after sequence: Int64, upTo last: Int64) -> Bool {
        var expected = sequence
        for entry in entries {
            let (next, overflow) = expected.addingReportingOverflow(1)
            guard !overflow, entry.sequence == next else { return false }
            expected = next
        }
        return expected == last
    }

    /// What `entry` says, checked against what ListStore writes and what the store could hold
    /// (`inserted` adds up the rows inserted by the entries read so far); the problem when it cannot
    /// be trusted.
    static func read(_ entry: Stored, _ limits: LogEntryLimits, inserted: inout Int64) -> Result<Reading, LogDamage> {
        func damaged(_ reason: String) -> Result<Reading, LogDamage> { .failure(LogDamage(sequence: entry.sequence, reason: reason)) }
        switch entry.kind {
        case "edits":
            guard let json = entry.events else { return damaged("an 'edits' entry without events") }
            guard let events = LogRecord.decode(json) else {
                return damaged("its events are not a change-log record of a version ListStore writes")
            }
            let arrived = limits.arriving(rows: events.arrivedRows, sections: events.arrivedSections)
            guard events.arrivedRows.allSatisfy(limits.isRow), events.arrivedSections.allSatisfy(limits.isSection) else {
                return damaged("an event with an index, id or count no ListStore write of this store could have")
            }
            for event in events.lists.values.joined() where !event.isPlausible(arrived, inserted: &inserted) {
                return damaged("an event with an index, id or count no ListStore write of this store could have")
            }
            return .success(.edits(events))
        case "row":
            guard let id = entry.id else { return damaged("a 'row' entry without an id") }
            return .success(.row(id))
        case "section":
            guard let id = entry.id else { return damaged("a 'section' entry without an id") }
            return .success(.section(id))
        case "structure":
            return .success(.structure(LogRecord.decodeStructure(entry.events)))
        default:
            return damaged("kind '\(entry.kind)', which ListStore never writes")
        }
    }

    /// What the entries after `sequence` mean for the observers at `sequence`: each list's change set,
    /// and the lists only a fresh read describes (``LoggedChanges``); nil when every list must be read
    /// afresh — entries already dropped or deleted, an entry that cannot be read or trusted, a state in
    /// which hand edits may have gone unlogged (``LogState``), or a write outside ListStore that moved
    /// rows or sections (a hand edit says nothing of the list it touched).
    /// `ceilings` are the largest ids given out at `sequence`; `head` is the log as it is now, and its
    /// last entry the change sets' ``ChangeSet/version``.
    static func changes(after sequence: Int64, ceilings: IDCeilings, head: LogHead, _ db: Connection) throws -> LoggedChanges? {
        guard head.state == .sound else { return nil }
        let entries = try entries(after: sequence, db)
        guard isUnbroken(entries, after: sequence, upTo: head.lastSequence) else { return nil }
        let version = ListVersion(rawValue: head.lastSequence)
        var result = LoggedChanges(version: version)
        guard !entries.isEmpty else { return result }  // a commit that changed nothing ListStore shows
        var trackers: [Int64: ChangeTracker] = [:]
        // Titles and payloads changed by hand only change content, which moves nothing: they are noted
        // after the edits, at the index paths they have now, wherever they fell among the edits.
        var handRows: [Int64] = []
        var handSections: [Int64] = []
        let limits = LogEntryLimits(head, since: ceilings)
        var inserted: Int64 = 0
        for entry in entries {
            guard case .success(let reading) = read(entry, limits, inserted: &inserted) else { return nil }
            switch reading {
            case .edits(let events):
                for (list, listEvents) in events.lists {
                    var tracker = trackers.removeValue(forKey: list) ?? ChangeTracker()
                    for event in listEvents { tracker.apply(event) }
                    trackers[list] = tracker
                }
            case .row(let id): handRows.append(id)
            case .section(let id): handSections.append(id)
            case .structure(let lists?): result.resets.formUnion(lists)
            case .structure(nil): return nil
            }
        }
        for id in handRows {
            guard let location = try? db.rowPlace(of: RowID(rawValue: id)), let list = try db.sectionIndexAndList(id: location.section)?.list else {
                continue  // deleted since
            }
            trackers[list, default: ChangeTracker()].rowUpdated(RowID(rawValue: id), in: SectionID(rawValue: location.section), at: location.path, from: nil)
        }
        for id in handSections {
            guard let found = try db.sectionIndexAndList(id: id) else { continue }
            trackers[found.list, default: ChangeTracker()].sectionRenamed(SectionID(rawValue: id), at: found.index, from: nil)
        }
        for (list, tracker) in trackers where !result.resets.contains(list) {
            var changes = try tracker.changes(db, list: list)
            changes.version = version
            result.lists[list] = changes
        }
        return result
    }
}

/// What the change log says happened after an observers' position: each list's change set (a list
/// missing had none), and the lists whose observers must read afresh.
struct LoggedChanges {
    let version: ListVersion
    var lists: [Int64: ChangeSet] = [:]
    var resets: Set<Int64> = []

    init(version: ListVersion) { self.version = version }
}

/// One change-log entry that cannot be trusted: what `check` reports and observers reset on.
struct LogDamage: Error, Hashable {
    let sequence: Int64
    let reason: String
}

/// Whether the change log's state row (`liststore_state`) is as ListStore leaves it after every
/// commit: present, with `writing` = 0. Otherwise the schema's triggers may not have logged hand edits
/// (one left at 1 means "ListStore is writing" to them; so does a missing one before schema 5), so
/// observers read the store afresh, `check` reports it, and the next ListStore write puts it back.
enum LogState: Hashable {
    case sound
    /// The row was deleted (or the table emptied) by hand.
    case missing
    /// `writing` was left at 1 by hand: hand edits are not logged while it stays so.
    case stuck

    init(writing: Int64?) {
        switch writing {
        case nil: self = .missing
        case 0: self = .sound
        default: self = .stuck
        }
    }
}
