import Testing

@testable import ListStore

/// The library's messages speak of the store and its calls, in one line; the command line words its own
/// advice (`CLIAdvice`), and every failure belongs to a family an app can switch over.
@Suite struct LibraryMessagesTests {
    /// One failure of every kind but `database` (which carries SQLite's own message).
    static let everyReason: [ListStoreFailure] = [
        .sectionIndexOutOfRange(index: 1, sectionCount: 1),
        .sectionInsertionIndexOutOfRange(index: 1, sectionCount: 1),
        .rowIndexOutOfRange(ListIndexPath(section: 0, row: 0), rowCount: 1),
        .rowDestinationOutOfRange(ListIndexPath(section: 0, row: 0), maxRow: 1),
        .drawnRowIndexOutOfRange(ListIndexPath(section: 0, row: 1), rowCount: 1, asOf: ListVersion(rawValue: 3)),
        .drawnRowDestinationOutOfRange(ListIndexPath(section: 0, row: 2), maxRow: 1, asOf: ListVersion(rawValue: 3)),
        .drawnSectionIndexOutOfRange(index: 1, sectionCount: 1, asOf: ListVersion(rawValue: 3)),
        .drawnSectionInsertionIndexOutOfRange(index: 2, sectionCount: 1, asOf: ListVersion(rawValue: 3)),
        .duplicateIndexPath(ListIndexPath(section: 0, row: 0)),
        .duplicateSectionIndex(1),
        .duplicateRowID(RowID(rawValue: 1)),
        .duplicateSectionID(SectionID(rawValue: 1)),
        .unknownRow(RowID(rawValue: 1)),
        .unknownSection(SectionID(rawValue: 1)),
        .invalidPayload("x"),
        .invalidTitle("x", reason: "x"),
        .storeNotEmpty(sectionCount: 1),
        .invalidDocument("x"),
        .positionsDamaged(section: 1),
        .notAListStore(path: "x", reason: "x"),
        .schemaAltered(path: "x", detail: "x"),
        .newerSchema(path: "x", fileVersion: 1, supportedVersion: 1),
        .needsMigration(path: "x", fileVersion: 1, supportedVersion: 1),
        .openedForReading(path: "x"),
        .busy("x"),
        .readOnly("x"),
        .full("x"),
        .fileSizeLimit("x"),
        .backupTargetExists(path: "x"),
        .backupFailed(path: "x", reason: "x", remedy: "x"),
        .corrupt("x"),
        .sectionOrderDamaged(sectionCount: 1, lowest: 1, highest: 1),
        .sectionCountDamaged(recorded: 1, counted: 1),
        .identifiersExhausted(table: "x"),
        .transactionFinished,
        .transactionRolledBack,
        .reentrantCall,
        .cannotObserve(path: "x", reason: "x"),
        .suspended(path: "x"),
        .readReplica(path: "x"),
        .unusablePath(path: "x", reason: "x"),
        .hotJournal(path: "x"),
        .companionFile(path: "x", reason: "x"),
        .payloadTooDeep("x"),
        .payloadNotEncodable(type: "x", reason: "x"),
        .payloadNotDecodable(row: RowID(rawValue: 1), type: "x", reason: "x"),
        .invalidPayloadField("x", reason: "x"),
        .invalidSearch("x"),
        .noPayloadIndex("x"),
        .fileReplaced(path: "x", reason: "x"),
        .walFromAnotherFile(path: "x", reason: "x"),
        .importCancelled(rowsWritten: 1, rowCount: 1),
        .drawnRowDeleted(ListIndexPath(section: 0, row: 0), id: RowID(rawValue: 1), asOf: ListVersion(rawValue: 1)),
        .drawnSectionDeleted(index: 1, id: SectionID(rawValue: 1), asOf: ListVersion(rawValue: 1)),
        .versionNotTranslatable(ListVersion(rawValue: 1), reason: "x"),
        .unknownList("x"),
        .listDeleted(listID: 1),
        .moveWithinList("x"),
        .defaultListMissing,
        .listOrderDamaged,
        .duplicateListName("x"),
        .invalidListName("x", reason: "x"),
        .cannotDeleteDefaultList("x"),
        .rowInAnotherList(RowID(rawValue: 1), list: "x"),
        .sectionInAnotherList(SectionID(rawValue: 1), list: "x"),
        .listIndexOutOfRange(index: 1, listCount: 1),
        .nothingToUndo(author: "x"),
        .nothingToRedo(author: "x"),
        .undoRefused(action: nil, entry: 1, redo: false, reason: "x"),
        .invalidHistoryName("x", what: "x", reason: "x"),
    ]

    @Test func noMessageGivesCommandLineAdvice() {
        for reason in Self.everyReason {
            let message = ListStoreError(reason).description
            #expect(!message.contains("liststore "), "\(message)")
            #expect(message.range(of: #"(^|[ (])--[a-z]"#, options: .regularExpression) == nil, "\(message)")
            #expect(!message.contains("\n"), "\(message)")
        }
    }

    @Test func theFamilyTellsWhatToDo() {
        #expect(ListStoreError.unknownRow(RowID(rawValue: 1)).family == .notFound)
        #expect(ListStoreError.invalidTitle("x", reason: "y").family == .invalidInput)
        #expect(ListStoreError.nothingToUndo(author: "a").family == .refused)
        #expect(ListStoreError.busy("locked").family == .busy)
        #expect(ListStoreError.transactionFinished.family == .misuse)
        #expect(ListStoreError.notAListStore(path: "p", reason: "r").family == .fileUnusable)
        #expect(ListStoreError.full("disk").family == .storage)
        #expect(ListStoreError.positionsDamaged(section: 0).family == .damaged)
        #expect(Set(Self.everyReason.map(\.family)).count == 8)  // every family but `database` has members
    }
}
