import SQLiteLayer

/// The edits and reads of one write transaction, handed to the closure of ``ListStore/write(actionName:tracksChanges:_:)``.
///
/// Every edit runs at once, inside the same `BEGIN IMMEDIATE` transaction, and sees the state the
/// edits before it left; if the closure throws, none of them happened. Rows and sections can be named
/// by index (as the store is now, inside the transaction) or by id. The transaction reports one
/// ``ChangeSet`` for all of its edits, in the coordinates before and after the whole transaction.
///
/// A transaction is valid only inside its closure; using it afterwards throws
/// a ``ListStoreError/Family/misuse`` error (transaction finished).
public final class ListTransaction: ListReader {
    /// False for a write that does not track changes: no change set, and memory that does not grow with the edits.
    let tracksChanges: Bool
    /// The first edit's own change set: the whole transaction's when it is the only edit.
    private var firstChanges: ChangeSet?
    /// How many edits changed something.
    private(set) var editCount = 0
    /// Every edit's events, in order: the tracker's input, and what the change log records.
    private(set) var events: [EditEvent] = []
    /// Built from the events only when a second edit arrives, so that a one-edit transaction costs no tracking.
    private var tracker: ChangeTracker?
    fileprivate var sectionOrderVerified = false
    /// Whether the file indexes any payload field (asked at the first edit that writes rows): then every
    /// edit notes the rows it writes, whose index entries the write brings up to date before it commits.
    private var indexesPayloads: Bool?

    /// When this transaction's edits split and merge blocks of rows.
    let sizes: RowBlockSizes
    /// What undoing this transaction needs, captured by its edits; nil when the store keeps no history
    /// for it (an untracked write, a history limit of 0).
    var history: HistoryCapture?

    /// The change log's state as the write found it, before marking the transaction: where index paths
    /// drawn at an earlier version are translated from (``asOf(_:)``).
    var logStateAtStart: LogState?

    /// The name an undo menu shows for this transaction ("Delete 2 Rows"), stored with its history
    /// entry; nil for none. Set it anywhere inside the write's closure (or pass `actionName:` to the write).
    public var actionName: String?

    init(_ db: Connection, list: Int64, tracksChanges: Bool = true, sizes: RowBlockSizes = .standard) {
        self.tracksChanges = tracksChanges
        self.sizes = sizes
        super.init(db, list: list)
    }

    /// Notes one edit, as its primitive describes it: its history step (when the transaction keeps
    /// history), what the copies of the list need to merge it (``MergeRegisters``), its rows for the
    /// payload indexes, and — when the write tracks changes — its change set
    /// and change-log events. Every edit primitive calls this once (a move between lists once on each
    /// list's transaction), after its write; a delete of sections before it, while their rows are
    /// there to be copied into the history.
    func record(_ edit: ListEdit) throws {
        try history?.record(edit)
        guard !edit.changesNothing else { return }
        editCount += 1
        try MergeRegisters.record(edit, list: list, db)
        try notePayloadWrites(edit)
        guard tracksChanges else { return }
        let newEvents = edit.logEvents(forList: list)
        if editCount == 2 {
            var first = ChangeTracker()
            for event in events { first.apply(event) }
            tracker = first
            firstChanges = nil
        }
        if var current = tracker {
            tracker = nil  // so that `current` is the only reference and updates in place
            for event in newEvents { current.apply(event) }
            tracker = current
        } else {
            firstChanges = edit.changes(forList: list)
        }
        events += newEvents
    }

    /// Notes the rows `edit` wrote or deleted for the payload indexes (``PayloadIndex``), when there are
    /// any; a move changes no payload. The rows of deleted sections are noted while they are still
    /// there (their edit is recorded before they go); a section moved to another list is not.
    private func notePayloadWrites(_ edit: ListEdit) throws {
        switch edit {
        case .rowsInserted(let runs):
            guard try payloadsIndexed() else { return }
            for run in runs { try PayloadIndex.markStale(runs: EditEvent.runs(run.rows.map(\.id)), db) }
        case .rowsRestored(let run):
            guard try payloadsIndexed() else { return }
            try PayloadIndex.markStale(runs: EditEvent.runs(run.rows.map(\.id)), db)
        case .rowUpdated(let update):
            guard try payloadsIndexed() else { return }
            try PayloadIndex.markStale(row: update.id, title: update.old.title, db)
        case .sectionRestored(let section):
            guard try payloadsIndexed() else { return }
            try PayloadIndex.markStale(section: section.id, db)
        case .rowsDeleted(let rows):
            guard try payloadsIndexed() else { return }
            try PayloadIndex.noteDeleting(.rows(rows.map(\.id)), indexed: true, db)  // noted with their titles before they went (noteDeletingRows)
        case .rowTransferred(let transfer):
            // Noted as deleted in the list it left (harmless), as written in the one it reached.
            guard try payloadsIndexed() else { return }
            if list == transfer.fromList { try PayloadIndex.noteDeleting(.rows([transfer.row.id.rawValue]), indexed: true, db) }
            if list == transfer.toList { try PayloadIndex.markStale(runs: EditEvent.runs([transfer.row.id]), indexedAsTheyAre: true, db) }
        case .sectionsDeleted(let sections):
            try PayloadIndex.noteDeleting(.sections(sections.map(\.id)), indexed: try payloadsIndexed(), db)
        case .sectionInserted, .sectionMoved, .sectionRenamed, .rowMoved, .sectionTransferred:
            return
        }
    }

    /// Notes rows about to be deleted with their titles, which the index of titles holds (when writes note
    /// their rows): once they are gone, their words could not be removed from it.
    func noteDeletingRows(_ ids: [Int64]) throws {
        guard try payloadsIndexed() else { return }
        try PayloadIndex.markStale(existing: ids, db)
    }

    /// Whether writes note their rows (``PayloadIndex/notesWrites(_:)``), asked once per transaction.
    private func payloadsIndexed() throws -> Bool {
        if let indexesPayloads { return indexesPayloads }
        let found = try PayloadIndex.notesWrites(db)
        indexesPayloads = found
        return found
    }

    /// What the change log records for this transaction.
    var logEntry: ChangeLog.Entry {
        tracksChanges || editCount == 0 ? .edits(ListedEvents(events, list: list)) : .structure(lists: [list])
    }

    /// The change set of the whole transaction; ends the transaction for further use.
    func finish() throws -> ChangeSet {
        close()
        guard tracksChanges else { return ChangeSet() }
        switch editCount {
        case 0: return ChangeSet()
        case 1: return firstChanges?.sorted() ?? ChangeSet()
        default: return try tracker?.changes(db, list: list) ?? ChangeSet()
        }
    }
}

extension ListTransaction {
    /// The number of sections, after checking once per transaction that their positions are dense
    /// (the transaction's own edits keep them so).
    @discardableResult
    func verifiedSectionCount() throws -> Int {
        if sectionOrderVerified { return try SectionOrder.count(db, list: list) }
        let count = try SectionOrder.verifyForEdit(db, list: list)
        sectionOrderVerified = true
        return count
    }

    /// Section `index`, with the checks an edit runs before using it.
    func checkedSection(at index: Int) throws -> SectionRows {
        try verifiedSectionCount()
        return try SectionRows.load(section: index, list: list, db, sizes: sizes)
    }

    /// The section with id `id`, with the checks an edit runs before using it.
    func checkedSection(id: SectionID) throws -> SectionRows {
        try verifiedSectionCount()
        return try SectionRows.load(sectionID: id.rawValue, index: try db.existingSectionIndex(id, list: list), db, sizes: sizes)
    }
}
