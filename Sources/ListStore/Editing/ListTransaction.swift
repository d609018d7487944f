import SQLiteLayer

/// The edits and reads of one write transaction, handed to the closure of ``ListStore/write(_:)``.
///
/// Every edit runs at once, inside the same `BEGIN IMMEDIATE` transaction, and sees the state the
/// edits before it left; if the closure throws, none of them happened. Rows and sections can be named
/// by index (as the store is now, inside the transaction) or by id. The transaction reports one
/// ``ChangeSet`` for all of its edits, in the coordinates before and after the whole transaction.
///
/// A transaction is valid only inside its closure; using it afterwards throws
/// ``ListStoreError/transactionFinished``.
public final class ListTransaction: ListReader {
    /// The change sets of the edits so far, with what the tracker needs; replayed into a tracker only
    /// when a second edit arrives, so that a one-edit transaction costs no tracking.
    private var edits: [(changes: ChangeSet, report: (inout ChangeTracker) -> Void)] = []
    private var tracker: ChangeTracker?
    fileprivate var sectionOrderVerified = false


    /// Notes one edit's own change set and how it reports to a tracker.
    func record(_ changes: ChangeSet, _ report: @escaping (inout ChangeTracker) -> Void) {
        guard !changes.isEmpty else { return }
        if edits.count == 1, tracker == nil {
            var first = ChangeTracker()
            edits[0].report(&first)
            tracker = first
        }
        if var current = tracker {
            tracker = nil  // so that `current` is the only reference and updates in place
            report(&current)
            tracker = current
        }
        edits.append((changes, report))
    }

    /// The change set of the whole transaction; ends the transaction for further use.
    func finish() throws -> ChangeSet {
        close()
        switch edits.count {
        case 0: return ChangeSet()
        case 1: return edits[0].changes.sorted()
        default: return try tracker?.changes(db) ?? ChangeSet()
        }
    }
}

extension ListTransaction {
    /// The number of sections, after checking once per transaction that their positions are dense
    /// (the transaction's own edits keep them so).
    @discardableResult
    func verifiedSectionCount() throws -> Int {
        if sectionOrderVerified { return try SectionOrder.count(db) }
        let count = try SectionOrder.verify(db)
        sectionOrderVerified = true
        return count
    }

    /// Section `index`, with the checks an edit runs before using it.
    func checkedSection(at index: Int) throws -> SectionRows {
        try verifiedSectionCount()
        return try SectionRows.load(section: index, db)
    }

    /// The section with id `id`, with the checks an edit runs before using it.
    func checkedSection(id: SectionID) throws -> SectionRows {
        try verifiedSectionCount()
        guard let index = try db.scalarInt("SELECT position FROM sections WHERE id = ?1", [.integer(id.rawValue)]) else {
            throw ListStoreError.unknownSection(id)
        }
        return try SectionRows.load(sectionID: id.rawValue, index: index, db)
    }
}
