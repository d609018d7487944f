/// A segment file: what one copy of a list changed between two of its clock readings, as another copy's
/// merge reads it (format 1, Docs/Segments.md). A copy writes one into a shared folder that a file-sync
/// engine carries; the others rebuild its registers from them (``PeerMirror``) and merge those.
///
/// The bytes: `LSSEG`, the format version (1), the lineage (8 bytes), then varints (SQLite's): the replica, the
/// clock reading `from` and how far `to` is past it, flags (1: every element, not only those changed after
/// `from`; 2, 4, 8, 16, 32: lists and their tombstones, sections, section tombstones, rows, row tombstones follow), the replica
/// numbers other than 0 that the stamps and ids below name (index 0 is replica 0), then each part flagged, a count then its elements; last, 8 bytes:
/// the FNV-1a 64-bit hash of everything before them, so that a file that has not arrived whole is never
/// read. A segment holds, for every id it names, everything the copy held under that id at `to` (the row
/// or section, its tombstone, or both).
struct Segment: Equatable {
    static let magic: [UInt8] = Array("LSSEG".utf8)
    static let formatVersion: UInt8 = 1

    let lineage: Int64
    let replica: Int64
    /// The copy's clock reading the segment follows on from (0: the first, holding every element).
    let from: Int64
    /// The copy's clock when the segment was read from it.
    let to: Int64
    /// Whether it holds every element of the copy, not only those changed after `from`.
    let isWhole: Bool
    /// Every list of the copy, when one of them changed after `from`, and then every list's tombstone.
    let lists: [ListRegisters]?
    let listTombstones: [(id: Int64, stamp: Int64)]
    let sections: [SectionRegisters]
    let sectionTombstones: [(id: Int64, stamp: Int64)]
    let rows: [RowRegisters]
    let tombstones: [(id: Int64, stamp: Int64)]

    static func == (a: Segment, b: Segment) -> Bool {
        a.lineage == b.lineage && a.replica == b.replica && a.from == b.from && a.to == b.to && a.isWhole == b.isWhole && a.lists == b.lists
            && a.listTombstones.elementsEqual(b.listTombstones, by: ==)
            && a.sections == b.sections && a.rows == b.rows && a.sectionTombstones.elementsEqual(b.sectionTombstones, by: ==)
            && a.tombstones.elementsEqual(b.tombstones, by: ==)
    }

    /// Why bytes are not a segment this version reads.
    struct Unreadable: Error {
        let reason: String
    }

    // MARK: Writing

    func encoded() -> [UInt8] {
        var writer = Writer(to: to)
        // The replica numbers first, so that every stamp and id after names one by its index.
        for list in lists ?? [] {
            writer.note(id: list.id)
            writer.note(stamps: list.nameStamp, list.revivedStamp, OrderKey.stamp(of: list.key) ?? 0)
        }
        for section in sections {
            writer.note(id: section.id, section.list)
            writer.note(stamps: section.titleStamp, section.revivedStamp, OrderKey.stamp(of: section.key) ?? 0)
        }
        for row in rows {
            writer.note(id: row.id, row.section)
            writer.note(stamps: row.titleStamp, row.payloadStamp, row.revivedStamp, OrderKey.stamp(of: row.key) ?? 0)
        }
        for tombstone in sectionTombstones + tombstones + listTombstones {
            writer.note(id: tombstone.id)
            writer.note(stamps: tombstone.stamp)
        }
        var bytes = Segment.magic + [Segment.formatVersion]
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: lineage) >> UInt64(shift))) }
        for value in [UInt64(bitPattern: replica), UInt64(bitPattern: from), UInt64(bitPattern: to &- from)] {
            SQLiteVarint.append(value, to: &bytes)
        }
        let parts: [(flag: UInt64, present: Bool)] = [
            (1, isWhole), (2, lists != nil), (4, !sections.isEmpty), (8, !sectionTombstones.isEmpty), (16, !rows.isEmpty), (32, !tombstones.isEmpty),
        ]
        SQLiteVarint.append(parts.reduce(0) { $0 | ($1.present ? $1.flag : 0) }, to: &bytes)
        writer.bytes = bytes
        writer.count(writer.replicas.count - 1)
        for replica in writer.replicas.dropFirst() { writer.number(replica) }
        if let lists {
            writer.count(lists.count)
            for list in lists {
                writer.id(list.id)
                writer.key(list.key)
                writer.text(list.name)
                writer.stamp(list.nameStamp)
                writer.stamp(list.revivedStamp)
            }
            writer.tombstones(listTombstones)
        }
        if !sections.isEmpty { writer.count(sections.count) }
        for section in sections {
            writer.id(section.id)
            writer.id(section.list)
            writer.key(section.key)
            writer.text(section.title)
            writer.stamp(section.titleStamp)
            writer.stamp(section.revivedStamp)
        }
        if !sectionTombstones.isEmpty { writer.tombstones(sectionTombstones) }
        if !rows.isEmpty { writer.count(rows.count) }
        for row in rows {
            writer.id(row.id)
            writer.id(row.section)
            writer.key(row.key)
            writer.text(row.title)
            if let payload = row.payload {
                writer.number(UInt64(payload.utf8.count) + 1)
                writer.bytes += Array(payload.utf8)
            } else {
                writer.number(0)
            }
            writer.stamp(row.titleStamp)
            writer.stamp(row.payloadStamp)
            writer.stamp(row.revivedStamp)
        }
        if !tombstones.isEmpty { writer.tombstones(tombstones) }
        var hash = Segment.hash(writer.bytes[...])
        for _ in 0..<8 {
            writer.bytes.append(UInt8(hash >> 56))
            hash <<= 8
        }
        return writer.bytes
    }

    /// FNV-1a, 64 bits.
    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private struct Writer {
        let to: Int64
        var bytes: [UInt8] = []
        /// Replica numbers in the order first named; index 0 is replica 0.
        var replicas: [UInt64] = [0]
        private var indexes: [UInt64: Int] = [0: 0]

        init(to: Int64) { self.to = to }

        mutating func note(id ids: Int64...) { for id in ids { noteReplica(UInt64(bitPattern: id) >> 32) } }
        mutating func note(stamps: Int64...) {
            for stamp in stamps where stamp != 0 { noteReplica(UInt64(bitPattern: MergeClock.replica(of: stamp))) }
        }
        private mutating func noteReplica(_ number: UInt64) {
            guard indexes[number] == nil else { return }
            indexes[number] = replicas.count
            replicas.append(number)
        }

        mutating func number(_ value: UInt64) { SQLiteVarint.append(value, to: &bytes) }
        mutating func count(_ value: Int) { number(UInt64(value)) }
        mutating func text(_ value: String) {
            count(value.utf8.count)
            bytes += Array(value.utf8)
        }
        /// An id: the index of its high 32 bits (its replica) among the replicas, then its low 32 bits.
        mutating func id(_ value: Int64) {
            let bits = UInt64(bitPattern: value)
            count(indexes[bits >> 32] ?? 0)
            number(bits & 0xFFFF_FFFF)
        }
        /// A stamp: 0, or 1 + the zigzag of how far its logical time is below `to`, then its replica's index.
        mutating func stamp(_ value: Int64) {
            guard value != 0 else { return number(0) }
            let below = to &- (value >> 20)
            number((UInt64(bitPattern: below << 1) ^ UInt64(bitPattern: below >> 63)) &+ 1)
            count(indexes[UInt64(bitPattern: MergeClock.replica(of: value))] ?? 0)
        }
        /// An order key: its prefix, stamp and ordinal where it has ``OrderKey``'s shape, else its bytes.
        mutating func key(_ key: [UInt8]) {
            guard key.count >= OrderKey.suffixLength, key.last == 1, let stamp = OrderKey.stamp(of: key) else {
                number(UInt64(key.count) << 1)
                bytes += key
                return
            }
            let prefix = key.count - OrderKey.suffixLength
            number(UInt64(prefix) << 1 | 1)
            bytes += key[..<prefix]
            self.stamp(stamp)
            var ordinal: UInt64 = 0
            for byte in key[(key.count - 5)..<(key.count - 1)] { ordinal = ordinal << 8 | UInt64(byte) }
            number(ordinal)
        }
        /// A count, then each tombstone's id and stamp.
        mutating func tombstones(_ list: [(id: Int64, stamp: Int64)]) {
            count(list.count)
            for tombstone in list {
                id(tombstone.id)
                stamp(tombstone.stamp)
            }
        }
    }

    // MARK: Reading

    /// The segment `bytes` hold, or why they are not one: too short, another format, not arrived whole
    /// (the hash), or damaged.
    init(decoding bytes: [UInt8]) throws(Unreadable) {
        guard bytes.count >= Segment.magic.count + 1 + 8, bytes.starts(with: Segment.magic) else {
            throw Unreadable(reason: "it is not a ListStore segment (\(bytes.count) bytes, no LSSEG header)")
        }
        let version = bytes[Segment.magic.count]
        guard version == Segment.formatVersion else {
            throw Unreadable(reason: "it is a segment of format \(version), this version reads format \(Segment.formatVersion)")
        }
        let body = bytes.count - 8
        var stored: UInt64 = 0
        for byte in bytes[body...] { stored = stored << 8 | UInt64(byte) }
        guard Segment.hash(bytes[..<body]) == stored else {
            throw Unreadable(reason: "it has not arrived whole or is damaged (\(bytes.count) bytes, its hash does not match)")
        }
        var reader = Reader(bytes: Array(bytes[..<body]), offset: Segment.magic.count + 1)
        var lineageBits: UInt64 = 0
        for byte in try reader.raw(8) { lineageBits = lineageBits << 8 | UInt64(byte) }
        lineage = Int64(bitPattern: lineageBits)
        replica = Int64(bitPattern: try reader.number())
        from = Int64(bitPattern: try reader.number())
        to = from &+ Int64(bitPattern: try reader.number())
        reader.to = to
        let flags = try reader.number()
        func count(ifFlag flag: UInt64) throws(Unreadable) -> Int { flags & flag == 0 ? 0 : try reader.count() }
        isWhole = flags & 1 != 0
        reader.replicas = [0]
        for _ in 0..<(try reader.count()) { reader.replicas.append(try reader.number()) }
        if flags & 2 != 0 {
            var lists: [ListRegisters] = []
            for _ in 0..<(try reader.count()) {
                lists.append(
                    ListRegisters(id: try reader.id(), key: try reader.key(), name: try reader.text(), nameStamp: try reader.stamp(), revivedStamp: try reader.stamp()))
            }
            self.lists = lists
            listTombstones = try reader.tombstones(try reader.count())
        } else {
            lists = nil
            listTombstones = []
        }
        var sections: [SectionRegisters] = []
        for _ in 0..<(try count(ifFlag: 4)) {
            sections.append(
                SectionRegisters(
                    id: try reader.id(), list: try reader.id(), key: try reader.key(), title: try reader.text(), titleStamp: try reader.stamp(),
                    revivedStamp: try reader.stamp()))
        }
        self.sections = sections
        sectionTombstones = try reader.tombstones(try count(ifFlag: 8))
        var rows: [RowRegisters] = []
        for _ in 0..<(try count(ifFlag: 16)) {
            let id = try reader.id()
            let section = try reader.id()
            let key = try reader.key()
            let title = try reader.text()
            let payloadLength = try reader.count()
            let payload = payloadLength == 0 ? nil : try reader.text(length: payloadLength - 1)
            rows.append(
                RowRegisters(
                    id: id, section: section, key: key, title: title, payload: payload, titleStamp: try reader.stamp(), payloadStamp: try reader.stamp(),
                    revivedStamp: try reader.stamp()))
        }
        self.rows = rows
        tombstones = try reader.tombstones(try count(ifFlag: 32))
        guard reader.offset == reader.bytes.count else { throw Unreadable(reason: "it is damaged: \(reader.bytes.count - reader.offset) bytes follow its last element") }
    }

    init(
        lineage: Int64, replica: Int64, from: Int64, to: Int64, isWhole: Bool, lists: [ListRegisters]?, listTombstones: [(id: Int64, stamp: Int64)],
        sections: [SectionRegisters],
        sectionTombstones: [(id: Int64, stamp: Int64)], rows: [RowRegisters], tombstones: [(id: Int64, stamp: Int64)]
    ) {
        self.lineage = lineage
        self.replica = replica
        self.from = from
        self.to = to
        self.isWhole = isWhole
        self.lists = lists
        self.listTombstones = listTombstones
        self.sections = sections
        self.sectionTombstones = sectionTombstones
        self.rows = rows
        self.tombstones = tombstones
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int
        var to: Int64 = 0
        var replicas: [UInt64] = []

        init(bytes: [UInt8], offset: Int) {
            self.bytes = bytes
            self.offset = offset
        }

        func damaged(_ what: String) -> Unreadable { Unreadable(reason: "it is damaged: \(what) at byte \(offset)") }

        mutating func number() throws(Unreadable) -> UInt64 {
            guard let value = SQLiteVarint.read(bytes, &offset) else { throw damaged("it ends inside a number") }
            return value
        }
        /// A count of what follows: each takes a byte at least, so no count is more than the bytes left.
        mutating func count() throws(Unreadable) -> Int {
            let value = try number()
            guard value <= UInt64(bytes.count - offset) else { throw damaged("a count of \(value) with \(bytes.count - offset) bytes left") }
            return Int(value)
        }
        mutating func raw(_ length: Int) throws(Unreadable) -> ArraySlice<UInt8> {
            guard length <= bytes.count - offset else { throw damaged("\(length) bytes wanted, \(bytes.count - offset) left") }
            defer { offset += length }
            return bytes[offset..<(offset + length)]
        }
        mutating func text() throws(Unreadable) -> String { try text(length: try count()) }
        mutating func text(length: Int) throws(Unreadable) -> String {
            let start = offset
            guard let text = String(strictUTF8: try raw(length)) else {
                throw Unreadable(reason: "it is damaged: text that is not UTF-8 at byte \(start)")
            }
            return text
        }
        mutating func replica() throws(Unreadable) -> UInt64 {
            let index = try number()
            guard index < UInt64(replicas.count) else { throw damaged("replica index \(index) of \(replicas.count)") }
            return replicas[Int(index)]
        }
        mutating func id() throws(Unreadable) -> Int64 {
            let high = try replica()
            let low = try number()
            guard high <= 0xFFFF_FFFF, low <= 0xFFFF_FFFF else { throw damaged("an id out of range") }
            return Int64(bitPattern: high << 32 | low)
        }
        mutating func stamp() throws(Unreadable) -> Int64 {
            let coded = try number()
            guard coded != 0 else { return 0 }
            let zigzag = coded &- 1
            let below = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            let logical = to &- below
            return logical << 20 | Int64(bitPattern: try replica() & UInt64(ReplicaIdentity.numberLimit - 1))
        }
        mutating func key() throws(Unreadable) -> [UInt8] {
            let head = try number()
            guard head & 1 == 1 else { return Array(try raw(try lengthOf(head >> 1))) }
            var key = Array(try raw(try lengthOf(head >> 1)))
            let stamp = UInt64(bitPattern: try self.stamp())
            let ordinal = try number()
            guard ordinal <= UInt64(UInt32.max) else { throw damaged("an order key's ordinal out of range") }
            for shift in stride(from: 56, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: stamp >> UInt64(shift))) }
            for shift in stride(from: 24, through: 0, by: -8) { key.append(UInt8(truncatingIfNeeded: ordinal >> UInt64(shift))) }
            key.append(1)
            return key
        }
        private func lengthOf(_ value: UInt64) throws(Unreadable) -> Int {
            guard value <= UInt64(bytes.count - offset) else { throw damaged("a length of \(value) with \(bytes.count - offset) bytes left") }
            return Int(value)
        }
        mutating func tombstones(_ count: Int) throws(Unreadable) -> [(id: Int64, stamp: Int64)] {
            var found: [(id: Int64, stamp: Int64)] = []
            for _ in 0..<count { found.append((try id(), try stamp())) }
            return found
        }
    }
}
