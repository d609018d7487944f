import Foundation
import SQLiteLayer

/// What ``ListStore/sync(throughFolder:)`` did: the segment it wrote, and what it merged of each other copy.
public struct FolderSync: Sendable {
    /// The segment file this call wrote into the folder, or nil: nothing changed here since the last one.
    public let written: URL?
    /// Each other copy of the list with segments in the folder, in the order of their replica numbers.
    public let copies: [Copy]

    /// What the call did with one other copy's segments.
    public struct Copy: Sendable {
        /// The copy's replica number: the first number of its segments' names.
        public let replica: Int64
        /// How many of its segments this call read.
        public let segmentsRead: Int
        /// This list's change set of merging what they hold (empty: nothing new), or nil when nothing of the
        /// copy could be merged yet (``problem`` says why).
        public let changes: ChangeSet?
        /// Why a segment of the copy was not read — one that has not arrived whole, or is damaged, or of
        /// another list — or why the merge was refused; nil when everything there was merged. What arrived
        /// before it was merged; the next call takes it up again.
        public let problem: String?
    }
}

/// The name of a segment file: `<replica>.<from>-<to>.liststore-segment` (Docs/Segments.md).
struct SegmentName: Equatable {
    static let suffix = ".liststore-segment"
    /// How many segments a copy keeps after its whole one before the next reaches back to it and they go: a
    /// folder holds at most this many and one of each copy's (a file-sync engine carries files one by one).
    static let compactingAfter = 64
    let replica: Int64
    let from: Int64
    let to: Int64

    var fileName: String { "\(replica).\(from)-\(to)\(SegmentName.suffix)" }

    init(replica: Int64, from: Int64, to: Int64) {
        self.replica = replica
        self.from = from
        self.to = to
    }

    /// The name `fileName` spells, or nil: not a segment's (hidden and temporary files are not).
    init?(_ fileName: String) {
        guard !fileName.hasPrefix("."), fileName.hasSuffix(SegmentName.suffix) else { return nil }
        let parts = fileName.dropLast(SegmentName.suffix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let range = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard range.count == 2, let replica = Int64(parts[0]), let from = Int64(range[0]), let to = Int64(range[1]), replica > 0, from >= 0, to > from
        else { return nil }
        self.init(replica: replica, from: from, to: to)
    }
}

extension Segment {
    /// What the file behind `db` (inside a read transaction) changed after its clock was at `from` — for
    /// every id, everything it holds under it — or all of it when `from` is 0; nil when nothing changed.
    static func read(_ db: Connection, path: String, after from: Int64) throws -> Segment? {
        let to = try MergeSource.clock(db)
        guard to > from else { return nil }
        let state: MergeSource.State
        var listsChanged = from == 0
        if from == 0 {
            state = try MergeSource.read(db, path: path, rows: .all, sections: .all)
        } else {
            let changed = try MergeSource.changedIDs(after: from, db)
            state = try MergeSource.read(db, path: path, rows: .ids(changed.rows), sections: .ids(changed.sections))
            listsChanged =
                try db.cached(
                    """
                    SELECT EXISTS (SELECT 1 FROM lists WHERE changed_stamp >= ?1 AND changed_stamp > 0)
                        OR EXISTS (SELECT 1 FROM liststore_tombstones WHERE kind = 'list' AND changed_stamp >= ?1 AND changed_stamp > 0)
                    """
                ).bind([.integer(MergeClock.firstStamp(after: from))]).first { $0.int(0) } == 1
        }
        // A clock moved on by merges alone, or by writes that set no register (a cursor noted): nothing to tell.
        if from != 0, !listsChanged, state.rows.isEmpty, state.sections.isEmpty, state.tombstones.isEmpty, state.sectionTombstones.isEmpty { return nil }
        func sorted(_ tombstones: [Int64: Int64]) -> [(id: Int64, stamp: Int64)] { tombstones.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
        return Segment(
            lineage: state.lineage, replica: state.replica, from: from, to: state.clock, isWhole: from == 0,
            lists: listsChanged ? state.lists.values.sorted { $0.id < $1.id } : nil, listTombstones: listsChanged ? sorted(state.listTombstones) : [],
            sections: state.sections.values.sorted { $0.id < $1.id }, sectionTombstones: sorted(state.sectionTombstones),
            rows: state.rows.values.sorted { $0.id < $1.id }, tombstones: sorted(state.tombstones))
    }
}

extension ListStore {
    /// Exchanges edits with the other copies of this list through a shared folder that a file-sync engine
    /// carries between devices (iCloud Drive, Dropbox, Syncthing) — the way for an app on iOS, where
    /// Litestream cannot run, and for any device without a copy of the others' files.
    ///
    /// First merges, copy by copy (each its own write, as ``merge(from:)``), what the other copies' segment
    /// files in `folder` hold that this file has not merged; then writes one segment file of what this file
    /// changed since its last one (its own edits and what it merged), named
    /// `<replica>.<from>-<to>.liststore-segment`. Segments are immutable and written under a hidden name, then
    /// given theirs; a segment that has not arrived whole (its hash) is not read, and the copy's later ones
    /// wait for it. Each device needs write access to the folder and writes only its own segments; the others'
    /// registers are rebuilt beside this file (`<file>-mirrors/`), a cache that is rebuilt when removed.
    /// Call it after edits and when the file-sync engine reports new files; it reads only what is new.
    ///
    /// The first segment of a copy holds all of it; later ones, what changed since the one before. Past 64 of
    /// them after its whole one, the next reaches back to the whole one and the others are removed (a new
    /// whole one once they weigh as much), so a copy keeps at most 65 files in the folder.
    /// Throws when this file cannot be written or read, or holds rows, sections or lists another program
    /// inserted or moved (run ``repair()`` first), with nothing merged then; a problem with one other copy's
    /// segments is that copy's ``FolderSync/Copy/problem``.
    public func sync(throughFolder folder: URL) throws -> FolderSync {
        guard folder.isFileURL else { throw ListStoreError.unusablePath(path: folder.absoluteString, reason: "it is not a file URL") }
        let folderPath = folder.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } } ?? ""
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folderPath, isDirectory: &isFolder), isFolder.boolValue else {
            throw ListStoreError.unusablePath(path: folderPath, reason: "it is not a folder; name the shared folder the copies' segments are in")
        }
        guard path != StorePath.inMemory else {
            throw ListStoreError.cannotMerge(path: folderPath, reason: "an in-memory store has no file to keep the other copies' mirrors beside")
        }
        let identity = try claimReplicaNumber()
        // This file's own elements placed by another program would refuse every merge and its segment: say so once.
        let keyless = try reading { db, _ in
            try db.readTransaction { try OrderKeyDamage.tables.map { (table: $0.rawValue, count: try OrderKeyDamage.keyless(in: $0, db)) } }
        }
        if let damaged = keyless.first(where: { $0.count > 0 }) {
            throw ListStoreError.cannotMerge(
                path: folderPath,
                reason: "\(damaged.count) of this file's \(damaged.table) were inserted or moved by another program (they have no order key): run repair on \(path) first")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folderPath).compactMap(SegmentName.init)
        let others = Dictionary(grouping: names.filter { $0.replica != identity.replica }, by: \.replica)
        var copies: [FolderSync.Copy] = []
        for (replica, segments) in others.sorted(by: { $0.key < $1.key }) {
            copies.append(try syncCopy(replica, segments, lineage: identity.lineage, folder: folderPath))
        }
        let written = try writeOwnSegment(names.filter { $0.replica == identity.replica }, into: folderPath)
        return FolderSync(written: written.map { URL(fileURLWithPath: $0) }, copies: copies)
    }

    /// Writes this file's next segment into `folder` (``writeSegment(after:into:)``), given its segments there,
    /// `own`. Past a bound on them after its whole one, the next one reaches back to the whole one (holding each
    /// element changed since once) and the others go: a copy that read some of them takes it up from where it
    /// is, one that read none takes the whole one first. A whole one is written anew when there is none, or when
    /// the others hold as many bytes. Returns its path, or nil when nothing changed.
    private func writeOwnSegment(_ own: [SegmentName], into folder: String) throws -> String? {
        let whole = own.filter { $0.from == 0 }.map(\.to).max()
        let later = own.filter { $0.from > 0 && $0.from >= (whole ?? 0) }
        let compacting = whole == nil ? !own.isEmpty : later.count >= SegmentName.compactingAfter
        func bytes(_ names: [SegmentName]) -> Int {
            names.reduce(0) { total, name in
                let file = (folder as NSString).appendingPathComponent(name.fileName)
                return total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
            }
        }
        let from =
            compacting
            ? (whole.map { whole in bytes(later) >= bytes(own.filter { $0.from == 0 && $0.to == whole }) ? 0 : whole } ?? 0)
            : own.map(\.to).max() ?? 0
        let written = try writeSegment(after: from, into: folder)
        if compacting, let written, let name = SegmentName((written as NSString).lastPathComponent) {
            for old in own where old != name && (old.from > 0 || name.from == 0) && old.to <= name.to {
                try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(old.fileName))
            }
        }
        return written
    }

    /// This file's replica number, claimed in a write when it has none yet or is a copy that has not written
    /// since it was made (its segments are named by it), and its lineage.
    private func claimReplicaNumber() throws -> (replica: Int64, lineage: Int64) {
        let recorded = try? reading { db, _ in
            try db.readTransaction { () -> (replica: Int64, lineage: Int64)? in
                let file = db.mainFile()
                return try db.cached("SELECT number, lineage, device, inode FROM liststore_replica WHERE id = 1").bind([]).first { row in
                    row.int64(0) != 0 && row.int64(2) == Int64(bitPattern: file?.device ?? 0) && row.int64(3) == Int64(bitPattern: file?.inode ?? 0)
                        ? (row.int64(0), row.int64(1)) : nil
                } ?? nil
            }
        }
        if let recorded = recorded ?? nil { return recorded }
        var identity: (replica: Int64, lineage: Int64) = (0, 0)
        _ = try mutatingLists { db, _ in
            // The write itself claimed a number if the file is a copy; a file still replica 0 takes one here.
            try ReplicaIdentity.numberBeforeMerging(db)
            identity = (try ReplicaIdentity.number(db), Int64(try db.scalarInt("SELECT lineage FROM liststore_replica WHERE id = 1") ?? 0))
            return ([:], .structure(lists: []))
        }
        return identity
    }

    /// Applies copy `replica`'s segments that follow on from its mirror, in order, then merges the mirror.
    private func syncCopy(_ replica: Int64, _ segments: [SegmentName], lineage: Int64, folder: String) throws -> FolderSync.Copy {
        let mirrorPath = PeerMirror.path(ofReplica: replica, storePath: path)
        var read = 0
        var problem: String?
        do {
            let mirror = try PeerMirror.open(mirrorPath)
            var clock = try PeerMirror.meta(mirror)?.clock ?? 0
            // The segment reaching furthest among those that start at or before the mirror's clock: a copy that
            // wrote two from one point (two processes) wrote the later one's changes into it too.
            while let next = segments.filter({ $0.from <= clock && $0.to > clock }).max(by: { $0.to < $1.to }) {
                let file = (folder as NSString).appendingPathComponent(next.fileName)
                do {
                    let segment = try Segment(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: file))))
                    guard segment.replica == replica, segment.from == next.from, segment.to == next.to else {
                        throw Segment.Unreadable(reason: "its content is copy \(segment.replica)'s from \(segment.from) to \(segment.to), not what its name says")
                    }
                    guard segment.lineage == lineage else { throw Segment.Unreadable(reason: "it is a segment of another list (another lineage)") }
                    try PeerMirror.apply(segment, to: mirror, path: mirrorPath)
                } catch let unreadable as Segment.Unreadable {
                    problem = "\(next.fileName) not read: \(unreadable.reason)"
                    break
                } catch let error as SQLiteError {
                    problem = "\(next.fileName) not read: it could not be applied to \(mirrorPath) (\(error.message))"
                    break
                } catch let error as CocoaError {
                    problem = "\(next.fileName) not read: \(error.localizedDescription)"
                    break
                }
                read += 1
                clock = next.to
            }
            if problem == nil, let beyond = segments.filter({ $0.from > clock }).min(by: { $0.from < $1.from }) {
                problem = "\(beyond.fileName) waits for the segment before it, from \(clock) (not arrived yet)"
            }
            guard clock > 0 else { return FolderSync.Copy(replica: replica, segmentsRead: read, changes: nil, problem: problem) }
        } catch let error as ListStoreError {
            return FolderSync.Copy(replica: replica, segmentsRead: read, changes: nil, problem: error.localizedDescription)
        }
        do {
            let merged = try merge(fromPath: mirrorPath, kind: .mirror)
            return FolderSync.Copy(replica: replica, segmentsRead: read, changes: merged.changes[listID] ?? merged.unchanged, problem: problem)
        } catch let error as ListStoreError where error.family == .refused {
            return FolderSync.Copy(replica: replica, segmentsRead: read, changes: nil, problem: error.localizedDescription)
        }
    }

    /// Writes what this file changed after its clock was at `from` as a new segment in `folder`; returns its
    /// path, or nil when nothing changed.
    private func writeSegment(after from: Int64, into folder: String) throws -> String? {
        let storePath = path
        guard let bytes = try reading({ db, _ in try db.readTransaction { try Segment.read(db, path: storePath, after: from).map { ($0.encoded(), $0.replica, $0.to) } } })
        else { return nil }
        let name = SegmentName(replica: bytes.1, from: from, to: bytes.2)
        let target = (folder as NSString).appendingPathComponent(name.fileName)
        let temporary = (folder as NSString).appendingPathComponent(".\(name.fileName).\(UUID().uuidString).tmp")
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes.0)) else {
            throw ListStoreError.cannotMerge(path: folder, reason: "the segment \(name.fileName) cannot be written there (\(String(cString: strerror(errno))))")
        }
        do {
            try FilePublishing.publish(temporary, as: target, folder: folder)
        } catch .nameTaken {
            // Another process of this device wrote the same changes under that name a moment ago.
            unlink(temporary)
        } catch .system(let code) {
            unlink(temporary)
            throw ListStoreError.cannotMerge(path: folder, reason: "the segment \(name.fileName) cannot be written there (\(String(cString: strerror(code))))")
        }
        return target
    }
}
