import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// A file-sync engine between the copies of `MergeTests.randomRun`: each device has its own view of the
/// shared folder; what one device writes reaches the others late, in any order, sometimes twice, and
/// sometimes first cut short (a file still arriving), completed by a later delivery.
final class SegmentCarrier {
    private var folders: [URL] = []
    /// The files each device's view holds cut short.
    private var cutShort: [Int: Set<String>] = [:]
    /// How often a sync reported a segment it did not read because it had not arrived whole.
    private(set) var segmentsNotYetWhole = 0

    func start(devices: Int, in directory: TemporaryDirectory) {
        folders = (0..<devices).map { URL(fileURLWithPath: directory.path("shared-\($0)"), isDirectory: true) }
        for folder in folders { try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    }

    func folder(of device: Int) -> URL { folders[device] }

    /// Every segment some device holds whole: its name and where.
    private func everything() -> [(name: String, from: URL)] {
        var found: [String: URL] = [:]
        for (device, folder) in folders.enumerated() {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where SegmentName(name) != nil {
                if cutShort[device]?.contains(name) != true { found[name] = folder.appendingPathComponent(name) }
            }
        }
        return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    private func holdsWhole(_ device: Int, _ name: String) -> Bool {
        FileManager.default.fileExists(atPath: folders[device].appendingPathComponent(name).path) && cutShort[device]?.contains(name) != true
    }

    /// Some of what `device` lacks arrives, some of it cut short; the rest later.
    func deliver(to device: Int, using random: inout SeededGenerator) {
        for (name, source) in everything() where !holdsWhole(device, name) {
            guard let bytes = FileManager.default.contents(atPath: source.path) else { continue }
            let target = folders[device].appendingPathComponent(name)
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                continue
            case 2:
                try? bytes.write(to: target)
                cutShort[device]?.remove(name)
            default:
                guard !FileManager.default.fileExists(atPath: target.path) else { continue }
                try? bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)).write(to: target)
                cutShort[device, default: []].insert(name)
            }
        }
    }

    /// Everything `device` lacks arrives whole.
    func deliverEverything(to device: Int) {
        for (name, source) in everything() where !holdsWhole(device, name) {
            try? FileManager.default.contents(atPath: source.path)?.write(to: folders[device].appendingPathComponent(name))
            cutShort[device]?.remove(name)
        }
    }

    /// `store` syncs through its device's view: each copy's change set turns the state before into the one
    /// after, and what each copy's mirror holds, read whole, was all merged already.
    func sync(_ store: ListStore, device: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var before = try store.snapshot()
        let result = try store.sync(throughFolder: folders[device])
        for copy in result.copies {
            if let changes = copy.changes { try before.apply(changes) }
            guard let problem = copy.problem else { continue }
            let expected = problem.contains("has not arrived whole") || problem.contains("no LSSEG header") || problem.contains("waits for the segment before it")
            #expect(expected, "an unexpected problem: \(problem)", sourceLocation: sourceLocation)
            segmentsNotYetWhole += 1
        }
        #expect(before.sections == (try store.snapshot().sections), "the sync's change sets do not lead to the state after it", sourceLocation: sourceLocation)
        for copy in result.copies where copy.changes != nil {
            // Merging a later copy's segments may call for an earlier copy's registers again (a section it
            // brought back): the next merge from that copy reads them, so merge each once more first.
            let mirror = PeerMirror.path(ofReplica: copy.replica, storePath: store.path)
            _ = try store.merge(fromPath: mirror, kind: .mirror)
            let registers = try MergeTests.registers(store.path)
            let again = try store.merge(fromPath: mirror, whole: true, kind: .mirror)
            let nothingMore = again.changes.values.allSatisfy(\.isEmpty)
            #expect(nothingMore, "merging the whole mirror changed more: \(again.changes)", sourceLocation: sourceLocation)
            #expect(try MergeTests.registers(store.path) == registers, "merging the whole mirror changed registers", sourceLocation: sourceLocation)
        }
    }
}

/// Copies of one list that exchange segment files through a shared folder (``ListStore/sync(throughFolder:)``,
/// Docs/Segments.md): they end identical, whatever order and state the files arrive in; a segment that
/// has not arrived whole, is damaged or is another list's is never read, and nothing changes for it.
@Suite struct SegmentSyncTests {
    @Test(arguments: [(34_101, false), (34_102, true), (34_103, false)] as [(UInt64, Bool)])
    func copiesThatExchangeSegmentsArrivingLateOutOfOrderAndHalfWrittenEndIdentical(seed: UInt64, undoing: Bool) throws {
        let carrier = SegmentCarrier()
        try MergeTests.randomRun(seed: seed, undoing: undoing, copies: 3, steps: 400, carrier: carrier)
        #expect(carrier.segmentsNotYetWhole > 0, "the run never delivered a segment cut short")
    }

    /// Random registers of every shape a file holds: ids of replica 0 and of numbered replicas, stamps of
    /// several replicas and none, order keys of ListStore's shape and others, payloads and none.
    static func randomSegment(_ random: inout SeededGenerator, whole: Bool) -> Segment {
        let replicas: [Int64] = [0, 1, 4_242, (1 << 20) - 1]
        let to = Int64.random(in: 1_000_000...(1 << 42), using: &random)
        func stamp() -> Int64 {
            Bool.random(using: &random) ? 0 : (Int64.random(in: 0...to, using: &random) << 20 | replicas.randomElement(using: &random)!)
        }
        func id() -> Int64 { replicas.randomElement(using: &random)! << 32 | Int64.random(in: 1...0xFFFF_FFFF, using: &random) }
        func key() -> [UInt8] {
            if Int.random(in: 0..<5, using: &random) == 0 { return (0..<Int.random(in: 0..<30, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) } }
            return OrderKey.keys(between: nil, and: nil, count: 1, stamp: stamp(), firstOrdinal: UInt32.random(in: 0...UInt32.max, using: &random))[0]
        }
        func text() -> String { ["", "milk", "Straße", "東京都", "a\u{0}b", "🙂 e\u{301}"].randomElement(using: &random)! }
        let lists =
            Bool.random(using: &random)
            ? (0..<Int.random(in: 1..<4, using: &random)).map { _ in ListRegisters(id: id(), key: key(), name: text(), nameStamp: stamp(), revivedStamp: stamp()) }
            : nil
        return Segment(
            lineage: Int64.random(in: Int64.min...Int64.max, using: &random), replica: 4_242, from: whole ? 0 : to / 2, to: to, isWhole: whole,
            lists: lists, listTombstones: lists == nil ? [] : (0..<Int.random(in: 0..<3, using: &random)).map { _ in (id(), stamp()) },
            sections: (0..<Int.random(in: 0..<20, using: &random)).map { _ in
                SectionRegisters(id: id(), list: id(), key: key(), title: text(), titleStamp: stamp(), revivedStamp: stamp())
            },
            sectionTombstones: (0..<Int.random(in: 0..<5, using: &random)).map { _ in (id(), stamp()) },
            rows: (0..<Int.random(in: 0..<200, using: &random)).map { _ in
                RowRegisters(
                    id: id(), section: id(), key: key(), title: text(), payload: Bool.random(using: &random) ? nil : #"{"n":\#(text().count)}"#,
                    titleStamp: stamp(), payloadStamp: stamp(), revivedStamp: stamp())
            },
            tombstones: (0..<Int.random(in: 0..<50, using: &random)).map { _ in (id(), stamp()) })
    }

    @Test func aSegmentReadsBackAsExactlyTheRegistersWritten() throws {
        var random = SeededGenerator(seed: 34_111)
        for round in 0..<200 {
            let segment = Self.randomSegment(&random, whole: round % 3 == 0)
            #expect(try Segment(decoding: segment.encoded()) == segment, "round \(round)")
        }
    }

    @Test func aSegmentCutShortOrWithAnyByteChangedIsNeverRead() throws {
        var random = SeededGenerator(seed: 34_112)
        let bytes = Self.randomSegment(&random, whole: false).encoded()
        for length in 0..<bytes.count {
            #expect(throws: Segment.Unreadable.self, "cut to \(length) bytes") { try Segment(decoding: Array(bytes.prefix(length))) }
        }
        for offset in 0..<bytes.count {
            var changed = bytes
            changed[offset] ^= UInt8.random(in: 1...255, using: &random)
            #expect(throws: Segment.Unreadable.self, "byte \(offset) changed") { try Segment(decoding: changed) }
        }
        // Damage that keeps the hash right (a writer's bug, not transport) is still a clear refusal, never a crash.
        for _ in 0..<2_000 {
            var body = Array(bytes.dropLast(8))
            for _ in 0..<Int.random(in: 1...4, using: &random) { body[Int.random(in: 6..<body.count, using: &random)] = UInt8.random(in: 0...255, using: &random) }
            var hash = Segment.hash(body[...])
            for _ in 0..<8 {
                body.append(UInt8(hash >> 56))
                hash <<= 8
            }
            _ = try? Segment(decoding: body)
        }
    }

    /// Two copies of a list of three sections, and a shared folder for each (views of one folder).
    static func twoDevices(_ directory: TemporaryDirectory) throws -> (phone: ListStore, laptop: ListStore, phoneFolder: URL, laptopFolder: URL) {
        let paths = try MergeTests.copies(2, in: directory)
        let folders = ["phone-view", "laptop-view"].map { URL(fileURLWithPath: directory.path($0), isDirectory: true) }
        for folder in folders { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        return (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]), folders[0], folders[1])
    }

    static func carry(_ from: URL, _ to: URL) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: from.path) where SegmentName(name) != nil {
            let target = to.appendingPathComponent(name)
            if !FileManager.default.fileExists(atPath: target.path) { try FileManager.default.copyItem(at: from.appendingPathComponent(name), to: target) }
        }
    }

    @Test func aHalfSyncedSegmentIsNotReadAndTheCopysLaterOnesWaitForIt() throws {
        let directory = try TemporaryDirectory(prefix: "segments")
        let (phone, laptop, phoneFolder, laptopFolder) = try Self.twoDevices(directory)
        _ = try phone.sync(throughFolder: phoneFolder)
        _ = try laptop.sync(throughFolder: laptopFolder)
        try Self.carry(phoneFolder, laptopFolder)
        try Self.carry(laptopFolder, phoneFolder)
        _ = try phone.sync(throughFolder: phoneFolder)
        _ = try laptop.sync(throughFolder: laptopFolder)
        // Two edits on the phone, each followed by a sync: two segments.
        let id = try phone.write { tx in try tx.insertRows(["bread"], intoSection: 0, at: 0) }.value[0]
        let first = try #require(try phone.sync(throughFolder: phoneFolder).written)
        try phone.write { tx in try tx.updateRow(id: id, title: "rye bread") }
        let second = try #require(try phone.sync(throughFolder: phoneFolder).written)
        let whole = try Data(contentsOf: first)
        // The first arrives cut short, the second whole: neither is read, nothing changes.
        try whole.prefix(whole.count - 3).write(to: laptopFolder.appendingPathComponent(first.lastPathComponent))
        try FileManager.default.copyItem(at: second, to: laptopFolder.appendingPathComponent(second.lastPathComponent))
        let before = try MergeTests.content(laptop)
        let waiting = try laptop.sync(throughFolder: laptopFolder)
        #expect(waiting.copies.count == 1)
        #expect(waiting.copies[0].segmentsRead == 0)
        #expect(waiting.copies[0].problem?.contains("\(first.lastPathComponent) not read: it has not arrived whole or is damaged") == true)
        #expect(waiting.copies[0].changes?.isEmpty == true)
        #expect(try MergeTests.content(laptop) == before)
        // Arrived whole: both are read, in order.
        try whole.write(to: laptopFolder.appendingPathComponent(first.lastPathComponent))
        let arrived = try laptop.sync(throughFolder: laptopFolder)
        #expect(arrived.copies[0].segmentsRead == 2)
        #expect(arrived.copies[0].problem == nil)
        #expect(arrived.copies[0].changes?.insertedRows.map(\.row.title) == ["rye bread"])
        #expect(try MergeTests.content(laptop) == MergeTests.content(phone))
    }

    @Test func aSegmentWithoutItsPredecessorWaitsAndSaysSo() throws {
        let directory = try TemporaryDirectory(prefix: "segments")
        let (phone, laptop, phoneFolder, laptopFolder) = try Self.twoDevices(directory)
        let whole = try #require(try phone.sync(throughFolder: phoneFolder).written)
        _ = try phone.write { tx in try tx.insertRows(["bread"], intoSection: 0, at: 0) }
        let next = try #require(try phone.sync(throughFolder: phoneFolder).written)
        try FileManager.default.copyItem(at: next, to: laptopFolder.appendingPathComponent(next.lastPathComponent))
        let waiting = try laptop.sync(throughFolder: laptopFolder)
        #expect(waiting.copies.map(\.segmentsRead) == [0])
        #expect(waiting.copies[0].changes == nil)
        #expect(waiting.copies[0].problem?.contains("waits for the segment before it") == true)
        try FileManager.default.copyItem(at: whole, to: laptopFolder.appendingPathComponent(whole.lastPathComponent))
        #expect(try laptop.sync(throughFolder: laptopFolder).copies.map(\.segmentsRead) == [2])
        #expect(try MergeTests.content(laptop) == MergeTests.content(phone))
    }

    @Test func aSegmentOfAnotherListOrRenamedIsReportedAndChangesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "segments")
        let (_, laptop, _, laptopFolder) = try Self.twoDevices(directory)
        let stranger = try ListStore.open(at: directory.path("stranger.sqlite"))
        try stranger.write { tx in
            try tx.insertSection(title: "Elsewhere")
            _ = try tx.insertRows(["x"], intoSection: 0)
        }
        let strangerFolder = URL(fileURLWithPath: directory.path("stranger-view"), isDirectory: true)
        try FileManager.default.createDirectory(at: strangerFolder, withIntermediateDirectories: true)
        let foreign = try #require(try stranger.sync(throughFolder: strangerFolder).written)
        try FileManager.default.copyItem(at: foreign, to: laptopFolder.appendingPathComponent(foreign.lastPathComponent))
        let registers = try MergeTests.registers(laptop.path)
        let result = try laptop.sync(throughFolder: laptopFolder)
        #expect(result.copies.count == 1)
        #expect(result.copies[0].problem?.hasSuffix("not read: it is a segment of another list (another lineage)") == true)
        #expect(result.copies[0].changes == nil)
        // A segment under another copy's name.
        let name = try #require(SegmentName(foreign.lastPathComponent))
        try FileManager.default.removeItem(at: laptopFolder.appendingPathComponent(foreign.lastPathComponent))
        let renamed = SegmentName(replica: name.replica + 1, from: name.from, to: name.to).fileName
        try FileManager.default.copyItem(at: foreign, to: laptopFolder.appendingPathComponent(renamed))
        let misnamed = try laptop.sync(throughFolder: laptopFolder)
        #expect(misnamed.copies.first?.problem?.contains("not what its name says") == true)
        #expect(try MergeTests.registers(laptop.path) == registers)
    }

    @Test func aFileWithRowsMovedByAnotherProgramIsRefusedOnceUntilRepairAndWritesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "segments")
        let (phone, _, phoneFolder, _) = try Self.twoDevices(directory)
        let db = try Connection(path: phone.path, mode: .readWrite)
        try db.run("UPDATE rows SET position = position + 1000000 WHERE id = (SELECT min(id) FROM rows)")
        let before = try MergeTests.content(phone)
        #expect {
            _ = try phone.sync(throughFolder: phoneFolder)
        } throws: { error in
            "\(error)".contains("1 of this file's rows were inserted or moved by another program (they have no order key): run repair on ")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: phoneFolder.path).isEmpty)
        #expect(try MergeTests.content(phone) == before)
        _ = try phone.repair()
        #expect(try phone.sync(throughFolder: phoneFolder).written != nil)
    }

    /// Past 64 segments after its whole one, a copy's next segment reaches back to the whole one and the
    /// others go (then a new whole one, once they weigh as much): a copy that had read part of the chain, and
    /// one that had read none of it, both end alike.
    @Test func aCopysSegmentsAreCompactedAndEveryReaderStillConverges() throws {
        let directory = try TemporaryDirectory(prefix: "segments")
        let paths = try MergeTests.copies(3, in: directory)
        let stores = try paths.map { try ListStore.open(at: $0) }
        let shared = URL(fileURLWithPath: directory.path("shared"), isDirectory: true)
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        func own() throws -> [SegmentName] {
            let replica = try ReplicaIdentityTests.replica(paths[0]).number
            return try FileManager.default.contentsOfDirectory(atPath: shared.path).compactMap(SegmentName.init).filter { $0.replica == replica }
        }
        var most = 0
        for step in 0..<200 {
            let id = try stores[0].write { tx in try tx.insertRows(["step \(step)"], intoSection: step % 3, at: 0) }.value[0]
            if step % 2 == 1 { try stores[0].write { tx in try tx.updateRow(id: id, title: "step \(step) again") } }
            _ = try stores[0].sync(throughFolder: shared)
            most = max(most, try own().count)
            if step == 30 { _ = try stores[1].sync(throughFolder: shared) }
        }
        #expect(most <= 1 + SegmentName.compactingAfter, "\(most) segments of one copy at once")
        #expect(try own().filter { $0.from == 0 }.count == 1)
        for store in stores.dropFirst() {
            let sync = try store.sync(throughFolder: shared)
            #expect(sync.copies.allSatisfy { $0.problem == nil }, "\(sync.copies)")
            #expect(try MergeTests.content(store) == MergeTests.content(stores[0]))
        }
    }

    @Test func aRemovedMirrorIsRebuiltFromTheSegmentsAndChangesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "segments")
        let (phone, laptop, phoneFolder, laptopFolder) = try Self.twoDevices(directory)
        _ = try phone.write { tx in try tx.insertRows(["bread"], intoSection: 0, at: 0) }
        _ = try phone.sync(throughFolder: phoneFolder)
        _ = try phone.write { tx in try tx.moveRow(from: ListIndexPath(section: 0, row: 0), to: ListIndexPath(section: 1, row: 0)) }
        _ = try phone.sync(throughFolder: phoneFolder)
        try Self.carry(phoneFolder, laptopFolder)
        #expect(try laptop.sync(throughFolder: laptopFolder).copies.map(\.segmentsRead) == [2])
        #expect(try MergeTests.content(laptop) == MergeTests.content(phone))
        let registers = try MergeTests.registers(laptop.path)
        try FileManager.default.removeItem(atPath: laptop.path + "-mirrors")
        let rebuilt = try laptop.sync(throughFolder: laptopFolder)
        #expect(rebuilt.copies.map(\.segmentsRead) == [2])
        #expect(rebuilt.copies.first?.changes?.isEmpty == true)
        #expect(try MergeTests.registers(laptop.path) == registers)
        // A file in the mirror's place that is not a mirror is reported, and left alone.
        let mirror = PeerMirror.path(ofReplica: try #require(rebuilt.copies.first).replica, storePath: laptop.path)
        try FileManager.default.removeItem(atPath: mirror)
        try Data("not a mirror".utf8).write(to: URL(fileURLWithPath: mirror))
        let refused = try laptop.sync(throughFolder: laptopFolder)
        #expect(refused.copies.first?.problem?.contains("move it away, and it is rebuilt from the segments") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: mirror)) == Data("not a mirror".utf8))
    }

    /// What a segment costs an edit beyond its text: 1,000 one-row edits of each kind, each its own write,
    /// then one segment of all of them; and a segment of one edit alone.
    @Test func anEditTakesAtMost64BytesInASegmentBeyondItsText() throws {
        let directory = try TemporaryDirectory(prefix: "segments")
        let (phone, _, phoneFolder, _) = try Self.twoDevices(directory)
        let ids = try phone.write { tx in try tx.insertRows((0..<1_000).map { "row \($0)" }, intoSection: 0) }.value
        _ = try phone.sync(throughFolder: phoneFolder)
        var random = SeededGenerator(seed: 34_113)
        func segmentBytes(_ edits: () throws -> Void) throws -> (total: Int, text: Int, edits: Int) {
            try edits()
            let written = try #require(try phone.sync(throughFolder: phoneFolder).written)
            let segment = try Segment(decoding: Array(try Data(contentsOf: written)))
            return (
                try Data(contentsOf: written).count, segment.rows.map { $0.title.utf8.count + ($0.payload?.utf8.count ?? 0) }.reduce(0, +),
                segment.rows.count + segment.tombstones.count
            )
        }
        for (kind, edit) in [
            ("retitle", { (i: Int) in try phone.write { tx in try tx.updateRow(id: ids[i], title: "title \(i)") } }),
            ("move", { (i: Int) in try phone.write { tx in try tx.moveRow(id: ids[i], to: ListIndexPath(section: 1, row: Int.random(in: 0...min(i, 3), using: &random))) } }),
            ("insert", { (i: Int) in _ = try phone.write { tx in try tx.insertRows(["new \(i)"], intoSection: 2, at: 0) } }),
            ("delete", { (i: Int) in try phone.write { tx in try tx.deleteRows(ids: [ids[999 - i]]) } }),
        ] as [(String, (Int) throws -> Void)] {
            let many = try segmentBytes { for i in 0..<1_000 { try edit(i) } }
            #expect(many.edits >= 1_000, "\(kind)")
            let perEdit = Double(many.total - many.text) / Double(many.edits)
            print("segment bytes, \(kind): \(perEdit) an edit beyond its text, \(Double(many.total) / Double(many.edits)) with it")
            #expect(perEdit <= 64, "\(kind): \(perEdit) bytes an edit beyond its text")
        }
        let left = try #require(try phone.snapshot().sections[2].rows.first).id
        let one = try segmentBytes { try phone.write { tx in try tx.updateRow(id: left, title: "once") } }
        print("segment bytes, one retitle alone: \(one.total), \(one.text) of them its text")
        #expect(one.total - one.text <= 64, "a segment of one retitle: \(one.total) bytes, \(one.text) of text")
    }
}
