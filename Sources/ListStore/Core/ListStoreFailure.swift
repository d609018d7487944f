import Foundation
import SQLiteLayer

/// Each way a store's call can fail, with the offending input; its ``description`` is the message a
/// ``ListStoreError`` shows. Internal: apps tell failures apart by ``ListStoreError/Family``, which new
/// reasons join without breaking an app's `switch`.
package enum ListStoreFailure: Hashable, Sendable, CustomStringConvertible {
    /// A section index that does not exist.
    case sectionIndexOutOfRange(index: Int, sectionCount: Int)
    /// A section insertion index outside `0...sectionCount`.
    case sectionInsertionIndexOutOfRange(index: Int, sectionCount: Int)
    /// A row index path whose row does not exist (its section exists).
    case rowIndexOutOfRange(ListIndexPath, rowCount: Int)
    /// A row insertion point or move destination outside `0...maxRow` of its section.
    case rowDestinationOutOfRange(ListIndexPath, maxRow: Int)
    /// The same index path given twice in one call.
    case duplicateIndexPath(ListIndexPath)
    /// The same section index given twice in one call.
    case duplicateSectionIndex(Int)
    /// The same row id given twice in one call.
    case duplicateRowID(RowID)
    /// The same section id given twice in one call.
    case duplicateSectionID(SectionID)
    /// A row id that is not in the store (never existed, or was deleted).
    case unknownRow(RowID)
    /// A section id that is not in the store.
    case unknownSection(SectionID)
    /// A payload that is not valid JSON.
    case invalidPayload(String)
    /// A title that cannot be stored, with the reason.
    case invalidTitle(String, reason: String)
    /// An import into a store that already has sections, without asking to replace them.
    case storeNotEmpty(sectionCount: Int)
    /// An imported document that cannot be loaded, with the reason.
    case invalidDocument(String)
    /// A section whose rows were changed outside ListStore so that its block, page or row counts do not
    /// hold (or with positions beyond ±2^61); edits to it are refused until it is repaired.
    case positionsDamaged(section: Int)
    /// The file exists but is not a ListStore database; nothing was written to it.
    case notAListStore(path: String, reason: String)
    /// The file's schema was changed outside ListStore (an object added, changed or removed); nothing was written to it.
    case schemaAltered(path: String, detail: String)
    /// The file was written by a newer ListStore; nothing was written to it.
    case newerSchema(path: String, fileVersion: Int, supportedVersion: Int)
    /// The file needs migrating but was opened read-only.
    case needsMigration(path: String, fileVersion: Int, supportedVersion: Int)
    /// A mutation of a store opened with `.readOnly` or `.inspect`.
    case openedForReading(path: String)
    /// Another connection held the write lock for longer than the busy timeout; nothing was changed.
    case busy(String)
    /// The file, or its folder, cannot be written; nothing was changed.
    case readOnly(String)
    /// The disk (or the database's size limit) is full; nothing was changed.
    case full(String)
    /// A file reached the process's file size limit (`ulimit -f`); nothing was changed.
    case fileSizeLimit(String)
    /// ``ListStore/backup(to:)`` was given a path where something already is (a file, a folder, a
    /// symbolic link): a backup never overwrites; nothing was written.
    case backupTargetExists(path: String)
    /// ``ListStore/backup(to:)`` wrote no file at `path`, for `reason` (the database itself is unchanged
    /// and nothing is left behind); `remedy` says what to do.
    case backupFailed(path: String, reason: String, remedy: String)
    /// The file is damaged; nothing was changed.
    case corrupt(String)
    /// Any other SQLite failure: its result code, SQLite's message and the SQL that failed.
    case database(DatabaseFailure)
    /// The section positions were changed outside ListStore (a gap, or not starting at 0): the list's
    /// `sectionCount` sections are at positions `lowest…highest`, not `0…sectionCount - 1`. Edits and reads
    /// are refused until they are repaired, because an index would not name the section a table view shows.
    case sectionOrderDamaged(sectionCount: Int, lowest: Int, highest: Int)
    /// The list's recorded section count (`lists.section_count`, schema 12) was changed outside ListStore,
    /// or sections were written with the counting triggers off: it records `recorded` sections and has
    /// `counted`. Edits and reads are refused until it is repaired, because the section order is checked
    /// against it.
    case sectionCountDamaged(recorded: Int, counted: Int)
    /// A table's automatic ids are used up: an id of 2^63 − 1, the largest SQLite allows, was written by
    /// hand, and ids are never reused, so no section (or row) can be added; nothing was changed.
    case identifiersExhausted(table: String)
    /// A ``ListTransaction``, ``ListReader`` or ``ListImporter`` used after the closure it was given to
    /// (``ListStore/write(_:)-3oqvi``, ``ListStore/read(_:)-9gs6v``, ``ListStore/importStream(replacing:tracksChanges:_:)``) returned; nothing was changed.
    case transactionFinished
    /// A ``ListTransaction`` or ``ListImporter`` used after SQLite rolled its transaction back because
    /// of an error inside it (a full disk): nothing of the transaction was written, and nothing more is.
    case transactionRolledBack
    /// A call to the store from inside one of its own closures on the same thread (a `write` or `read`
    /// closure, a `scan` or import callback), which would wait forever for the lock its caller holds.
    case reentrantCall
    /// Observation cannot go on, or start: what other connections change cannot be seen or told.
    case cannotObserve(path: String, reason: String)
    /// A call on a store that ``ListStore/suspend()`` suspended (its app went to the background): its
    /// connections are closed, so nothing was read or changed. Fails at once, without waiting; call
    /// ``ListStore/resume()`` first.
    case suspended(path: String)
    /// A copy that `litestream restore -f` keeps following its replica (a `-txid` file sits beside it):
    /// it can be read, but an edit would be overwritten by the next change from the primary.
    case readReplica(path: String)
    /// Another copy of the list that this file cannot merge from: another list's file, a file of another
    /// version, a copy holding edits made outside ListStore; nothing was changed.
    case cannotMerge(path: String, reason: String)
    /// A database path that cannot be a database file: empty, or a folder, device, FIFO or socket;
    /// nothing was opened.
    case unusablePath(path: String, reason: String)
    /// A rollback journal left by an interrupted write sits beside the file, which only a writer may
    /// roll back; a reader (or a file ListStore does not recognise) leaves both untouched.
    case hotJournal(path: String)
    /// SQLite cannot open or write the `-wal` or `-shm` file beside the database (one is a symbolic
    /// link, or belongs to another user, or cannot be read in a read-only folder); the reason names the
    /// file and what to do. Nothing was changed.
    case companionFile(path: String, reason: String)
    /// A payload nested deeper than ``ListStore/maximumPayloadDepth`` levels, which SQLite's JSON
    /// functions cannot read.
    case payloadTooDeep(String)
    /// A value that cannot be stored as a typed payload (``ListStore/canonicalPayload(_:)``): its
    /// `Encodable` conformance threw, or it holds a number JSON cannot carry (NaN, infinity); nothing was changed.
    case payloadNotEncodable(type: String, reason: String)
    /// A row's payload that cannot be decoded as `type` (``ListRow/payload(as:)``), with the decoder's
    /// reason and where in the payload it stopped.
    case payloadNotDecodable(row: RowID, type: String, reason: String)
    /// A payload field name that a search cannot use (``PayloadField``), with the reason.
    case invalidPayloadField(String, reason: String)
    /// A search that cannot run as asked (a limit out of range, a value no payload can hold), with the reason.
    case invalidSearch(String)
    /// A payload field that has no index (``ListStore/removePayloadIndex(on:)``); nothing was changed.
    case noPayloadIndex(String)
    /// The file at the path, or the `-wal` file beside it, is no longer the one the store opened: a file
    /// was renamed over it, or it was deleted, while the store had it open. A write is rolled back (nothing
    /// was written to either file) and an observation ends; `reason` says which file.
    case fileReplaced(path: String, reason: String)
    /// A `-wal` file beside the database holds another file's changes (another ListStore file's, left
    /// beside a restored backup): its file identity differs from the database's. Nothing was read through
    /// it and both files were left untouched.
    case walFromAnotherFile(path: String, reason: String)
    /// An import stopped by its progress closure (`importDocument(_:replacing:progress:)`, the command
    /// line's import, whose progress closure threw `CancellationError`) after `rowsWritten` of the document's `rowCount` rows; the import was
    /// rolled back and the store is exactly as it was.
    case importCancelled(rowsWritten: Int, rowCount: Int)
    /// An index path drawn at `asOf` (``ListTransaction/asOf(_:)``) names a row that was deleted since —
    /// by another connection or process, or by an earlier edit of the same write; nothing was changed.
    case drawnRowDeleted(ListIndexPath, id: RowID, asOf: ListVersion)
    /// A section index drawn at `asOf` — of a section, or of a row's section — names a section that was
    /// deleted since; nothing was changed.
    case drawnSectionDeleted(index: Int, id: SectionID, asOf: ListVersion)
    /// A row index path drawn at `asOf` past the end of its section as it was then (`rowCount` rows).
    case drawnRowIndexOutOfRange(ListIndexPath, rowCount: Int, asOf: ListVersion)
    /// A row insertion point or move destination drawn at `asOf` outside `0...maxRow` of its section as it was then.
    case drawnRowDestinationOutOfRange(ListIndexPath, maxRow: Int, asOf: ListVersion)
    /// A section index drawn at `asOf` past the last section as it was then (`sectionCount` sections).
    case drawnSectionIndexOutOfRange(index: Int, sectionCount: Int, asOf: ListVersion)
    /// A section insertion index drawn at `asOf` outside `0...sectionCount` as the sections were then.
    case drawnSectionInsertionIndexOutOfRange(index: Int, sectionCount: Int, asOf: ListVersion)
    /// Index paths drawn at `version` cannot be translated to the store as it is now (`reason` says why:
    /// a version older than the change log keeps, a change the log does not describe, a version the file
    /// never had); nothing was changed. Read the store again and redraw.
    case versionNotTranslatable(ListVersion, reason: String)
    /// A list name that names no list in the file (``ListStore/list(named:)``); nothing was changed.
    case unknownList(String)
    /// A handle on a list (``ListStore/list(named:)``) whose list was deleted since, by this store or
    /// another program: its reads, edits and observations end with this; nothing was changed.
    case listDeleted(listID: Int64)
    /// A move between lists (``ListStore/transferRow(id:toList:section:at:)``, ``ListStore/transferSection(id:toList:at:)``)
    /// to the list the row or section is already in; nothing was changed. Move it within its list instead.
    case moveWithinList(String)
    /// The default list (id 1) was deleted outside ListStore (the `sqlite3` shell); nothing was changed.
    /// ``ListStore/repair()`` brings it back (`liststore repair`).
    case defaultListMissing
    /// The lists' positions were set outside ListStore beyond what reordering can renumber (near
    /// ±2^63); nothing was changed. ``ListStore/repair()`` renumbers them (`liststore repair`).
    case listOrderDamaged
    /// A list name that another list of the file already has (names are unique, compared exactly); nothing was changed.
    case duplicateListName(String)
    /// A list name that cannot be stored (empty, too long, or with control characters), with the reason.
    case invalidListName(String, reason: String)
    /// An attempt to delete the default list (``ListStore/defaultListName``), which the store's own calls
    /// act on and which is never deleted (rename it, or empty it, instead); nothing was changed.
    case cannotDeleteDefaultList(String)
    /// A row id given to a handle on one list that names a row of another list (`list`); nothing was changed.
    /// Open that list (``ListStore/list(named:)``) to act on it, or move it with ``ListStore/transferRow(id:toList:section:at:)``.
    case rowInAnotherList(RowID, list: String)
    /// A section id given to a handle on one list that names a section of another list (`list`); nothing was changed.
    case sectionInAnotherList(SectionID, list: String)
    /// A list position outside `0..<listCount` (``ListStore/moveList(named:to:)``); nothing was changed.
    case listIndexOutOfRange(index: Int, listCount: Int)
    /// ``ListStore/undo(by:)``: the author has no transaction left to undo in the history.
    case nothingToUndo(author: String)
    /// ``ListStore/redo(by:)``: the author has undone nothing since their last ordinary transaction.
    case nothingToRedo(author: String)
    /// An undo (or a redo, when `redo`) that is no longer possible — a section it needs was deleted, a
    /// row it would change was edited by someone else since, an import came after it; nothing was changed.
    case undoRefused(action: String?, entry: Int64, redo: Bool, reason: String)
    /// An author name or action name that cannot be stored (empty, too long, control characters).
    case invalidHistoryName(String, what: String, reason: String)

    /// What failed, on which input, and what to do, in one line.
    package var description: String {
        switch self {
        case .sectionIndexOutOfRange(let index, let count):
            return "section \(index) does not exist: the store has \(Self.countText(count, "section"))\(Self.validRange(count)); read the sections again for the current indexes"
        case .sectionInsertionIndexOutOfRange(let index, let count):
            return "cannot insert a section at \(index): the store has \(Self.countText(count, "section")), so the index must be 0…\(count)"
        case .rowIndexOutOfRange(let path, let count):
            return
                "row \(path) does not exist: section \(path.section) has \(Self.countText(count, "row"))\(Self.validRange(count)); read the rows again for the current index paths"
        case .rowDestinationOutOfRange(let path, let maxRow):
            return "cannot put a row at \(path): in section \(path.section) the row index must be 0…\(maxRow)"
        case .duplicateIndexPath(let path):
            return "index path \(path) is given twice; name each row once"
        case .duplicateSectionIndex(let index):
            return "section \(index) is given twice; name each section once"
        case .duplicateRowID(let id):
            return "\(id) is given twice; name each row once"
        case .duplicateSectionID(let id):
            return "\(id) is given twice; name each section once"
        case .unknownRow(let id):
            return "\(id) does not exist (it may have been deleted); read the list again"
        case .unknownSection(let id):
            return "\(id) does not exist (it may have been deleted); read the list again"
        case .invalidPayload(let text):
            return "payload is not valid JSON: \(Self.excerpt(text)); pass a JSON value such as '{\"key\": 1}'"
        case .invalidTitle(let title, let reason):
            return "invalid title \(Self.excerpt(title)): \(reason)"
        case .storeNotEmpty(let count):
            return "the store is not empty (it has \(Self.countText(count, "section"))); import into an empty store, or ask the import to replace its contents"
        case .invalidDocument(let reason):
            return "cannot import the document: \(reason)"
        case .positionsDamaged(let section):
            return
                "the rows of section \(section) were changed outside ListStore so that ListStore's counts of them do not hold (row_blocks, row_pages or row_count set by hand, rows written with a counting trigger dropped, or positions beyond ±2^61); nothing was changed — repair the store to renumber and recount them, keeping their order"
        case .notAListStore(let path, let reason):
            return "\(path) is not a ListStore database (\(reason)); it was left untouched — pass the path of a ListStore file, or a new path to create one"
        case .schemaAltered(let path, let detail):
            return "the schema of \(path) was changed outside ListStore (\(detail)); it was left untouched — undo that change in the sqlite3 shell, or restore a backup"
        case .newerSchema(let path, let fileVersion, let supported):
            return "\(path) has schema version \(fileVersion), newer than this ListStore understands (\(supported)); it was left untouched — upgrade ListStore"
        case .needsMigration(let path, let fileVersion, let supported):
            return "\(path) has schema version \(fileVersion) and needs migrating to \(supported), which a read-only open cannot do; open it for writing once"
        case .openedForReading(let path):
            return "\(path) was opened for reading only; nothing was changed — open it with mode .readWrite to edit it"
        case .busy(let detail):
            return "database is busy: another process kept it locked past the busy timeout (\(detail)); nothing was changed — try again"
        case .readOnly(let detail):
            return "cannot write the database: it or its folder is read-only (\(detail)); nothing was changed — check the file permissions"
        case .full(let detail):
            return "the disk or the database size limit is full (\(detail)); nothing was changed — free some space and try again"
        case .fileSizeLimit(let detail):
            return "\(StorageLimit.fileSizeLimit.reason) (\(detail)); nothing was changed — \(StorageLimit.fileSizeLimit.remedy)"
        case .backupTargetExists(let path):
            return "\(path) already exists; choose a new file name (a backup never overwrites)"
        case .backupFailed(let path, let reason, let remedy):
            return "cannot back up to \(path.isEmpty ? "an empty path" : path): \(reason); no backup was written and the database is unchanged — \(remedy)"
        case .corrupt(let detail):
            return "the database file is damaged (\(detail)); nothing was changed — restore a backup or recover it with `sqlite3 FILE .recover`"
        case .database(let error):
            return error.description
        case .sectionOrderDamaged(let count, let lowest, let highest):
            let expected = count > 0 ? "not 0…\(count - 1)" : "where none should be"
            return
                "the section positions were changed outside ListStore (\(Self.countText(count, "section")) at positions \(lowest)…\(highest), \(expected)); nothing was changed — repair the store to renumber them, keeping their order"
        case .sectionCountDamaged(let recorded, let counted):
            return
                "the list's section count was changed outside ListStore (it records \(Self.countText(recorded, "section")) and has \(counted)); nothing was changed — repair the store to count them afresh"
        case .cannotMerge(let path, let reason):
            return "cannot merge from \(path): \(reason); nothing was changed"
        case .readReplica(let path):
            return
                "\(path) is a read replica that Litestream keeps following its primary (\(path)-txid is beside it); nothing was changed — an edit here would be overwritten: edit the primary, or open this copy for reading"
        case .cannotObserve(let path, let reason):
            return "cannot observe \(path): \(reason)"
        case .suspended(let path):
            return
                "cannot read or write \(path): the store is suspended (the app is in the background) and has closed its connections; nothing was read or changed — call resume() first"
        case .reentrantCall:
            return
                "the store was called from inside one of its own closures (write, read, scan or import), which holds its lock; nothing was changed — use the transaction or reader the closure was given, or call the store after the closure returns"
        case .transactionRolledBack:
            return
                "SQLite rolled the transaction back after an error inside it (a full disk, say); nothing of it was written — let that error end the write, then try again"
        case .transactionFinished:
            return
                "the transaction has already ended (the write, read or import closure that was given the transaction, reader or importer returned); nothing was changed — use it only inside that closure"
        case .identifiersExhausted(let table):
            let noun = table == "sections" ? "section" : "row"
            let moveRows = table == "sections" ? " and UPDATE rows SET section_id = <new id> WHERE section_id = \(Int64.max)" : ""
            return "cannot add a \(noun): the ids of table \(table) are used up (the id \(Int64.max), the largest SQLite allows, "
                + "was written by hand or imported, and ids are never reused); nothing was changed — in the sqlite3 shell give that \(noun) a smaller "
                + "unused id (UPDATE \(table) SET id = <new id> WHERE id = \(Int64.max)\(moveRows)), then reset the counter: "
                + "UPDATE sqlite_sequence SET seq = (SELECT max(id) FROM \(table)) WHERE name = '\(table)'"
        case .unusablePath(let path, let reason):
            return "cannot use \(path.isEmpty ? "an empty path" : path) as a database: \(reason); nothing was opened — pass the path of a regular file, or a new path to create one"
        case .companionFile(let path, let reason):
            return "cannot use \(path): \(reason); nothing was changed"
        case .payloadTooDeep(let text):
            return
                "payload is nested deeper than \(PayloadDepth.maximum) levels, the most ListStore stores (SQLite's JSON functions read no deeper): \(Self.excerpt(text)); flatten it"
        case .payloadNotEncodable(let type, let reason):
            return
                "cannot store a value of type \(type) as a payload: \(reason); nothing was changed — make its Encodable conformance encode only finite numbers and no duplicate keys"
        case .payloadNotDecodable(let row, let type, let reason):
            return "the payload of \(row) cannot be decoded as \(type): \(reason); read it as another type, or store a \(type) in it"
        case .invalidPayloadField(let field, let reason):
            return "invalid payload field \(Self.excerpt(field)): \(reason); name a field as letters, digits, _ and -, with . between nested names (address.city)"
        case .invalidSearch(let reason):
            return "cannot search: \(reason)"
        case .noPayloadIndex(let field):
            return "payload field \(Self.excerpt(field)) has no index; nothing was changed — payloadIndexes() lists the indexed fields"
        case .fileReplaced(let path, let reason):
            return "\(path) was replaced or moved while it was open here (\(reason)); nothing was written — open it again"
        case .walFromAnotherFile(let path, let reason):
            return "\(path)-wal does not belong to \(path) (\(reason)); nothing was read through it and both were left untouched — "
                + "if it is another file's (left beside a restored backup), move \(path)-wal and \(path)-shm away; "
                + "if it is this file's, restore the file and its -wal together"
        case .importCancelled(let written, let count):
            return "the import was cancelled after \(written) of \(Self.countText(count, "row")); nothing was imported — the store is as it was"
        case .drawnRowDeleted(let path, let id, let version):
            return
                "the row you saw at \(path) (\(id)) was deleted after \(version) (by another process or connection, or an earlier edit of this write); nothing was changed — redraw from the current state and try again"
        case .drawnRowIndexOutOfRange(let path, let count, let version):
            return
                "row \(path) was not drawn at \(version): section \(path.section) had \(Self.countText(count, "row"))\(Self.validRange(count)) then; give an index path of what was drawn at that version"
        case .drawnRowDestinationOutOfRange(let path, let maxRow, let version):
            return "cannot put a row at \(path) as drawn at \(version): in section \(path.section) the row index was 0…\(maxRow) then"
        case .drawnSectionIndexOutOfRange(let index, let count, let version):
            return
                "section \(index) was not drawn at \(version): there were \(Self.countText(count, "section"))\(Self.validRange(count)) then; give an index of what was drawn at that version"
        case .drawnSectionInsertionIndexOutOfRange(let index, let count, let version):
            return "cannot insert a section at \(index) as drawn at \(version): there were \(Self.countText(count, "section")) then, so the index must be 0…\(count)"
        case .drawnSectionDeleted(let index, let id, let version):
            return
                "the section you saw at \(index) (\(id)) was deleted after \(version) (by another process or connection, or an earlier edit of this write); nothing was changed — redraw from the current state and try again"
        case .nothingToUndo(let author):
            return "nothing to undo by \(Self.excerpt(author)): the history holds no transaction of theirs still to undo (it keeps each author's last ones)"
        case .nothingToRedo(let author):
            return "nothing to redo by \(Self.excerpt(author)): they have undone nothing since their last edit"
        case .undoRefused(let action, let entry, let redo, let reason):
            let what = action.map { "\(redo ? "redo" : "undo") \(Self.excerpt($0))" } ?? (redo ? "redo" : "undo")
            return "cannot \(what) (history entry #\(entry)): \(reason); nothing was changed"
        case .invalidHistoryName(let name, let what, let reason):
            return "invalid \(what) \(Self.excerpt(name)): \(reason)"
        case .versionNotTranslatable(let version, let reason):
            return
                "cannot act on index paths as of \(version): \(reason); nothing was changed — read the store again, redraw, and act on what is drawn then"
        case .unknownList(let name):
            return "there is no list named \(Self.excerpt(name)) in the file; lists() names the lists, addList(named:) adds one"
        case .listDeleted(let id):
            return "the list this handle is on (list #\(id)) was deleted since; open another list (list(named:))"
        case .moveWithinList(let name):
            return "it is already in list \(Self.excerpt(name)); move it within its list instead"
        case .defaultListMissing:
            return "the default list (list #1) was deleted outside ListStore; nothing was changed — repair the store to bring it back"
        case .listOrderDamaged:
            return "the list positions were changed outside ListStore; nothing was changed — repair the store to renumber them, keeping their order"
        case .duplicateListName(let name):
            return "a list named \(Self.excerpt(name)) already exists; choose another name"
        case .invalidListName(let name, let reason):
            return "invalid list name \(Self.excerpt(name)): \(reason)"
        case .cannotDeleteDefaultList(let name):
            return "cannot delete \(Self.excerpt(name)): it is the default list, which is never deleted; rename it or delete its sections instead"
        case .rowInAnotherList(let id, let list):
            return "\(id) is in list \(Self.excerpt(list)), not in this one; open that list (list(named:)) to act on it"
        case .sectionInAnotherList(let id, let list):
            return "\(id) is in list \(Self.excerpt(list)), not in this one; open that list (list(named:)) to act on it"
        case .listIndexOutOfRange(let index, let count):
            return "cannot put a list at \(index): the file has \(Self.countText(count, "list")), so the index must be 0…\(max(count - 1, 0))"
        case .hotJournal(let path):
            return
                "\(path) has a rollback journal (\(path)-journal) left by an interrupted write, which reading cannot roll back; both were left untouched — open it for writing once to roll it back"
        }
    }

    /// Maps a SQLite failure to the case a caller can act on.
    init(_ error: SQLiteError) {
        if error.isBusy {
            self = .busy(error.message)
        } else if let limit = StorageLimit(error) {
            self = limit == .diskFull ? .full(error.message) : .fileSizeLimit(error.message)
        } else if error.isReadOnly {
            self = .readOnly(error.message)
        } else if error.isCorruptOrNotADatabase {
            self = .corrupt(error.message)
        } else {
            self = .database(DatabaseFailure(error))
        }
    }

    private static func countText(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    private static func validRange(_ count: Int) -> String {
        count <= 0 ? "" : " (0…\(count - 1))"
    }

    /// The start of a long or multi-line input, quoted, for one-line messages.
    package static func excerpt(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars.prefix(61))
        let flat = scalars.indices.map { index in
            let scalar = scalars[index]
            return ConfusingScalars.contains(scalar, after: index > 0 ? scalars[index - 1] : nil) ? ConfusingScalars.escaped(scalar) : String(scalar)
        }.joined()
        let short = flat.count > 60 ? String(flat.prefix(60)) + "…" : flat
        return "\"\(short)\""
    }
}

/// A SQLite failure that no more specific reason describes.
package struct DatabaseFailure: Hashable, Sendable, CustomStringConvertible {
    /// SQLite's extended result code (e.g. 2067 for `SQLITE_CONSTRAINT_UNIQUE`).
    package let extendedCode: Int32
    /// SQLite's message for this failure.
    package let message: String
    /// The statement that failed, when the failure belongs to one.
    package let sql: String?
    /// Code, message and statement in one line.
    package let description: String

    init(_ error: SQLiteError) {
        extendedCode = error.extendedCode
        message = error.message
        sql = error.sql
        description = error.description
    }
}

extension ListStoreError {
    /// The failure a SQLite error stands for.
    init(_ error: SQLiteError) { self.init(ListStoreFailure(error)) }

    /// A write refused, or an observation ended, because the file or its `-wal` is no longer the one opened.
    init(_ error: FileMovedError) { self.init(.fileReplaced(path: error.path, reason: error.file.reason)) }

    /// Runs `body`, turning a SQLite failure or a moved file into the ``ListStoreError`` the store's calls throw.
    static func translating<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SQLiteError { throw ListStoreError(error) } catch let error as FileMovedError { throw ListStoreError(error) }
    }
}

extension ListStoreFailure {
    /// The family an app acts on.
    package var family: ListStoreError.Family {
        switch self {
        case .sectionIndexOutOfRange: return .notFound
        case .sectionInsertionIndexOutOfRange: return .notFound
        case .rowIndexOutOfRange: return .notFound
        case .rowDestinationOutOfRange: return .notFound
        case .duplicateIndexPath: return .invalidInput
        case .duplicateSectionIndex: return .invalidInput
        case .duplicateRowID: return .invalidInput
        case .duplicateSectionID: return .invalidInput
        case .unknownRow: return .notFound
        case .unknownSection: return .notFound
        case .invalidPayload: return .invalidInput
        case .invalidTitle: return .invalidInput
        case .storeNotEmpty: return .refused
        case .invalidDocument: return .invalidInput
        case .positionsDamaged: return .damaged
        case .notAListStore: return .fileUnusable
        case .schemaAltered: return .fileUnusable
        case .newerSchema: return .fileUnusable
        case .needsMigration: return .fileUnusable
        case .openedForReading: return .misuse
        case .busy: return .busy
        case .readOnly: return .storage
        case .full: return .storage
        case .fileSizeLimit: return .storage
        case .backupTargetExists: return .refused
        case .backupFailed: return .fileUnusable
        case .corrupt: return .damaged
        case .database: return .database
        case .sectionOrderDamaged: return .damaged
        case .sectionCountDamaged: return .damaged
        case .identifiersExhausted: return .damaged
        case .transactionFinished: return .misuse
        case .transactionRolledBack: return .storage
        case .reentrantCall: return .misuse
        case .cannotObserve: return .fileUnusable
        case .suspended: return .misuse
        case .readReplica: return .fileUnusable
        case .cannotMerge: return .refused
        case .unusablePath: return .invalidInput
        case .hotJournal: return .fileUnusable
        case .companionFile: return .fileUnusable
        case .payloadTooDeep: return .invalidInput
        case .payloadNotEncodable: return .invalidInput
        case .payloadNotDecodable: return .invalidInput
        case .invalidPayloadField: return .invalidInput
        case .invalidSearch: return .invalidInput
        case .noPayloadIndex: return .refused
        case .fileReplaced: return .fileUnusable
        case .walFromAnotherFile: return .fileUnusable
        case .importCancelled: return .refused
        case .drawnRowDeleted: return .notFound
        case .drawnSectionDeleted: return .notFound
        case .drawnRowIndexOutOfRange, .drawnRowDestinationOutOfRange, .drawnSectionIndexOutOfRange, .drawnSectionInsertionIndexOutOfRange: return .notFound
        case .versionNotTranslatable: return .notFound
        case .unknownList: return .notFound
        case .listDeleted: return .notFound
        case .moveWithinList: return .refused
        case .defaultListMissing: return .damaged
        case .listOrderDamaged: return .damaged
        case .duplicateListName: return .refused
        case .invalidListName: return .invalidInput
        case .cannotDeleteDefaultList: return .refused
        case .rowInAnotherList: return .notFound
        case .sectionInAnotherList: return .notFound
        case .listIndexOutOfRange: return .notFound
        case .nothingToUndo: return .refused
        case .nothingToRedo: return .refused
        case .undoRefused: return .refused
        case .invalidHistoryName: return .invalidInput
        }
    }
}

/// Each reason as a ``ListStoreError``, under the name the library throws it by.
extension ListStoreError {
    package static func sectionIndexOutOfRange(index: Int, sectionCount: Int) -> ListStoreError {
        ListStoreError(.sectionIndexOutOfRange(index: index, sectionCount: sectionCount))
    }
    package static func sectionInsertionIndexOutOfRange(index: Int, sectionCount: Int) -> ListStoreError {
        ListStoreError(.sectionInsertionIndexOutOfRange(index: index, sectionCount: sectionCount))
    }
    package static func rowIndexOutOfRange(_ v0: ListIndexPath, rowCount: Int) -> ListStoreError { ListStoreError(.rowIndexOutOfRange(v0, rowCount: rowCount)) }
    package static func rowDestinationOutOfRange(_ v0: ListIndexPath, maxRow: Int) -> ListStoreError { ListStoreError(.rowDestinationOutOfRange(v0, maxRow: maxRow)) }
    package static func duplicateIndexPath(_ v0: ListIndexPath) -> ListStoreError { ListStoreError(.duplicateIndexPath(v0)) }
    package static func duplicateSectionIndex(_ v0: Int) -> ListStoreError { ListStoreError(.duplicateSectionIndex(v0)) }
    package static func duplicateRowID(_ v0: RowID) -> ListStoreError { ListStoreError(.duplicateRowID(v0)) }
    package static func duplicateSectionID(_ v0: SectionID) -> ListStoreError { ListStoreError(.duplicateSectionID(v0)) }
    package static func unknownRow(_ v0: RowID) -> ListStoreError { ListStoreError(.unknownRow(v0)) }
    package static func unknownSection(_ v0: SectionID) -> ListStoreError { ListStoreError(.unknownSection(v0)) }
    package static func invalidPayload(_ v0: String) -> ListStoreError { ListStoreError(.invalidPayload(v0)) }
    package static func invalidTitle(_ v0: String, reason: String) -> ListStoreError { ListStoreError(.invalidTitle(v0, reason: reason)) }
    package static func storeNotEmpty(sectionCount: Int) -> ListStoreError { ListStoreError(.storeNotEmpty(sectionCount: sectionCount)) }
    package static func invalidDocument(_ v0: String) -> ListStoreError { ListStoreError(.invalidDocument(v0)) }
    package static func positionsDamaged(section: Int) -> ListStoreError { ListStoreError(.positionsDamaged(section: section)) }
    package static func notAListStore(path: String, reason: String) -> ListStoreError { ListStoreError(.notAListStore(path: path, reason: reason)) }
    package static func schemaAltered(path: String, detail: String) -> ListStoreError { ListStoreError(.schemaAltered(path: path, detail: detail)) }
    package static func newerSchema(path: String, fileVersion: Int, supportedVersion: Int) -> ListStoreError {
        ListStoreError(.newerSchema(path: path, fileVersion: fileVersion, supportedVersion: supportedVersion))
    }
    package static func needsMigration(path: String, fileVersion: Int, supportedVersion: Int) -> ListStoreError {
        ListStoreError(.needsMigration(path: path, fileVersion: fileVersion, supportedVersion: supportedVersion))
    }
    package static func openedForReading(path: String) -> ListStoreError { ListStoreError(.openedForReading(path: path)) }
    package static func busy(_ v0: String) -> ListStoreError { ListStoreError(.busy(v0)) }
    package static func readOnly(_ v0: String) -> ListStoreError { ListStoreError(.readOnly(v0)) }
    package static func full(_ v0: String) -> ListStoreError { ListStoreError(.full(v0)) }
    package static func fileSizeLimit(_ v0: String) -> ListStoreError { ListStoreError(.fileSizeLimit(v0)) }
    package static func backupTargetExists(path: String) -> ListStoreError { ListStoreError(.backupTargetExists(path: path)) }
    package static func backupFailed(path: String, reason: String, remedy: String) -> ListStoreError { ListStoreError(.backupFailed(path: path, reason: reason, remedy: remedy)) }
    package static func corrupt(_ v0: String) -> ListStoreError { ListStoreError(.corrupt(v0)) }
    package static func database(_ v0: DatabaseFailure) -> ListStoreError { ListStoreError(.database(v0)) }
    package static func sectionOrderDamaged(sectionCount: Int, lowest: Int, highest: Int) -> ListStoreError {
        ListStoreError(.sectionOrderDamaged(sectionCount: sectionCount, lowest: lowest, highest: highest))
    }
    package static func sectionCountDamaged(recorded: Int, counted: Int) -> ListStoreError { ListStoreError(.sectionCountDamaged(recorded: recorded, counted: counted)) }
    package static func identifiersExhausted(table: String) -> ListStoreError { ListStoreError(.identifiersExhausted(table: table)) }
    package static var transactionFinished: ListStoreError { ListStoreError(.transactionFinished) }
    package static var transactionRolledBack: ListStoreError { ListStoreError(.transactionRolledBack) }
    package static var reentrantCall: ListStoreError { ListStoreError(.reentrantCall) }
    package static func cannotObserve(path: String, reason: String) -> ListStoreError { ListStoreError(.cannotObserve(path: path, reason: reason)) }
    package static func suspended(path: String) -> ListStoreError { ListStoreError(.suspended(path: path)) }
    package static func readReplica(path: String) -> ListStoreError { ListStoreError(.readReplica(path: path)) }
    package static func cannotMerge(path: String, reason: String) -> ListStoreError { ListStoreError(.cannotMerge(path: path, reason: reason)) }
    package static func unusablePath(path: String, reason: String) -> ListStoreError { ListStoreError(.unusablePath(path: path, reason: reason)) }
    package static func hotJournal(path: String) -> ListStoreError { ListStoreError(.hotJournal(path: path)) }
    package static func companionFile(path: String, reason: String) -> ListStoreError { ListStoreError(.companionFile(path: path, reason: reason)) }
    package static func payloadTooDeep(_ v0: String) -> ListStoreError { ListStoreError(.payloadTooDeep(v0)) }
    package static func payloadNotEncodable(type: String, reason: String) -> ListStoreError { ListStoreError(.payloadNotEncodable(type: type, reason: reason)) }
    package static func payloadNotDecodable(row: RowID, type: String, reason: String) -> ListStoreError {
        ListStoreError(.payloadNotDecodable(row: row, type: type, reason: reason))
    }
    package static func invalidPayloadField(_ v0: String, reason: String) -> ListStoreError { ListStoreError(.invalidPayloadField(v0, reason: reason)) }
    package static func invalidSearch(_ v0: String) -> ListStoreError { ListStoreError(.invalidSearch(v0)) }
    package static func noPayloadIndex(_ v0: String) -> ListStoreError { ListStoreError(.noPayloadIndex(v0)) }
    package static func fileReplaced(path: String, reason: String) -> ListStoreError { ListStoreError(.fileReplaced(path: path, reason: reason)) }
    package static func walFromAnotherFile(path: String, reason: String) -> ListStoreError { ListStoreError(.walFromAnotherFile(path: path, reason: reason)) }
    package static func importCancelled(rowsWritten: Int, rowCount: Int) -> ListStoreError { ListStoreError(.importCancelled(rowsWritten: rowsWritten, rowCount: rowCount)) }
    package static func drawnRowDeleted(_ v0: ListIndexPath, id: RowID, asOf: ListVersion) -> ListStoreError { ListStoreError(.drawnRowDeleted(v0, id: id, asOf: asOf)) }
    package static func drawnRowIndexOutOfRange(_ path: ListIndexPath, rowCount: Int, asOf: ListVersion) -> ListStoreError {
        ListStoreError(.drawnRowIndexOutOfRange(path, rowCount: rowCount, asOf: asOf))
    }
    package static func drawnRowDestinationOutOfRange(_ path: ListIndexPath, maxRow: Int, asOf: ListVersion) -> ListStoreError {
        ListStoreError(.drawnRowDestinationOutOfRange(path, maxRow: maxRow, asOf: asOf))
    }
    package static func drawnSectionIndexOutOfRange(index: Int, sectionCount: Int, asOf: ListVersion) -> ListStoreError {
        ListStoreError(.drawnSectionIndexOutOfRange(index: index, sectionCount: sectionCount, asOf: asOf))
    }
    package static func drawnSectionInsertionIndexOutOfRange(index: Int, sectionCount: Int, asOf: ListVersion) -> ListStoreError {
        ListStoreError(.drawnSectionInsertionIndexOutOfRange(index: index, sectionCount: sectionCount, asOf: asOf))
    }
    package static func drawnSectionDeleted(index: Int, id: SectionID, asOf: ListVersion) -> ListStoreError {
        ListStoreError(.drawnSectionDeleted(index: index, id: id, asOf: asOf))
    }
    package static func versionNotTranslatable(_ v0: ListVersion, reason: String) -> ListStoreError { ListStoreError(.versionNotTranslatable(v0, reason: reason)) }
    package static func unknownList(_ v0: String) -> ListStoreError { ListStoreError(.unknownList(v0)) }
    package static func listDeleted(listID: Int64) -> ListStoreError { ListStoreError(.listDeleted(listID: listID)) }
    package static func moveWithinList(_ v0: String) -> ListStoreError { ListStoreError(.moveWithinList(v0)) }
    package static var defaultListMissing: ListStoreError { ListStoreError(.defaultListMissing) }
    package static var listOrderDamaged: ListStoreError { ListStoreError(.listOrderDamaged) }
    package static func duplicateListName(_ v0: String) -> ListStoreError { ListStoreError(.duplicateListName(v0)) }
    package static func invalidListName(_ v0: String, reason: String) -> ListStoreError { ListStoreError(.invalidListName(v0, reason: reason)) }
    package static func cannotDeleteDefaultList(_ v0: String) -> ListStoreError { ListStoreError(.cannotDeleteDefaultList(v0)) }
    package static func rowInAnotherList(_ v0: RowID, list: String) -> ListStoreError { ListStoreError(.rowInAnotherList(v0, list: list)) }
    package static func sectionInAnotherList(_ v0: SectionID, list: String) -> ListStoreError { ListStoreError(.sectionInAnotherList(v0, list: list)) }
    package static func listIndexOutOfRange(index: Int, listCount: Int) -> ListStoreError { ListStoreError(.listIndexOutOfRange(index: index, listCount: listCount)) }
    package static func nothingToUndo(author: String) -> ListStoreError { ListStoreError(.nothingToUndo(author: author)) }
    package static func nothingToRedo(author: String) -> ListStoreError { ListStoreError(.nothingToRedo(author: author)) }
    package static func undoRefused(action: String?, entry: Int64, redo: Bool, reason: String) -> ListStoreError {
        ListStoreError(.undoRefused(action: action, entry: entry, redo: redo, reason: reason))
    }
    package static func invalidHistoryName(_ v0: String, what: String, reason: String) -> ListStoreError { ListStoreError(.invalidHistoryName(v0, what: what, reason: reason)) }
}
