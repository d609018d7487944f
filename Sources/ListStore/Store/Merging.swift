import Foundation
import SQLiteLayer

/// One row's registers as a file holds them (schema 15, Docs/Merging.md).
struct RowRegisters: Equatable {
    let id: Int64
    let section: Int64
    let key: [UInt8]
    let title: String
    let payload: String?
    let titleStamp: Int64
    let payloadStamp: Int64
    let revivedStamp: Int64

    /// The stamp of the write that put the row where it stands (its key's).
    var placeStamp: Int64 { OrderKey.stamp(of: key) ?? 0 }

    /// The rows of the file behind `db` that `scope` takes, by id.
    static func read(_ scope: MergeSource.Scope, _ db: Connection, kind: MergeSource.Kind = .file) throws -> [Int64: RowRegisters] {
        var rows: [Int64: RowRegisters] = [:]
        try scope.forEach(in: kind.table("rows"), columns: "id, section_id, order_key, title, payload, title_stamp, payload_stamp, revived_stamp", db) { row in
            rows[row.int64(0)] = RowRegisters(
                id: row.int64(0), section: row.int64(1), key: row.blob(2) ?? [], title: row.text(3), payload: row.optionalText(4),
                titleStamp: row.int64(5), payloadStamp: row.int64(6), revivedStamp: row.int64(7))
        }
        return rows
    }
}

/// One section's registers as a file holds them (schema 15).
struct SectionRegisters: Equatable {
    let id: Int64
    let list: Int64
    let key: [UInt8]
    let title: String
    let titleStamp: Int64
    let revivedStamp: Int64

    /// The stamp of the write that put the section where it stands (its key's).
    var placeStamp: Int64 { OrderKey.stamp(of: key) ?? 0 }

    /// The sections of the file behind `db` that `scope` takes, by id.
    static func read(_ scope: MergeSource.Scope, _ db: Connection, kind: MergeSource.Kind = .file) throws -> [Int64: SectionRegisters] {
        var sections: [Int64: SectionRegisters] = [:]
        try scope.forEach(in: kind.table("sections"), columns: "id, list_id, order_key, title, title_stamp, revived_stamp", db) { row in
            sections[row.int64(0)] = SectionRegisters(
                id: row.int64(0), list: row.int64(1), key: row.blob(2) ?? [], title: row.text(3), titleStamp: row.int64(4), revivedStamp: row.int64(5))
        }
        return sections
    }
}

/// One list's registers as a file holds them (schema 15).
struct ListRegisters: Equatable {
    let id: Int64
    let key: [UInt8]
    let name: String
    let nameStamp: Int64
    let revivedStamp: Int64

    /// The stamp of the write that put the list where it stands (its key's).
    var placeStamp: Int64 { OrderKey.stamp(of: key) ?? 0 }

    /// Every list of the file behind `db`, by id: a file holds few.
    static func readAll(_ db: Connection, kind: MergeSource.Kind = .file) throws -> [Int64: ListRegisters] {
        var lists: [Int64: ListRegisters] = [:]
        try db.cached("SELECT id, order_key, name, name_stamp, revived_stamp FROM \(kind.table("lists"))").bind([]).forEachRow { row in
            lists[row.int64(0)] = ListRegisters(id: row.int64(0), key: row.blob(1) ?? [], name: row.text(2), nameStamp: row.int64(3), revivedStamp: row.int64(4))
        }
        return lists
    }
}

/// What a file must be for its rows to be merged with another copy's, and what a merge reads of it: a
/// ListStore file of this version, of the same list (lineage), whose rows and sections all stand where
/// their order keys say (none inserted or moved by another program since its last `repair`).
enum MergeSource {
    /// What a merge reads another copy's registers from.
    enum Kind {
        /// The copy's file (or a copy of it, a Litestream-restored replica).
        case file
        /// Its registers rebuilt from its segments (``PeerMirror``).
        case mirror

        /// Throws unless `db` is a file of this kind that this version reads.
        func recognise(_ db: Connection, path: String) throws {
            switch self {
            case .file: try MergeSource.checkVersion(db, path: path)
            case .mirror: try PeerMirror.recognise(db, path: path)
            }
        }

        /// The name of a table a merge reads, in a file of this kind: a mirror's are `peer_`… (not another
        /// place that writes a list's rows or sections).
        func table(_ name: String) -> String {
            switch self {
            case .file: return name
            case .mirror: return "peer_" + name.replacingOccurrences(of: "liststore_", with: "")
            }
        }

        /// The replica number of the copy behind `db`.
        func replica(_ db: Connection) throws -> Int64 {
            switch self {
            case .file: return try ReplicaIdentity.number(db)
            case .mirror: return try PeerMirror.meta(db)?.replica ?? 0
            }
        }
    }

    /// Which elements of a file a merge reads.
    enum Scope {
        /// Every one: the first merge from a copy.
        case all
        /// Those a write changed after the file's clock was at logical time `clock` (`changed_stamp`, schema
        /// 16) — everything a merge that read the file then has not seen — and those with ids `also`.
        case changedAfter(clock: Int64, also: Set<Int64>)
        /// The ones with these ids: this file's side of what the other copy changed.
        case ids(Set<Int64>)

        /// Runs `body` on each element of `table` the scope takes (`columns` selected); `kind` narrows
        /// `liststore_tombstones` to one kind.
        func forEach(in table: String, columns: String, kind: String? = nil, _ db: Connection, _ body: (Statement) throws -> Void) throws {
            let ofKind = kind == nil ? "" : "kind = ?2 AND "
            let kindValue: [SQLiteValue] = kind.map { [.text($0)] } ?? []
            switch self {
            case .all:
                try db.cached("SELECT \(columns) FROM \(table)\(kind == nil ? "" : " WHERE kind = ?1")").bind(kindValue).forEachRow(body)
            case .changedAfter(let clock, let also):
                try db.cached("SELECT \(columns) FROM \(table) WHERE \(ofKind)changed_stamp >= ?1 AND changed_stamp > 0")
                    .bind([.integer(MergeClock.firstStamp(after: clock))] + kindValue).forEachRow(body)
                try Scope.ids(also).forEach(in: table, columns: columns, kind: kind, db, body)
            case .ids(let ids):
                let read = try db.cached("SELECT \(columns) FROM \(table) WHERE \(ofKind)id = ?1")
                for id in ids.sorted() { try read.bind([.integer(id)] + kindValue).forEachRow(body) }
            }
        }
    }

    struct State {
        let lineage: Int64
        /// The file's replica number (``ReplicaIdentity``).
        let replica: Int64
        let clock: Int64
        /// Every list, and every list's tombstone: a file holds few.
        let lists: [Int64: ListRegisters]
        let listTombstones: [Int64: Int64]
        let sections: [Int64: SectionRegisters]
        let sectionTombstones: [Int64: Int64]
        let rows: [Int64: RowRegisters]
        let tombstones: [Int64: Int64]
    }

    /// The state of the file behind `db` (inside a transaction) as far as the scopes take it — the rows and
    /// sections another copy's merge has not seen, and the sections those rows are in — or why it cannot be
    /// merged.
    static func read(_ db: Connection, path: String, rows rowScope: Scope, sections sectionScope: Scope, kind: Kind = .file) throws -> State {
        try kind.recognise(db, path: path)
        let rows = try RowRegisters.read(rowScope, db, kind: kind)
        var sections = try SectionRegisters.read(sectionScope, db, kind: kind)
        if case .changedAfter = rowScope {
            // A row arriving in a section the other copy deleted brings it back: that copy needs the section.
            let missing = Set(rows.values.map(\.section)).subtracting(sections.keys)
            if !missing.isEmpty { sections.merge(try SectionRegisters.read(.ids(missing), db, kind: kind)) { ours, _ in ours } }
        }
        return try read(db, path: path, rows: rows, rowScope: rowScope, sections: sections, sectionScope: sectionScope, kind: kind)
    }

    /// The ids of the rows and of the sections a write to the file behind `db` changed (or deleted) after its
    /// clock was at logical time `clock`.
    static func changedIDs(after clock: Int64, _ db: Connection) throws -> (rows: Set<Int64>, sections: Set<Int64>) {
        let after = SQLiteValue.integer(MergeClock.firstStamp(after: clock))
        func ids(_ sql: String) throws -> Set<Int64> { Set(try db.cached(sql).bind([after]).map { $0.int64(0) }) }
        return (
            try ids("SELECT id FROM rows WHERE changed_stamp >= ?1 AND changed_stamp > 0")
                .union(ids("SELECT id FROM liststore_tombstones WHERE kind = 'row' AND changed_stamp >= ?1 AND changed_stamp > 0")),
            try ids("SELECT id FROM sections WHERE changed_stamp >= ?1 AND changed_stamp > 0")
                .union(ids("SELECT id FROM liststore_tombstones WHERE kind = 'section' AND changed_stamp >= ?1 AND changed_stamp > 0"))
        )
    }

    /// This file's side of what `peer` holds (its rows and sections with the ids of the peer's, and the
    /// tombstones of those ids), or with `whole` all of it.
    static func read(_ db: Connection, path: String, sideOf peer: State, whole: Bool) throws -> State {
        guard !whole else { return try read(db, path: path, rows: .all, sections: .all) }
        try checkVersion(db, path: path)
        let rowScope = Scope.ids(Set(peer.rows.keys).union(peer.tombstones.keys))
        let sectionScope = Scope.ids(Set(peer.sections.keys).union(peer.sectionTombstones.keys))
        return try read(
            db, path: path, rows: try RowRegisters.read(rowScope, db), rowScope: rowScope, sections: try SectionRegisters.read(sectionScope, db),
            sectionScope: sectionScope, kind: .file)
    }

    /// The file's state with `rows` and `sections` read, their tombstones as far as their scopes take them.
    /// Every element out of key order is counted where the whole file is read; otherwise those without a key,
    /// which is what another program's insert or move leaves since schema 16.
    private static func read(
        _ db: Connection, path: String, rows: [Int64: RowRegisters], rowScope: Scope, sections: [Int64: SectionRegisters], sectionScope: Scope,
        kind source: Kind
    ) throws -> State {
        func tombstones(_ kind: String, _ scope: Scope) throws -> [Int64: Int64] {
            var found: [Int64: Int64] = [:]
            try scope.forEach(in: source.table("liststore_tombstones"), columns: "id, stamp", kind: kind, db) {
                found[$0.int64(0)] = max(found[$0.int64(0)] ?? 0, $0.int64(1))
            }
            return found
        }
        let listTombstones = try tombstones("list", .all)
        if source == .mirror {
            // The copy's own file was checked as its segment was read from it.
            guard let meta = try PeerMirror.meta(db) else { throw ListStoreError.cannotMerge(path: path, reason: "the mirror holds no segment yet") }
            return State(
                lineage: meta.lineage, replica: meta.replica, clock: meta.clock, lists: try ListRegisters.readAll(db, kind: .mirror), listTombstones: listTombstones,
                sections: sections, sectionTombstones: try tombstones("section", sectionScope), rows: rows, tombstones: try tombstones("row", rowScope))
        }
        for table in [MergeRegisters.Table.rows, .sections, .lists] {
            let unkeyed: Int
            if case .all = rowScope { unkeyed = try OrderKeyDamage.count(in: table, db) } else { unkeyed = try OrderKeyDamage.keyless(in: table, db) }
            guard unkeyed == 0 else {
                throw ListStoreError.cannotMerge(
                    path: path,
                    reason: "\(unkeyed) of its \(table.rawValue) were inserted or moved by another program (no order key, or out of its order): run repair on it first")
            }
        }
        return State(
            lineage: Int64(try db.scalarInt("SELECT lineage FROM liststore_replica WHERE id = 1") ?? 0),
            replica: try ReplicaIdentity.number(db), clock: try clock(db), lists: try ListRegisters.readAll(db), listTombstones: listTombstones,
            sections: sections, sectionTombstones: try tombstones("section", sectionScope), rows: rows, tombstones: try tombstones("row", rowScope))
    }

    /// Throws unless `db` is a ListStore file of this schema version.
    static func checkVersion(_ db: Connection, path: String) throws {
        guard try db.scalarInt("PRAGMA application_id") == Int(Schema.applicationID) else {
            throw ListStoreError.cannotMerge(path: path, reason: "it is not a ListStore file")
        }
        let version = try db.scalarInt("PRAGMA user_version") ?? 0
        guard version == Schema.migrator.latestVersion else {
            throw ListStoreError.cannotMerge(
                path: path, reason: "it is a file of schema \(version), this is schema \(Schema.migrator.latestVersion): write to it once with this version first")
        }
    }

    /// The last logical time the file behind `db` gave or merged (``MergeClock``).
    static func clock(_ db: Connection) throws -> Int64 {
        Int64(try db.scalarInt("SELECT seq FROM sqlite_sequence WHERE name = ?1", [.text(MergeClock.clockRow)]) ?? 0)
    }

    /// Where the last merge from a copy left off (schema 16): the copy's clock when it was read, and this
    /// file's after the merge.
    struct Cursor: Equatable {
        let peerClock: Int64
        let localClock: Int64
    }

    /// The cursor of each copy this file merged from, by replica number.
    static func cursors(_ db: Connection) throws -> [Int64: Cursor] {
        Dictionary(
            try db.cached("SELECT replica, clock, local_clock FROM liststore_merged").bind([]).map {
                ($0.int64(0), Cursor(peerClock: $0.int64(1), localClock: $0.int64(2)))
            }, uniquingKeysWith: { first, _ in first })
    }
}

extension ListStore {
    /// Merges into this file what another copy of this list holds that this file has not seen — a copy
    /// another device edited (its own file, a copy of it, a Litestream-restored replica) — in one write: each
    /// list, row and section takes the newest place, name or title and payload of the two files (the last writer
    /// wins, by a hybrid logical clock); what was inserted there arrives where it stands there; what was deleted
    /// there goes, unless an undo here put it back since — but a section (a list) deleted there stays, holding
    /// only them, when rows (sections) it never saw were inserted or moved into it here; a move and an edit of
    /// the value of one row on two copies both survive. Two lists of one name — added on two copies at once, or
    /// one renamed to the other's name — become one: the one with the larger id is folded into the other (its
    /// sections move to the other's end, and it is deleted; its observers' streams end).
    /// Merging again, or in another order, changes nothing; copies that merged from each other, directly or
    /// through others, hold the same rows in the same order. Returns this list's change set; observers of
    /// every list the merge changed get theirs, as for any edit. The merge is not part of the undo history.
    ///
    /// The first merge from a copy reads both files whole; later ones read only what changed there since
    /// (and the copy's side of what changed here since), which this file notes at each merge.
    ///
    /// A file of another list, of another schema version, or holding rows, sections or lists inserted or moved
    /// by another program (run ``repair()`` on it first) is refused with a ``ListStoreError/Family/refused``
    /// error (cannot merge); nothing is changed then. The other file is only read.
    public func merge(from url: URL) throws -> ChangeSet {
        guard url.isFileURL else { throw ListStoreError.unusablePath(path: url.absoluteString, reason: "it is not a file URL") }
        let merged = try merge(fromPath: url.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } } ?? "")
        return merged.changes[listID] ?? merged.unchanged
    }

    /// ``merge(from:)`` from the file at `peerPath`: the change sets of the lists it changed, and the
    /// (empty) change set of one it left unchanged. With `whole`, both files are read whole, as at the
    /// first merge from a copy (the tests compare the two ways).
    /// With `kind` ``MergeSource/Kind/mirror``, `peerPath` is another copy's registers rebuilt from its segments.
    func merge(fromPath peerPath: String, whole: Bool = false, kind: MergeSource.Kind = .file) throws -> (changes: [Int64: ChangeSet], unchanged: ChangeSet) {
        try mutatingLists { db, _ in
            let cursors = try MergeSource.cursors(db)
            // Read under this file's write lock, so that the cursor noted below is the one the next merge finds.
            let peer: MergeSource.State
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: peerPath, isDirectory: &isFolder), isFolder.boolValue {
                throw ListStoreError.cannotMerge(path: peerPath, reason: "it is a folder; name a copy of the list's file in it")
            }
            do {
                let connection = try Connection(path: peerPath, mode: .readOnly)
                peer = try connection.readTransaction {
                    try kind.recognise(connection, path: peerPath)
                    guard !whole, let cursor = cursors[try kind.replica(connection)] else {
                        return try MergeSource.read(connection, path: peerPath, rows: .all, sections: .all, kind: kind)
                    }
                    // What changed there since, and the peer's side of what changed here since: a decision of
                    // the last merge that rested on this file's state then (an element deleted here, since put
                    // back) is taken again.
                    let changedHere = try MergeSource.changedIDs(after: cursor.localClock, db)
                    return try MergeSource.read(
                        connection, path: peerPath, rows: .changedAfter(clock: cursor.peerClock, also: changedHere.rows),
                        sections: .changedAfter(clock: cursor.peerClock, also: changedHere.sections), kind: kind)
                }
            } catch let error as SQLiteError {
                throw ListStoreError.cannotMerge(path: peerPath, reason: "it cannot be read (\(error.message))")
            }
            let local = try MergeSource.read(db, path: path, sideOf: peer, whole: whole || cursors[peer.replica] == nil)
            guard local.lineage == peer.lineage else {
                throw ListStoreError.cannotMerge(path: peerPath, reason: "it is not a copy of this list (another lineage)")
            }
            try ReplicaIdentity.numberBeforeMerging(db)
            var merge = MergeWrite(db, sizes: rowBlockSizes, peerPath: peerPath)
            defer { merge.close() }
            try merge.apply(local: local, peer: peer)
            try db.run("UPDATE sqlite_sequence SET seq = max(seq, ?2) WHERE name = ?1", [.text(MergeClock.clockRow), .integer(peer.clock)])
            let cursor = MergeSource.Cursor(peerClock: peer.clock, localClock: try MergeSource.clock(db))
            if cursors[peer.replica] != cursor { try merge.noteCursor(cursor, of: peer.replica) }
            return try merge.finish()
        }
    }
}

/// The edits of one merge, made with the edit primitives (so that blocks, counts, change sets and
/// observers follow as for any edit), then given the peer's keys and stamps in place of the ones the
/// primitives gave — and, on everything the merge changed, the merge's stamp as the stamp of the last
/// change (`changed_stamp`), so that a merge from this file finds it.
private struct MergeWrite {
    let db: Connection
    let sizes: RowBlockSizes
    let peerPath: String
    private var transactions: [Int64: ListTransaction] = [:]
    private var arrivedRows: [Int64] = []
    private var arrivedSections: [Int64] = []
    /// The peer's sections: a row arriving in a section this file deleted brings it back.
    private var peerSections: [Int64: SectionRegisters] = [:]
    /// Whether the merge noted something no change set shows: a tombstone of a row this file never had, a
    /// newer stamp on a value both files hold.
    private var notedRegisters = false
    /// Each section's list.
    private var lists: [Int64: Int64] = [:]
    /// The peer's lists: a section arriving in a list this file deleted brings it back.
    private var peerLists: [Int64: ListRegisters] = [:]
    /// Lists folded into the list of the same name with the smaller id (their id → that one's).
    private var foldedLists: [Int64: Int64] = [:]

    init(_ db: Connection, sizes: RowBlockSizes, peerPath: String) {
        self.db = db
        self.sizes = sizes
        self.peerPath = peerPath
    }

    mutating func apply(local: MergeSource.State, peer: MergeSource.State) throws {
        lists = Dictionary(try db.cached("SELECT id, list_id FROM sections").bind([]).map { ($0.int64(0), $0.int64(1)) }, uniquingKeysWith: { a, _ in a })
        peerSections = peer.sections
        peerLists = peer.lists
        try mergeLists(local: local, peer: peer)
        try mergeSections(local: local, peer: peer)
        for (id, stamp) in peer.tombstones.sorted(by: { $0.key < $1.key }) {
            if let row = local.rows[id] {
                guard row.revivedStamp < stamp else { continue }
                try transaction(ofSection: row.section).deleteRows(ids: [RowID(rawValue: id)])
                // The delete is the peer's: its stamp, not this write's.
                try keepTombstone(.rows, id, stamp: stamp)
            } else if local.tombstones[id].map({ $0 < stamp }) ?? true {
                try keepTombstone(.rows, id, stamp: stamp)
                notedRegisters = true
            }
        }
        for (id, theirs) in peer.rows.sorted(by: { $0.key < $1.key }) {
            if let ours = local.rows[id] {
                try refuseTwoValuesAtOneStamp(ours, theirs)
                if local.tombstones[id] != nil || (peer.tombstones[id].map { ours.revivedStamp < $0 } ?? false) { continue }
                if theirs.placeStamp > ours.placeStamp { try move(ours, to: theirs) }
                try update(ours, to: theirs)
            } else if local.tombstones[id].map({ theirs.revivedStamp > $0 }) ?? true {
                try insert(theirs)
            }
        }
        try deleteSections(buriedBy: peer, local: local)
        try deleteLists(buriedBy: peer, local: local)
    }

    // MARK: Lists

    /// Lists the peer inserted arrive where their keys fall; moved or renamed ones take the newer place or
    /// name; tombstones of lists this file never had are kept. Two lists of one name — added on two copies at
    /// once, or one renamed to the other's name — are one list: the one with the larger id is folded into
    /// the other (its sections move there, keeping their keys, and it goes, without a tombstone), alike on
    /// every copy that holds both. Lists the peer deleted go after the rows (``deleteLists(buriedBy:local:)``).
    private mutating func mergeLists(local: MergeSource.State, peer: MergeSource.State) throws {
        for (id, theirs) in peer.lists.sorted(by: { $0.key < $1.key }) {
            if let ours = local.lists[id] {
                try refuseTwoValuesAtOneStamp(
                    "list #\(id)",
                    ours.placeStamp == theirs.placeStamp && ours.key != theirs.key
                        ? "place" : ours.nameStamp == theirs.nameStamp && ours.name != theirs.name ? "name" : nil)
                if local.listTombstones[id] != nil || foldedLists[id] != nil { continue }
                if theirs.placeStamp > ours.placeStamp { try moveList(id, to: theirs.key) }
                if theirs.nameStamp > ours.nameStamp {
                    try db.cached("UPDATE lists SET name_stamp = ?2, changed_stamp = ?3 WHERE id = ?1")
                        .bind([.integer(id), .integer(theirs.nameStamp), .integer(try MergeClock.stamp(db))]).run()
                    notedRegisters = true
                    if theirs.name != ours.name { try name(list: id, theirs.name) }
                }
            } else if local.listTombstones[id].map({ theirs.revivedStamp > $0 }) ?? true {
                try insertList(theirs, revivedStamp: theirs.revivedStamp)
            }
        }
        for (id, stamp) in peer.listTombstones.sorted(by: { $0.key < $1.key })
        where local.lists[id] == nil && (local.listTombstones[id].map { $0 < stamp } ?? true) {
            try keepTombstone(.lists, id, stamp: stamp)
            notedRegisters = true
        }
    }

    /// The id of the live list named `name`, if any.
    private func liveList(named name: String) throws -> Int64? {
        try db.cached("SELECT id FROM lists WHERE name = ?1").bind([.text(name)]).first { $0.int64(0) }
    }

    private func listExists(_ id: Int64) throws -> Bool {
        try db.cached("SELECT EXISTS (SELECT 1 FROM lists WHERE id = ?1)").bind([.integer(id)]).first { $0.int(0) } == 1
    }

    /// The index among the lists where `key` falls (leaving out list `id`).
    private func listIndex(of key: [UInt8], leavingOut id: Int64) throws -> Int {
        try db.cached("SELECT count(*) FROM lists WHERE order_key < ?1 AND id != ?2").bind([.blob(key), .integer(id)]).first { $0.int(0) } ?? 0
    }

    /// Puts `list` in, empty, where its key falls, with the peer's registers and `revivedStamp` — or, when a
    /// list here has its name, folds the one of the two with the larger id into the other.
    private mutating func insertList(_ list: ListRegisters, revivedStamp: Int64) throws {
        let other = try liveList(named: list.name)
        if let other, other < list.id {
            // Never here (or deleted since), and folded at once: deleted, so that the copy holding it folds it
            // too — once: a tombstone newer than its last revival already says so.
            foldedLists[list.id] = other
            let tombstone = try db.cached("SELECT stamp FROM liststore_tombstones WHERE kind = 'list' AND id = ?1").bind([.integer(list.id)]).first { $0.int64(0) }
            if tombstone.map({ $0 < list.revivedStamp }) ?? true { try buryList(list.id) }
            return
        }
        var order = try ListStore.listOrder(db)
        // Under a name no list can have (names hold no control characters) while the other one folds into it.
        let name = other == nil ? list.name : "\u{1}merging list #\(list.id)"
        try db.run(
            """
            INSERT INTO lists (id, name, position, order_key, name_stamp, revived_stamp, changed_stamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            """,
            [
                .integer(list.id), .text(name), .integer(try ListStore.belowEveryPosition(db)), .blob(list.key), .integer(list.nameStamp),
                .integer(revivedStamp), .integer(try MergeClock.stamp(db)),
            ])
        try db.run("DELETE FROM liststore_tombstones WHERE kind = 'list' AND id = ?1", [.integer(list.id)])
        order.insert(list.id, at: try listIndex(of: list.key, leavingOut: list.id))
        try ListStore.setListOrder(order, db)
        notedRegisters = true
        if let other {
            try fold(other, into: list.id)
            try db.run("UPDATE lists SET name = ?2 WHERE id = ?1", [.integer(list.id), .text(list.name)])
        }
    }

    private mutating func moveList(_ id: Int64, to key: [UInt8]) throws {
        var order = try ListStore.listOrder(db)
        order.removeAll { $0 == id }
        order.insert(id, at: try listIndex(of: key, leavingOut: id))
        try ListStore.setListOrder(order, db)
        try db.cached("UPDATE lists SET order_key = ?2, changed_stamp = ?3 WHERE id = ?1").bind([.integer(id), .blob(key), .integer(try MergeClock.stamp(db))]).run()
        notedRegisters = true
    }

    /// Gives list `id` the peer's name — folding it into the list that has that name here, or that one into
    /// it, by the smaller id.
    private mutating func name(list id: Int64, _ name: String) throws {
        if let other = try liveList(named: name), other != id {
            if other < id { return try fold(id, into: other) }
            try fold(other, into: id)
        }
        try db.run("UPDATE lists SET name = ?2 WHERE id = ?1", [.integer(id), .text(name)])
    }

    /// Moves the sections of list `folded` to the end of list `kept`, in their order — moves of this write,
    /// with new keys, so that every copy takes them (the newest fold's, where two copies folded) — and deletes
    /// `folded`.
    private mutating func fold(_ folded: Int64, into kept: Int64) throws {
        let sections = try db.cached("SELECT id FROM sections WHERE list_id = ?1 ORDER BY position").bind([.integer(folded)]).map { $0.int64(0) }
        let source = try transaction(ofList: folded)
        let target = try transaction(ofList: kept)
        for section in sections {
            try source.moveSection(SectionID(rawValue: section), to: nil, in: target)
            lists[section] = kept
            arrivedSections.append(section)
        }
        try removeList(folded)
        try buryList(folded)
        foldedLists[folded] = kept
    }

    /// Notes list `id` as deleted by this write.
    private mutating func buryList(_ id: Int64) throws {
        try keepTombstone(.lists, id, stamp: try MergeClock.stamp(db))
        notedRegisters = true
    }

    /// Notes element `id` of `table` as deleted at `stamp` (the peer's delete, or this write's), changed by this write.
    private func keepTombstone(_ table: MergeRegisters.Table, _ id: Int64, stamp: Int64) throws {
        try db.cached(
            "INSERT INTO liststore_tombstones (kind, id, stamp, changed_stamp) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO UPDATE SET stamp = ?3, changed_stamp = ?4"
        ).bind([.text(table.kind), .integer(id), .integer(stamp), .integer(try MergeClock.stamp(db))]).run()
    }

    /// Removes empty list `id` from the file and from the lists' order.
    private mutating func removeList(_ id: Int64) throws {
        var order = try ListStore.listOrder(db)
        try db.run("DELETE FROM lists WHERE id = ?1", [.integer(id)])
        try HistoryTable.forget(list: id, db)
        order.removeAll { $0 == id }
        try ListStore.setListOrder(order, db)
        notedRegisters = true
    }

    /// The list this file holds for the peer's list `id`: itself; the one it was folded into; or, when this
    /// file deleted it, itself brought back (marked put back by this write) — unless the peer does not hold it either.
    private mutating func resolvedList(_ id: Int64) throws -> Int64 {
        if let kept = foldedLists[id] { return try resolvedList(kept) }
        if try listExists(id) { return id }
        guard let list = peerLists[id] else { return id }
        try insertList(list, revivedStamp: try MergeClock.stamp(db))
        return foldedLists[id] ?? id
    }

    /// Deletes the lists the peer deleted (unless an undo here put them back since) that hold no section
    /// now; one that still holds sections — ones the deleting copy never saw — stays, marked put back by this
    /// write. The default list is never deleted.
    private mutating func deleteLists(buriedBy peer: MergeSource.State, local: MergeSource.State) throws {
        for (id, stamp) in peer.listTombstones.sorted(by: { $0.key < $1.key }) {
            guard let ours = local.lists[id], ours.revivedStamp < stamp, id != ListStore.defaultListID, foldedLists[id] == nil, try listExists(id) else {
                continue
            }
            if try db.cached("SELECT EXISTS (SELECT 1 FROM sections WHERE list_id = ?1)").bind([.integer(id)]).first({ $0.int(0) }) == 1 {
                try db.cached("UPDATE lists SET revived_stamp = ?2, changed_stamp = ?2 WHERE id = ?1").bind([.integer(id), .integer(try MergeClock.stamp(db))]).run()
                notedRegisters = true
            } else {
                try removeList(id)
                try keepTombstone(.lists, id, stamp: stamp)
            }
        }
    }

    // MARK: Sections

    /// Sections the peer inserted arrive, moved or renamed ones take the newer place or title; tombstones of
    /// sections this file never had are kept. Sections the peer deleted go after the rows (``deleteSections(buriedBy:local:)``).
    private mutating func mergeSections(local: MergeSource.State, peer: MergeSource.State) throws {
        for (id, theirs) in peer.sections.sorted(by: { $0.key < $1.key }) {
            if let ours = local.sections[id] {
                try refuseTwoValuesAtOneStamp(
                    "section #\(id)",
                    ours.placeStamp == theirs.placeStamp && ours.key != theirs.key
                        ? "place"
                        : ours.titleStamp == theirs.titleStamp && ours.title != theirs.title ? "title" : nil)
                if local.sectionTombstones[id] != nil { continue }
                if theirs.placeStamp > ours.placeStamp { try moveSection(ours, to: theirs) }
                if theirs.titleStamp > ours.titleStamp {
                    if theirs.title != ours.title {
                        try keepOverwritten(.sections, id, .title, ours.title, stamp: ours.titleStamp, by: theirs.titleStamp)
                        try transaction(ofSection: id).renameSection(id: SectionID(rawValue: id), to: theirs.title)
                    }
                    try db.cached("UPDATE sections SET title_stamp = ?2, changed_stamp = ?3 WHERE id = ?1")
                        .bind([.integer(id), .integer(theirs.titleStamp), .integer(try MergeClock.stamp(db))]).run()
                    notedRegisters = true
                }
            } else if local.sectionTombstones[id].map({ theirs.revivedStamp > $0 }) ?? true {
                try insertSection(theirs, revivedStamp: theirs.revivedStamp)
            }
        }
        for (id, stamp) in peer.sectionTombstones.sorted(by: { $0.key < $1.key })
        where local.sections[id] == nil && (local.sectionTombstones[id].map { $0 < stamp } ?? true) {
            try keepTombstone(.sections, id, stamp: stamp)
            notedRegisters = true
        }
    }

    /// The index among the sections of `list` where `key` falls (leaving out section `id`).
    private func sectionIndex(of key: [UInt8], inList list: Int64, leavingOut id: Int64) throws -> Int {
        try db.cached("SELECT count(*) FROM sections WHERE list_id = ?1 AND order_key < ?2 AND id != ?3")
            .bind([.integer(list), .blob(key), .integer(id)]).first { $0.int(0) } ?? 0
    }

    /// Puts `section` in, empty, where its key falls, with the peer's key and title stamp and `revivedStamp`.
    private mutating func insertSection(_ section: SectionRegisters, revivedStamp: Int64) throws {
        let list = try resolvedList(section.list)
        let transaction = try transaction(ofList: list)
        _ = try transaction.restoreSection(id: section.id, title: section.title, at: try sectionIndex(of: section.key, inList: list, leavingOut: section.id))
        // In the list the peer's was folded into, it keeps the key this write gave it: a move of this write.
        try db.cached(
            "UPDATE sections SET order_key = CASE WHEN ?6 THEN ?2 ELSE order_key END, title_stamp = ?3, revived_stamp = ?4, changed_stamp = ?5 WHERE id = ?1"
        ).bind([
            .integer(section.id), .blob(section.key), .integer(section.titleStamp), .integer(revivedStamp), .integer(try MergeClock.stamp(db)),
            .integer(list == section.list ? 1 : 0),
        ]).run()
        lists[section.id] = list
    }

    private mutating func moveSection(_ ours: SectionRegisters, to theirs: SectionRegisters) throws {
        let list = try resolvedList(theirs.list)
        // Where it stands now: a fold may have moved it already.
        let current = lists[ours.id] ?? ours.list
        let index = try sectionIndex(of: theirs.key, inList: list, leavingOut: ours.id)
        let source = try transaction(ofList: current)
        if current == list {
            try source.moveSection(id: SectionID(rawValue: ours.id), to: index)
        } else {
            try source.moveSection(SectionID(rawValue: ours.id), to: index, in: try transaction(ofList: list))
            arrivedSections.append(ours.id)
        }
        if list == theirs.list {
            try db.cached("UPDATE sections SET order_key = ?2, changed_stamp = ?3 WHERE id = ?1")
                .bind([.integer(ours.id), .blob(theirs.key), .integer(try MergeClock.stamp(db))]).run()
        }
        lists[ours.id] = list
    }

    /// Deletes the sections the peer deleted (unless an undo here put them back since) that hold no row now;
    /// one that still holds rows — rows the deleting copy never saw, inserted or moved there on another —
    /// stays, and is marked put back by this write, so that the deleting copy brings it back holding them.
    private mutating func deleteSections(buriedBy peer: MergeSource.State, local: MergeSource.State) throws {
        for (id, stamp) in peer.sectionTombstones.sorted(by: { $0.key < $1.key }) {
            guard let ours = local.sections[id], ours.revivedStamp < stamp, lists[id] != nil else { continue }
            if try db.cached("SELECT EXISTS (SELECT 1 FROM rows WHERE section_id = ?1)").bind([.integer(id)]).first({ $0.int(0) }) == 1 {
                try db.cached("UPDATE sections SET revived_stamp = ?2, changed_stamp = ?2 WHERE id = ?1").bind([.integer(id), .integer(try MergeClock.stamp(db))]).run()
                notedRegisters = true
            } else {
                try transaction(ofSection: id).deleteSections(ids: [SectionID(rawValue: id)])
                try keepTombstone(.sections, id, stamp: stamp)
                lists[id] = nil
            }
        }
    }

    /// Two values of one register with one stamp can only come from files that were never one: copies made
    /// before schema 15 that each migrated on its own (both with stamp 0), or a stamp changed by hand. Which
    /// value wins could not be decided alike on every copy.
    private func refuseTwoValuesAtOneStamp(_ ours: RowRegisters, _ theirs: RowRegisters) throws {
        try refuseTwoValuesAtOneStamp(
            "row #\(ours.id)",
            ours.placeStamp == theirs.placeStamp && ours.key != theirs.key
                ? "place"
                : ours.titleStamp == theirs.titleStamp && ours.title != theirs.title
                    ? "title"
                    : ours.payloadStamp == theirs.payloadStamp && ours.payload != theirs.payload ? "payload" : nil)
    }

    private func refuseTwoValuesAtOneStamp(_ element: String, _ differing: String?) throws {
        guard let differing else { return }
        throw ListStoreError.cannotMerge(
            path: peerPath,
            reason:
                "\(element) has another \(differing) there with the same stamp: the files were copied before schema 15 and each migrated on its own (merge only copies made since), or one was changed by hand"
        )
    }

    /// The list transaction of the list holding `section`.
    private mutating func transaction(ofSection section: Int64) throws -> ListTransaction {
        guard let list = lists[section] else {
            throw ListStoreError.cannotMerge(path: peerPath, reason: "it holds rows in section #\(section), which neither file holds (changed by hand)")
        }
        return try transaction(ofList: list)
    }

    /// The list transaction of list `list`.
    private mutating func transaction(ofList list: Int64) throws -> ListTransaction {
        if let known = transactions[list] { return known }
        let made = ListTransaction(db, list: list, sizes: sizes)
        transactions[list] = made
        return made
    }

    /// The row just before where `key` falls in `section` (leaving out row `id`), or nil: first. Keys follow
    /// positions in a section (checked before the merge, kept by each of its steps), so a binary search over
    /// positions finds it: about 40 look-ups in the position index at a million rows.
    private func rowBefore(_ key: [UInt8], inSection section: Int64, leavingOut id: Int64) throws -> Int64? {
        // Two statements: SQLite reads one end of the position index for each, but the whole section for both in one.
        let lowest = try db.cached("SELECT min(position) FROM rows WHERE section_id = ?1").bind([.integer(section)]).first { $0.isNull(0) ? nil : $0.int(0) }
        let highest = try db.cached("SELECT max(position) FROM rows WHERE section_id = ?1").bind([.integer(section)]).first { $0.isNull(0) ? nil : $0.int(0) }
        guard let first = lowest ?? nil, let last = highest ?? nil else { return nil }
        let probe = try db.cached("SELECT position, order_key FROM rows WHERE section_id = ?1 AND position >= ?2 AND id != ?3 ORDER BY position LIMIT 1")
        // The first position whose row (at or after it) does not sort before `key`: in low...high.
        var low = first
        var high = last + 1
        while low < high {
            let middle = low + (high - low) / 2
            let found = try probe.bind([.integer(section), .int(middle), .integer(id)]).first { (position: $0.int(0), key: $0.blob(1) ?? []) }
            if let found, found.key.lexicographicallyPrecedes(key) { low = found.position + 1 } else { high = middle }
        }
        return try db.cached("SELECT id FROM rows WHERE section_id = ?1 AND position < ?2 AND id != ?3 ORDER BY position DESC LIMIT 1")
            .bind([.integer(section), .int(low), .integer(id)]).first { $0.int64(0) }
    }

    /// A section deleted here that a row this file never saw (inserted or moved there on the peer) arrives in:
    /// it comes back, holding only such rows, marked put back by this write.
    private mutating func bringBack(section id: Int64) throws {
        guard lists[id] == nil, let section = peerSections[id] else { return }
        try insertSection(section, revivedStamp: try MergeClock.stamp(db))
    }

    private mutating func insert(_ row: RowRegisters) throws {
        try bringBack(section: row.section)
        let transaction = try transaction(ofSection: row.section)
        var section = try transaction.checkedSection(id: SectionID(rawValue: row.section))
        let index = try rowBefore(row.key, inSection: row.section, leavingOut: row.id).map { try db.rowPlace(of: RowID(rawValue: $0)).path.row + 1 } ?? 0
        try transaction.restoreRows([HistoryRow(id: row.id, title: row.title, payload: row.payload)], into: &section, at: index)
        try db.cached("UPDATE rows SET order_key = ?2, title_stamp = ?3, payload_stamp = ?4, revived_stamp = ?5, changed_stamp = ?6 WHERE id = ?1")
            .bind([
                .integer(row.id), .blob(row.key), .integer(row.titleStamp), .integer(row.payloadStamp), .integer(row.revivedStamp),
                .integer(try MergeClock.stamp(db)),
            ]).run()
    }

    private mutating func move(_ ours: RowRegisters, to theirs: RowRegisters) throws {
        try bringBack(section: theirs.section)
        let source = try transaction(ofSection: ours.section)
        let target = try transaction(ofSection: theirs.section)
        let id = RowID(rawValue: ours.id)
        let before = try rowBefore(theirs.key, inSection: theirs.section, leavingOut: ours.id)
        if source === target {
            if let before {
                try source.moveRow(id: id, after: RowID(rawValue: before))
            } else {
                try source.moveRow(id: id, toSection: SectionID(rawValue: theirs.section), at: 0)
            }
        } else {
            let sectionIndex = try db.existingSectionIndex(SectionID(rawValue: theirs.section), list: target.list)
            let index = try before.map { try db.rowPlace(of: RowID(rawValue: $0)).path.row + 1 } ?? 0
            try source.moveRow(id, toSection: sectionIndex, at: index, in: target)
            arrivedRows.append(ours.id)
        }
        try db.cached("UPDATE rows SET order_key = ?2, changed_stamp = ?3 WHERE id = ?1").bind([.integer(ours.id), .blob(theirs.key), .integer(try MergeClock.stamp(db))]).run()
    }

    private mutating func update(_ ours: RowRegisters, to theirs: RowRegisters) throws {
        let title = theirs.titleStamp > ours.titleStamp && theirs.title != ours.title ? theirs.title : nil
        let payload: PayloadUpdate =
            theirs.payloadStamp > ours.payloadStamp && theirs.payload != ours.payload ? theirs.payload.map { .set($0) } ?? .remove : .unchanged
        if title != nil { try keepOverwritten(.rows, ours.id, .title, ours.title, stamp: ours.titleStamp, by: theirs.titleStamp) }
        if payload != .unchanged { try keepOverwritten(.rows, ours.id, .payload, ours.payload, stamp: ours.payloadStamp, by: theirs.payloadStamp) }
        if title != nil || payload != .unchanged {
            // In the list of the section the row is in now (where the peer put it, or where it stayed).
            let section = try db.cached("SELECT section_id FROM rows WHERE id = ?1").bind([.integer(ours.id)]).first { $0.int64(0) } ?? ours.section
            try transaction(ofSection: section).updateRow(id: RowID(rawValue: ours.id), title: title, payload: payload)
        }
        guard theirs.titleStamp > ours.titleStamp || theirs.payloadStamp > ours.payloadStamp else { return }
        notedRegisters = true
        // The values' stamps are the newer of the two files' (the edit primitive gave this write's).
        try db.cached("UPDATE rows SET title_stamp = ?2, payload_stamp = ?3, changed_stamp = ?4 WHERE id = ?1")
            .bind([
                .integer(ours.id), .integer(max(ours.titleStamp, theirs.titleStamp)), .integer(max(ours.payloadStamp, theirs.payloadStamp)),
                .integer(try MergeClock.stamp(db)),
            ]).run()
    }

    /// The change set of each list the merge changed, and the change log's entry (one that no observer
    /// reloads for, when the merge noted only what no change set shows: otherwise a write that changes no
    /// row is rolled back).
    func finish() throws -> (changes: [Int64: ChangeSet], log: ChangeLog.Entry) {
        var changes: [Int64: ChangeSet] = [:]
        var events: [Int64: [EditEvent]] = [:]
        for (list, transaction) in transactions {
            events[list] = transaction.events
            changes[list] = try transaction.finish()
        }
        if changes.values.allSatisfy(\.isEmpty), notedRegisters { return (changes, .structure(lists: [])) }
        return (changes, .edits(ListedEvents(lists: events, arrivedRows: arrivedRows, arrivedSections: arrivedSections)))
    }

    /// Keeps the value `field` of element `id` had here, which the peer's newer one replaces
    /// (``ListStore/overwrittenValues(ofRow:)``): the latest per element and field.
    private func keepOverwritten(
        _ kind: MergeRegisters.Table, _ id: Int64, _ field: OverwrittenValue.Field, _ value: String?, stamp: Int64, by newer: Int64
    ) throws {
        try db.cached(
            """
            INSERT INTO liststore_overwritten (kind, id, field, value, stamp, by_stamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT DO UPDATE SET value = ?4, stamp = ?5, by_stamp = ?6 WHERE by_stamp < ?6
            """
        ).bind([.text(kind.kind), .integer(id), .text(field.rawValue), .optionalText(value), .integer(stamp), .integer(newer)]).run()
    }

    /// Notes where this merge from the peer `replica` left off, for the next to read only what changed after.
    mutating func noteCursor(_ cursor: MergeSource.Cursor, of replica: Int64) throws {
        try db.cached("INSERT INTO liststore_merged (replica, clock, local_clock) VALUES (?1, ?2, ?3) ON CONFLICT DO UPDATE SET clock = ?2, local_clock = ?3")
            .bind([.integer(replica), .integer(cursor.peerClock), .integer(cursor.localClock)]).run()
        notedRegisters = true
    }

    func close() { for transaction in transactions.values { transaction.close() } }
}
