import SQLiteLayer

/// Index paths as drawn at a version, translated to the store as a transaction sees it: through the
/// edits of every commit since (``ChangeLog/events(since:found:_:)``, read once) and then through the
/// transaction's own edits so far. Each result is checked against the store now, and a drawn place that
/// does not exist (a row index past the drawn section's end) is refused with the drawn coordinates.
struct DrawnPaths {
    let version: ListVersion
    /// The list the paths are in: only its events move them.
    let list: Int64
    private let logEvents: [EditEvent]

    /// Reads the commits after `version`; throws ``ListStoreError/versionNotTranslatable(_:reason:)``
    /// when they cannot be followed. `found` is the change log's state row as the transaction found it.
    init(_ version: ListVersion, found: LogState, list: Int64, _ db: Connection) throws {
        self.version = version
        self.list = list
        do {
            logEvents = try ChangeLog.events(since: version, found: found, list: list, db)
        } catch let refusal as ChangeLog.Untranslatable {
            throw ListStoreError.versionNotTranslatable(version, reason: refusal.reason)
        }
    }

    /// Whether `index` can be followed: below ``LogEntryLimits/countLimit``, like every index in the log,
    /// so that following it never overflows. A larger one is out of range in any store.
    static func isFollowable(_ index: Int) -> Bool { index >= 0 && Int64(index) < LogEntryLimits.countLimit }

    /// The row drawn at `drawn`: where it is now, and its id.
    func row(_ drawn: ListIndexPath, own: [EditEvent], _ db: Connection) throws -> (path: ListIndexPath, id: RowID) {
        let (walk, section) = try followRow(drawn, gap: false, own: own, db)
        guard walk.row >= 0, walk.row < section.count else {
            throw ListStoreError.drawnRowIndexOutOfRange(drawn, rowCount: section.count - walk.rowsAdded, asOf: version)
        }
        return (walk.path, RowID(rawValue: try section.rowID(at: walk.row)))
    }

    /// The gap drawn at `drawn` (`drawn.row` rows above it in its section): where it is now.
    func rowGap(_ drawn: ListIndexPath, own: [EditEvent], _ db: Connection) throws -> ListIndexPath {
        let (walk, section) = try followRow(drawn, gap: true, own: own, db)
        guard walk.row >= 0, walk.row <= section.count else {
            throw ListStoreError.drawnRowDestinationOutOfRange(drawn, maxRow: section.count - walk.rowsAdded, asOf: version)
        }
        return walk.path
    }

    /// The section drawn at `drawn`: its index now.
    func section(_ drawn: Int, own: [EditEvent], _ db: Connection) throws -> Int {
        guard Self.isFollowable(drawn) else { throw ListStoreError.sectionIndexOutOfRange(index: drawn, sectionCount: try SectionOrder.count(db, list: list)) }
        let walk = try follow(DrawnPositions.Section(drawn, gap: false), drawn: .section(drawn), own: own) { $0.follow($1) }
        let count = try SectionOrder.count(db, list: list)
        guard walk.index >= 0, walk.index < count else {
            throw ListStoreError.drawnSectionIndexOutOfRange(index: drawn, sectionCount: count - walk.sectionsAdded, asOf: version)
        }
        return walk.index
    }

    /// The gap drawn before section `drawn` (at the end for the drawn count): its index now.
    func sectionGap(_ drawn: Int, own: [EditEvent], _ db: Connection) throws -> Int {
        guard Self.isFollowable(drawn) else {
            throw ListStoreError.sectionInsertionIndexOutOfRange(index: drawn, sectionCount: try SectionOrder.count(db, list: list))
        }
        let walk = try follow(DrawnPositions.Section(drawn, gap: true), drawn: .section(drawn), own: own) { $0.follow($1) }
        let count = try SectionOrder.count(db, list: list)
        guard walk.index >= 0, walk.index <= count else {
            throw ListStoreError.drawnSectionInsertionIndexOutOfRange(index: drawn, sectionCount: count - walk.sectionsAdded, asOf: version)
        }
        return walk.index
    }

    /// The number of sections as drawn.
    func drawnSectionCount(own: [EditEvent], _ db: Connection) throws -> Int {
        let walk = try follow(DrawnPositions.Section(0, gap: true), drawn: .section(0), own: own) { $0.follow($1) }
        return try SectionOrder.count(db, list: list) - walk.sectionsAdded
    }

    // MARK: Following

    private func followRow(_ drawn: ListIndexPath, gap: Bool, own: [EditEvent], _ db: Connection) throws -> (DrawnPositions.Row, SectionRows) {
        let count = try SectionOrder.count(db, list: list)
        guard Self.isFollowable(drawn.section) else { throw ListStoreError.sectionIndexOutOfRange(index: drawn.section, sectionCount: count) }
        guard Self.isFollowable(drawn.row) else {
            let rows = try SectionRows.load(section: try self.section(drawn.section, own: own, db), list: list, db).count
            throw gap ? ListStoreError.rowDestinationOutOfRange(drawn, maxRow: rows) : ListStoreError.rowIndexOutOfRange(drawn, rowCount: rows)
        }
        let walk = try follow(DrawnPositions.Row(drawn, gap: gap), drawn: .row(drawn), own: own) { $0.follow($1) }
        guard walk.section.index >= 0, walk.section.index < count else {
            throw ListStoreError.drawnSectionIndexOutOfRange(index: drawn.section, sectionCount: count - walk.section.sectionsAdded, asOf: version)
        }
        return (walk, try SectionRows.load(section: walk.section.index, list: list, db))
    }

    /// What was drawn, for the refusals.
    private enum Drawn {
        case row(ListIndexPath)
        case section(Int)
    }

    /// `place` after the commits since the version, then after `own`; refused when the place ended.
    private func follow<Walk, Place>(
        _ place: Walk, drawn: Drawn, own: [EditEvent], _ step: (inout Walk, EditEvent) -> DrawnPositions.Fate<Place>?
    ) throws -> Walk {
        var place = place
        for events in [logEvents, own] {
            for event in events {
                switch step(&place, event) {
                case nil, .at:
                    continue
                case .rowDeleted(let id):
                    guard case .row(let path) = drawn else { continue }
                    throw ListStoreError.drawnRowDeleted(path, id: id, asOf: version)
                case .sectionDeleted(let id):
                    switch drawn {
                    case .row(let path): throw ListStoreError.drawnSectionDeleted(index: path.section, id: id, asOf: version)
                    case .section(let index): throw ListStoreError.drawnSectionDeleted(index: index, id: id, asOf: version)
                    }
                case .unreadable:
                    throw ListStoreError.versionNotTranslatable(version, reason: "an edit since cannot be followed (a damaged change-log entry)")
                }
            }
        }
        return place
    }
}
