import SQLiteLayer

extension ChangeLog {
    /// Why the commits after a version cannot be followed: the reason for
    /// ``ListStoreError/versionNotTranslatable(_:reason:)``.
    struct Untranslatable: Error, Hashable {
        let reason: String
    }

    /// The edit events in list `list` of every commit after `version` up to the state `db` sees, oldest first: what
    /// translates an index path drawn at `version` to the one it names now. Hand edits of titles and
    /// payloads (`row` and `section` entries) move nothing and are left out. `found` is the state row as
    /// the transaction found it (a write marks it before its body runs).
    ///
    /// Throws ``Untranslatable`` when they cannot be known: `version` names no state of this log (or one
    /// after the last entry), entries after it were dropped (only ``keptEntries`` are kept) or deleted by
    /// hand, one cannot be trusted, one is a `structure` entry (an import, a repair, an untracked write,
    /// a hand edit that moved, inserted or deleted rows or sections), or hand edits may have gone
    /// unlogged (``LogState``).
    static func events(since version: ListVersion, found: LogState, list: Int64, _ db: Connection) throws -> [EditEvent] {
        func refuse(_ reason: String) -> Untranslatable { Untranslatable(reason: reason) }
        guard version.isVersioned else {
            throw refuse("it names no state of the change log (a snapshot built by hand, or read from a file that had no change log)")
        }
        guard found == .sound else {
            throw refuse("the change log's state row was changed by hand, so edits made outside ListStore may not have been logged")
        }
        let head = try LogHead.read(db)
        guard version.rawValue <= head.lastSequence else {
            throw refuse("the file's last commit is version \(head.lastSequence): this version is not one of its states (another file's, or a restored backup's)")
        }
        let entries = try entries(after: version.rawValue, db)
        guard isUnbroken(entries, after: version.rawValue, upTo: head.lastSequence) else {
            let oldest = entries.first.map { "\($0.sequence)" } ?? "none"
            throw refuse(
                "the change log no longer holds every commit since (it keeps the last \(keptEntries); the oldest it holds is \(oldest), the newest \(head.lastSequence))"
            )
        }
        let limits = LogEntryLimits(head, since: nil)
        var inserted: Int64 = 0
        var events: [EditEvent] = []
        for entry in entries {
            switch read(entry, limits, inserted: &inserted) {
            case .failure(let damage):
                throw refuse("change-log entry \(damage.sequence) cannot be trusted (\(damage.reason))")
            case .success(.edits(let edits)):
                events += edits.events(of: list)
            case .success(.row), .success(.section):
                break
            case .success(.structure(let lists)) where lists.map({ !$0.contains(list) }) ?? false:
                break
            case .success(.structure):
                throw refuse(
                    "commit \(entry.sequence) changed the file in a way the change log does not describe (an import, a repair, an untracked write, or rows or sections inserted, deleted or moved outside ListStore)"
                )
            }
        }
        return events
    }
}
