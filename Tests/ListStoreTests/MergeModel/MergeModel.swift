/// The merge semantics of issue 34 (one list on several devices), as a small in-memory model: the oracle the
/// SQLite implementation will be checked against, and the place where each semantic choice is pinned by a test
/// before any file format depends on it. Docs/Merging.md describes the design; nothing in the library uses this.
///
/// Every edit is a set of operations, each with a unique ``MergeStamp``. A replica's state is a function of the
/// set of operations it has seen, whatever order they arrived in:
/// - Each list, section and row has one *place register*: which place it stands at, last writer wins. A place
///   is created once, in one container (the lists, a list's sections, a section's rows), right after another
///   place of that container (its origin) or at its start, and never goes away: a place a row left stays in the
///   sequence, vacant, so that places created after it still find their spot. Places are ordered as in RGA:
///   among places with the same origin, the newest first, each followed by the places created after it.
///   Rows inserted together form a chain (each after the one before), so two chains inserted at one spot
///   never interleave.
/// - A move creates a place and points the register at it: a row is never duplicated or lost, the newest move
///   wins, and a concurrent title edit survives it (fields are registers of their own).
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
}

/// What a list, section or row is: which kind of container its place must be in.
enum MergeKind: Hashable { case list, section, row }

/// One operation. An edit is several, made in one transaction with consecutive stamps.
enum MergeOperation: Hashable {
    /// A new place in `container` (0: the file's lists; else a list's or section's id), right after `origin`
    /// (a place of the same container), or at the start when `origin` is nil.
    case newPlace(MergeStamp, container: Int, origin: MergeStamp?)
    /// `element` stands at `place` (created earlier) from now on, unless a newer assignment says otherwise.
    case assign(MergeStamp, element: Int, kind: MergeKind, place: MergeStamp)
    /// A field (the title, a payload) of `element`; the newest value wins.
    case set(MergeStamp, element: Int, field: String, value: String)
    /// `element` is deleted (or, for an undo of a delete, not deleted) from now on, unless a newer one says otherwise.
    case setDeleted(MergeStamp, element: Int, deleted: Bool)

    var stamp: MergeStamp {
        switch self {
        case .newPlace(let s, _, _), .assign(let s, _, _, _), .set(let s, _, _, _), .setDeleted(let s, _, _): s
        }
    }
}

/// One replica's state: the operations it has seen and what they add up to.
struct MergeReplica {
    let replica: Int
    private(set) var clock = 0
    /// Every operation seen, by stamp: what a peer merges from (a file holds the log of every replica it merged).
    private(set) var log: [MergeStamp: MergeOperation] = [:]
    /// Each container's places in order, vacant ones included.
    private(set) var places: [Int: [MergeStamp]] = [:]
    private var placeContainer: [MergeStamp: Int] = [:]
    private var register: [Int: (place: MergeStamp, stamp: MergeStamp, kind: MergeKind)] = [:]
    private var occupant: [MergeStamp: Int] = [:]
    private var fields: [Int: [String: (value: String, stamp: MergeStamp)]] = [:]
    private var deleted: [Int: (value: Bool, stamp: MergeStamp)] = [:]

    init(replica: Int) { self.replica = replica }

    /// A replica started again from what its file holds: the same log, replayed in stamp order.
    init(restartedFrom other: MergeReplica) {
        self.init(replica: other.replica)
        merge(other.log.values)
    }

    // MARK: Merging

    /// Applies the operations not seen yet, oldest first (a stamp is greater than those of the operations it
    /// depends on, so their places exist by then). Applying one twice changes nothing.
    mutating func merge(_ operations: some Sequence<MergeOperation>) {
        var unseen: [MergeStamp: MergeOperation] = [:]
        for operation in operations where log[operation.stamp] == nil { unseen[operation.stamp] = operation }
        for stamp in unseen.keys.sorted() {
            if let operation = unseen[stamp] { apply(operation) }
        }
    }

    private mutating func apply(_ operation: MergeOperation) {
        log[operation.stamp] = operation
        clock = max(clock, operation.stamp.counter)
        switch operation {
        case .newPlace(let stamp, let container, let origin):
            var sequence = places[container, default: []]
            var index = origin.flatMap { sequence.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            while index < sequence.count, sequence[index] > stamp { index += 1 }
            sequence.insert(stamp, at: index)
            places[container] = sequence
            placeContainer[stamp] = container
        case .assign(let stamp, let element, let kind, let place):
            if let current = register[element] {
                if current.stamp > stamp { return }
                occupant[current.place] = nil
            }
            register[element] = (place, stamp, kind)
            occupant[place] = element
        case .set(let stamp, let element, let field, let value):
            if let current = fields[element]?[field], current.stamp > stamp { return }
            fields[element, default: [:]][field] = (value, stamp)
        case .setDeleted(let stamp, let element, let value):
            if let current = deleted[element], current.stamp > stamp { return }
            deleted[element] = (value, stamp)
        }
    }

    // MARK: Reading

    /// The container an element stands in now.
    func container(of element: Int) -> Int? { register[element].flatMap { placeContainer[$0.place] } }
    func title(of element: Int) -> String? { fields[element]?["title"]?.value }
    func isDeleted(_ element: Int) -> Bool { deleted[element]?.value ?? false }
    /// The stamp of the assignment that put the element where it is.
    func placeStamp(of element: Int) -> MergeStamp? { register[element]?.stamp }
    func currentPlace(of element: Int) -> MergeStamp? { register[element]?.place }

    /// The elements standing in `container`, in order, live or deleted.
    func occupants(of container: Int) -> [Int] {
        (places[container] ?? []).compactMap { occupant[$0] }
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

    /// The place an element would stand after, were it inserted at `index` among the shown occupants of `container`.
    private func origin(in container: Int, at index: Int) -> MergeStamp? {
        let shown = occupants(of: container).filter { isShown($0) }
        guard index > 0, index - 1 < shown.count else { return nil }
        return register[shown[index - 1]]?.place
    }

    /// Inserts new elements (a run) at `index` of `container`; returns the operations made, already applied.
    @discardableResult
    mutating func insert(_ elements: [(id: Int, title: String)], kind: MergeKind, into container: Int, at index: Int) -> [MergeOperation] {
        var origin = origin(in: container, at: index)
        var made: [MergeOperation] = []
        for element in elements {
            let place = nextStamp()
            made.append(.newPlace(place, container: container, origin: origin))
            made.append(.assign(nextStamp(), element: element.id, kind: kind, place: place))
            made.append(.set(nextStamp(), element: element.id, field: "title", value: element.title))
            origin = place
        }
        merge(made)
        return made
    }

    /// Moves `element` to `index` among the shown occupants of `container` (its index after the move).
    @discardableResult
    mutating func move(_ element: Int, to container: Int, at index: Int) -> [MergeOperation] {
        guard let kind = register[element]?.kind else { return [] }
        let without = occupants(of: container).filter { $0 != element && isShown($0) }
        let origin = index > 0 && index - 1 < without.count ? register[without[index - 1]]?.place : nil
        let place = nextStamp()
        let made: [MergeOperation] = [
            .newPlace(place, container: container, origin: origin), .assign(nextStamp(), element: element, kind: kind, place: place),
        ]
        merge(made)
        return made
    }

    /// Puts `element` back at a place it stood at before (the undo of a move), if no newer assignment than
    /// `expected` was made since: otherwise changes nothing and says so by returning no operation.
    @discardableResult
    mutating func undoMove(_ element: Int, backTo place: MergeStamp, expected: MergeStamp) -> [MergeOperation] {
        guard let entry = register[element], entry.stamp == expected else { return [] }
        let made: [MergeOperation] = [.assign(nextStamp(), element: element, kind: entry.kind, place: place)]
        merge(made)
        return made
    }

    @discardableResult
    mutating func set(_ element: Int, field: String = "title", to value: String) -> [MergeOperation] {
        let made: [MergeOperation] = [.set(nextStamp(), element: element, field: field, value: value)]
        merge(made)
        return made
    }

    /// Deletes `element`; a section or list takes the rows (sections) it shows with it, and only those.
    @discardableResult
    mutating func delete(_ element: Int) -> [MergeOperation] {
        var targets = [element]
        if register[element]?.kind != .row {
            for child in occupants(of: element) where isShown(child) {
                targets.append(child)
                if register[child]?.kind == .section { targets += occupants(of: child).filter { isShown($0) } }
            }
        }
        var made: [MergeOperation] = []
        for target in targets { made.append(.setDeleted(nextStamp(), element: target, deleted: true)) }
        merge(made)
        return made
    }

    /// The undo of a delete: the element is not deleted any more (its place never went away).
    @discardableResult
    mutating func undelete(_ element: Int) -> [MergeOperation] {
        let made: [MergeOperation] = [.setDeleted(nextStamp(), element: element, deleted: false)]
        merge(made)
        return made
    }
}
