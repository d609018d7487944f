@testable import ListStore

/// The merge semantics of issue 34 (one list on several devices), as a small in-memory model: the oracle the
/// SQLite implementation will be checked against, and the place where each semantic choice is pinned by a test
/// before any file format depends on it. Docs/Merging.md describes the design; nothing in the library uses this.
///
/// Every edit is a set of operations made with one ``MergeStamp`` (a Lamport time, the replica breaking ties),
/// each operation known by that stamp and its ordinal in the edit. A replica's state is a function of the set of
/// operations it has seen, whatever order they arrived in:
/// - Each list, section and row has one *place register*, last writer wins by stamp: the container it stands in
///   (0: the file's lists; else a list's or section's id) and its *order key* (``OrderKey``). Siblings are ordered
///   by their keys as byte strings, as SQLite compares BLOBs. A key is made strictly between the keys of the
///   neighbours an edit put the element between, and ends in the edit's stamp and the element's ordinal, so the
///   elements one edit inserts together form a run that never interleaves with another device's run made at the
///   same spot (the runs are ordered by stamp).
/// - A move gives the element a new key between its new neighbours, in its new container: a row is never
///   duplicated or lost, the newest move wins, and a concurrent title edit survives it (fields are registers of
///   their own). Keys are absolute, so the spot a row left keeps no record: rows inserted there stay there.
/// - Undoing a move points the register back to the old container and key, only if it still holds the move.
/// - Deleting is a register too (deleted or not), so a concurrent edit or move never brings a row back.
/// - A deleted section that still holds a live row (inserted or moved in by a device that had not seen the
///   delete) is shown again, holding only those rows; likewise a list.
struct MergeStamp: Hashable, Comparable, CustomStringConvertible {
    /// A Lamport counter: greater than every stamp the replica had seen when it made this one.
    var counter: Int
    /// The replica that made it: breaks ties, so no two stamps are equal.
    var replica: Int

    static func < (a: Self, b: Self) -> Bool { (a.counter, a.replica) < (b.counter, b.replica) }
    var description: String { "\(counter)@\(replica)" }
    /// The stamp as the file stores it (`logical << 20 | replica`), in the same order as the stamps.
    var value: Int64 { Int64(counter) << 20 | Int64(replica) }
}

/// One operation's identity: the stamp of its edit and its ordinal in that edit.
struct MergeOperationID: Hashable, Comparable {
    var stamp: MergeStamp
    var ordinal: Int

    static func < (a: Self, b: Self) -> Bool { (a.stamp, a.ordinal) < (b.stamp, b.ordinal) }
}

/// What a list, section or row is: which kind of container it must stand in.
enum MergeKind: Hashable { case list, section, row }

/// Where an element stands: its container and its order key there.
struct MergePlace: Hashable {
    var container: Int
    var key: [UInt8]
}

/// What one operation writes.
enum MergeChange: Hashable {
    /// `element`'s place register: it stands in `container` at `key` from now on, unless a newer write says otherwise.
    case assign(element: Int, kind: MergeKind, container: Int, key: [UInt8])
    /// A field (the title, a payload) of `element`; the newest value wins.
    case set(element: Int, field: String, value: String)
    /// `element` is deleted (or, for an undo of a delete, not deleted) from now on, unless a newer one says otherwise.
    case setDeleted(element: Int, deleted: Bool)
}

/// One operation. An edit is several, made in one transaction with one stamp and consecutive ordinals.
struct MergeOperation: Hashable {
    var id: MergeOperationID
    var change: MergeChange

    var stamp: MergeStamp { id.stamp }
}

/// One replica's state: the operations it has seen and what they add up to.
struct MergeReplica {
    let replica: Int
    private(set) var clock = 0
    /// Every operation seen, by identity: what a peer merges from (a file holds the log of every replica it merged).
    private(set) var log: [MergeOperationID: MergeOperation] = [:]
    private var register: [Int: (place: MergePlace, id: MergeOperationID, kind: MergeKind)] = [:]
    /// Each container's occupants (live or deleted), ordered by key: kept from the registers.
    private var children: [Int: [(key: [UInt8], element: Int)]] = [:]
    private var fields: [Int: [String: (value: String, id: MergeOperationID)]] = [:]
    private var deleted: [Int: (value: Bool, id: MergeOperationID)] = [:]

    init(replica: Int) { self.replica = replica }

    /// A replica started again from what its file holds: the same log, replayed.
    init(restartedFrom other: MergeReplica) {
        self.init(replica: other.replica)
        merge(other.log.values)
    }

    // MARK: Merging

    /// Applies the operations not seen yet (in any order: every one writes a register, and the newest write
    /// wins). Applying one twice changes nothing.
    mutating func merge(_ operations: some Sequence<MergeOperation>) {
        var unseen: [MergeOperationID: MergeOperation] = [:]
        for operation in operations where log[operation.id] == nil { unseen[operation.id] = operation }
        for id in unseen.keys.sorted() {
            if let operation = unseen[id] { apply(operation) }
        }
    }

    private mutating func apply(_ operation: MergeOperation) {
        let id = operation.id
        log[id] = operation
        clock = max(clock, id.stamp.counter)
        switch operation.change {
        case .assign(let element, let kind, let container, let key):
            if let current = register[element] {
                if current.id > id { return }
                children[current.place.container]?.removeAll { $0.element == element }
            }
            register[element] = (MergePlace(container: container, key: key), id, kind)
            var siblings = children[container, default: []]
            let index = siblings.firstIndex { Self.precedes((key, element), $0) } ?? siblings.count
            siblings.insert((key, element), at: index)
            children[container] = siblings
        case .set(let element, let field, let value):
            if let current = fields[element]?[field], current.id > id { return }
            fields[element, default: [:]][field] = (value, id)
        case .setDeleted(let element, let value):
            if let current = deleted[element], current.id > id { return }
            deleted[element] = (value, id)
        }
    }

    /// Sibling order: by key as SQLite compares BLOBs (a prefix first); the element breaks a tie no edit makes.
    private static func precedes(_ a: (key: [UInt8], element: Int), _ b: (key: [UInt8], element: Int)) -> Bool {
        a.key == b.key ? a.element < b.element : a.key.lexicographicallyPrecedes(b.key)
    }

    // MARK: Reading

    /// The container an element stands in now.
    func container(of element: Int) -> Int? { register[element]?.place.container }
    func title(of element: Int) -> String? { fields[element]?["title"]?.value }
    func isDeleted(_ element: Int) -> Bool { deleted[element]?.value ?? false }
    /// The stamp of the edit that put the element where it is.
    func placeStamp(of element: Int) -> MergeStamp? { register[element]?.id.stamp }
    /// Where the element stands now: what an undo of a later move points its register back to.
    func currentPlace(of element: Int) -> MergePlace? { register[element]?.place }
    /// The order key the element stands at in its container.
    func key(of element: Int) -> [UInt8]? { register[element]?.place.key }

    /// The elements whose register points into `container`, ordered by key, live or deleted.
    func occupants(of container: Int) -> [Int] {
        (children[container] ?? []).map(\.element)
    }

    /// Whether an element is shown: not deleted, or (a section, a list) still holding a shown element.
    func isShown(_ element: Int) -> Bool {
        guard let kind = register[element]?.kind else { return false }
        if !isDeleted(element) { return true }
        return kind != .row && occupants(of: element).contains { isShown($0) }
    }

    /// What every replica must agree on: lists, their sections, their rows, in order, with titles.
    func visible() -> [String] {
        var lines: [String] = []
        for list in occupants(of: 0) where isShown(list) {
            lines.append("list \(list) \(title(of: list) ?? "")")
            for section in occupants(of: list) where isShown(section) {
                lines.append("  section \(section) \(title(of: section) ?? "")")
                for row in occupants(of: section) where isShown(row) {
                    lines.append("    row \(row) \(title(of: row) ?? "") \(fields[row]?["payload"]?.value ?? "")")
                }
            }
        }
        return lines
    }

    // MARK: Editing (what a device does locally)

    private mutating func nextStamp() -> MergeStamp {
        clock += 1
        return MergeStamp(counter: clock, replica: replica)
    }

    /// The keys of the neighbours an element inserted at `index` among `shown` (a container's shown occupants,
    /// as the app sees them) stands between; an index past the end is the end.
    private func neighbourKeys(among shown: [Int], at index: Int) -> (lower: [UInt8]?, upper: [UInt8]?) {
        let index = min(max(index, 0), shown.count)
        return (index > 0 ? key(of: shown[index - 1]) : nil, index < shown.count ? key(of: shown[index]) : nil)
    }

    /// Makes one edit: the changes get the edit's stamp and ordinals 0 on; returns the operations, already applied.
    private mutating func edit(_ changes: (MergeStamp) -> [MergeChange]) -> [MergeOperation] {
        let stamp = nextStamp()
        let made = changes(stamp).enumerated().map { MergeOperation(id: MergeOperationID(stamp: stamp, ordinal: $0.offset), change: $0.element) }
        merge(made)
        return made
    }

    /// Inserts new elements (a run) at `index` of `container`; returns the operations made, already applied.
    @discardableResult
    mutating func insert(_ elements: [(id: Int, title: String)], kind: MergeKind, into container: Int, at index: Int) -> [MergeOperation] {
        let (lower, upper) = neighbourKeys(among: occupants(of: container).filter { isShown($0) }, at: index)
        return edit { stamp in
            // The assignment of element i is operation i, and its key carries that ordinal; the titles follow.
            let keys = OrderKey.keys(between: lower, and: upper, count: elements.count, stamp: stamp.value, firstOrdinal: 0)
            let assignments = zip(elements, keys).map { MergeChange.assign(element: $0.id, kind: kind, container: container, key: $1) }
            return assignments + elements.map { .set(element: $0.id, field: "title", value: $0.title) }
        }
    }

    /// Moves `element` to `index` among the shown occupants of `container` (its index after the move).
    @discardableResult
    mutating func move(_ element: Int, to container: Int, at index: Int) -> [MergeOperation] {
        guard let kind = register[element]?.kind else { return [] }
        let (lower, upper) = neighbourKeys(among: occupants(of: container).filter { $0 != element && isShown($0) }, at: index)
        return edit { stamp in
            let key = OrderKey.keys(between: lower, and: upper, count: 1, stamp: stamp.value, firstOrdinal: 0)[0]
            return [.assign(element: element, kind: kind, container: container, key: key)]
        }
    }

    /// Puts `element` back at a place it stood at before (the undo of a move), if its register still holds the
    /// move made with `expected`: otherwise changes nothing and says so by returning no operation.
    @discardableResult
    mutating func undoMove(_ element: Int, backTo place: MergePlace, expected: MergeStamp) -> [MergeOperation] {
        guard let entry = register[element], entry.id.stamp == expected else { return [] }
        return edit { _ in [.assign(element: element, kind: entry.kind, container: place.container, key: place.key)] }
    }

    @discardableResult
    mutating func set(_ element: Int, field: String = "title", to value: String) -> [MergeOperation] {
        edit { _ in [.set(element: element, field: field, value: value)] }
    }

    /// Deletes `element`; a section or list takes the rows (sections) it shows with it, by id, and only those.
    @discardableResult
    mutating func delete(_ element: Int) -> [MergeOperation] {
        var targets = [element]
        if register[element]?.kind != .row {
            for child in occupants(of: element) where isShown(child) {
                targets.append(child)
                if register[child]?.kind == .section { targets += occupants(of: child).filter { isShown($0) } }
            }
        }
        return edit { _ in targets.map { .setDeleted(element: $0, deleted: true) } }
    }

    /// The undo of a delete: the element is not deleted any more (its register still holds its place).
    @discardableResult
    mutating func undelete(_ element: Int) -> [MergeOperation] {
        edit { _ in [.setDeleted(element: element, deleted: false)] }
    }
}
