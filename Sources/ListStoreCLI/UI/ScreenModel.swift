import ListStore

/// One consistent read of the store, as much as the screen needs of it: the sections with their row
/// counts, a page of one section's rows, and where a row is now. `ListReader` (inside `store.read { }`)
/// is one; tests wrap it to count what is read.
protocol ScreenReading {
    func sections() throws -> [ListSection]
    func rows(inSection section: Int, range: Range<Int>?) throws -> [ListRow]
    func indexPath(of id: RowID) throws -> ListIndexPath?
}

extension ListReader: ScreenReading {}

/// What `liststore ui` shows, without a terminal: the lines of the store (a header per section, then
/// its rows), the cursor and the ticked rows — both held by id, so they stay on their rows while rows
/// move around them — and the window of lines on screen, which is all that is ever read of the rows.
///
/// Lines are numbered through the whole store: section `s`'s header is line `starts[s]`, its row `r` is
/// line `starts[s] + 1 + r`. Only the section list (ids, titles, counts) is kept whole.
struct ScreenModel {
    /// What the cursor is on.
    enum Item: Hashable, Sendable {
        case header(SectionID)
        case row(RowID)
    }

    /// One line of the window.
    enum Line: Equatable, Sendable {
        case header(index: Int, section: ListSection)
        case row(path: ListIndexPath, row: ListRow)

        var item: Item {
            switch self {
            case .header(_, let section): .header(section.id)
            case .row(_, let row): .row(row.id)
            }
        }
    }

    /// The sections in order, with titles and row counts.
    private(set) var sections: [ListSection] = []
    /// The line number of each section's header.
    private(set) var starts: [Int] = []
    /// Header and row lines of the whole store.
    private(set) var lineCount = 0
    /// The line the cursor is on (0 when the store has no sections).
    private(set) var cursorLine = 0
    /// What the cursor is on; nil only when the store has no sections.
    private(set) var cursor: Item?
    /// The first line on screen.
    private(set) var top = 0
    /// The lines on screen, `top ..< top + window.count`.
    private(set) var window: [Line] = []
    /// The ticked rows, by id.
    private(set) var ticks = ListSelection()
    /// The row picked up with `m`, waiting to be dropped.
    var carried: RowID?
    /// How many lines the window shows.
    private(set) var height: Int
    /// Where the cursor was last seen (its section, and its row or nil on the header), for when its
    /// row or section disappears: the cursor then goes to what took its place.
    private var anchor: (section: SectionID, row: Int?)?

    init(height: Int) {
        self.height = max(1, height)
    }

    /// Rows in all sections.
    var totalRows: Int { sections.reduce(0) { $0 + $1.rowCount } }

    /// The row under the cursor, if the cursor is on a row.
    var cursorRow: RowID? {
        if case .row(let id) = cursor { return id }
        return nil
    }

    /// The section the cursor is in (its header or one of its rows).
    var cursorSection: Int? { sections.isEmpty ? nil : locate(cursorLine).section }

    /// The cursor's line as it is on screen, if it is in the window.
    var cursorWindowLine: Line? {
        let offset = cursorLine - top
        return window.indices.contains(offset) ? window[offset] : nil
    }

    // MARK: Reading

    /// Reads the sections and the window around the cursor, keeping the cursor on its row or section
    /// (by id) and on the same screen line when rows were inserted or deleted above it. A cursor whose
    /// row is gone goes to the row that took its place (the next one, else the previous, else the header).
    mutating func refresh(_ reader: some ScreenReading) throws {
        let screenOffset = cursorLine - top
        let hadCursor = cursor != nil
        sections = try reader.sections()
        computeStarts()
        if let line = try currentLine(of: cursor, reader) {
            cursorLine = line
        } else if let anchor, let section = sections.firstIndex(where: { $0.id == anchor.section }) {
            let count = sections[section].rowCount
            cursorLine = starts[section] + (anchor.row.map { count == 0 ? 0 : 1 + min($0, count - 1) } ?? 0)
        } else if !hadCursor {
            cursorLine = firstRowLine
        }
        cursorLine = clamp(cursorLine)
        if hadCursor { top = cursorLine - screenOffset }
        try loadWindow(reader)
    }

    /// Changes committed by this screen or elsewhere, oldest first: ticks of deleted rows go, then the
    /// sections and the window are read again once (one page, never the whole store).
    mutating func apply(_ changeSets: [ChangeSet], _ reader: some ScreenReading) throws {
        let changeSets = changeSets.filter { !$0.isEmpty }
        guard !changeSets.isEmpty else { return }
        for changes in changeSets {
            for deleted in changes.deletedRows {
                untick(deleted.id)
                if carried == deleted.id { carried = nil }
            }
        }
        // Rows of a deleted section are not listed one by one: ask whether the ticked ones still exist.
        if changeSets.contains(where: { !$0.deletedSections.isEmpty }) { try pruneTicks(reader) }
        try refresh(reader)
    }

    /// After missing changes (observation started or restarted): forget ticks of rows that are gone
    /// and read again.
    mutating func resynchronize(_ reader: some ScreenReading) throws {
        try pruneTicks(reader)
        try refresh(reader)
    }

    /// A new window size, e.g. after the terminal was resized.
    mutating func resize(height newHeight: Int, _ reader: some ScreenReading) throws {
        height = max(1, newHeight)
        try loadWindow(reader)
    }

    // MARK: Cursor

    /// Moves the cursor `delta` lines (negative: up), clamped to the store, and scrolls to it.
    mutating func moveCursor(by delta: Int, _ reader: some ScreenReading) throws {
        guard lineCount > 0 else { return }
        let target = delta >= 0 ? cursorLine.addingReportingOverflow(delta) : cursorLine.subtractingReportingOverflow(-delta)
        cursorLine = clamp(target.overflow ? (delta > 0 ? Int.max : 0) : target.partialValue)
        try loadWindow(reader)
    }

    /// One screen down (positive) or up (negative); the window moves with the cursor.
    mutating func page(_ direction: Int, _ reader: some ScreenReading) throws {
        guard lineCount > 0 else { return }
        let step = max(1, height - 1) * (direction >= 0 ? 1 : -1)
        let offset = cursorLine - top
        cursorLine = clamp(cursorLine + step)
        top = cursorLine - offset
        try loadWindow(reader)
    }

    /// The first row of the store (the first header when no section has rows).
    mutating func moveToFirst(_ reader: some ScreenReading) throws {
        cursorLine = firstRowLine
        try loadWindow(reader)
    }

    /// The last row of the store (the last header when no section has rows).
    mutating func moveToLast(_ reader: some ScreenReading) throws {
        if let last = sections.indices.last(where: { sections[$0].rowCount > 0 }) {
            cursorLine = starts[last] + sections[last].rowCount
        } else {
            cursorLine = max(0, lineCount - 1)
        }
        try loadWindow(reader)
    }

    /// Puts the cursor on `item` (a row just inserted or moved), wherever it is now.
    mutating func setCursor(_ item: Item, _ reader: some ScreenReading) throws {
        guard let line = try currentLine(of: item, reader) else { return }
        cursor = item
        cursorLine = line
        try loadWindow(reader)
    }

    // MARK: Ticks

    /// Ticks the row under the cursor, or unticks it; false when the cursor is not on a row.
    mutating func toggleTickUnderCursor() -> Bool {
        guard let id = cursorRow else { return false }
        ticks.toggle(id)
        return true
    }

    /// Whether row `id` is ticked.
    func isTicked(_ id: RowID) -> Bool { ticks.contains(id) }

    /// What `d` deletes: the ticked rows, or else the row under the cursor.
    var deletionTargets: [RowID] {
        if !ticks.isEmpty { return ticks.ids.sorted() }
        return cursorRow.map { [$0] } ?? []
    }

    private mutating func untick(_ id: RowID) {
        if ticks.contains(id) { ticks.toggle(id) }
    }

    private mutating func pruneTicks(_ reader: some ScreenReading) throws {
        for id in ticks.ids where try reader.indexPath(of: id) == nil { untick(id) }
        if let carried, try reader.indexPath(of: carried) == nil { self.carried = nil }
    }

    // MARK: Lines

    /// The section of `line`, and its row (nil for the header).
    func locate(_ line: Int) -> (section: Int, row: Int?) {
        // The last section whose header is at or before `line`.
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= line { low = middle } else { high = middle - 1 }
        }
        let row = line - starts[low] - 1
        return (low, row >= 0 ? row : nil)
    }

    private var firstRowLine: Int {
        guard let first = sections.firstIndex(where: { $0.rowCount > 0 }) else { return 0 }
        return starts[first] + 1
    }

    private func clamp(_ line: Int) -> Int { min(max(0, line), max(0, lineCount - 1)) }

    private mutating func computeStarts() {
        starts = []
        starts.reserveCapacity(sections.count)
        var line = 0
        for section in sections {
            starts.append(line)
            line += 1 + section.rowCount
        }
        lineCount = line
    }

    /// The line `item` is on now, or nil when it no longer exists.
    private func currentLine(of item: Item?, _ reader: some ScreenReading) throws -> Int? {
        switch item {
        case .header(let id):
            return sections.firstIndex { $0.id == id }.map { starts[$0] }
        case .row(let id):
            guard let path = try reader.indexPath(of: id), starts.indices.contains(path.section) else { return nil }
            return starts[path.section] + 1 + path.row
        case nil:
            return nil
        }
    }

    /// Scrolls so the cursor is on screen, then reads the lines on screen: one page of rows per
    /// section in view.
    private mutating func loadWindow(_ reader: some ScreenReading) throws {
        guard lineCount > 0 else {
            window = []
            cursor = nil
            anchor = nil
            cursorLine = 0
            top = 0
            return
        }
        cursorLine = clamp(cursorLine)
        top = min(max(0, top), max(0, lineCount - height))
        if cursorLine < top { top = cursorLine }
        if cursorLine >= top + height { top = cursorLine - height + 1 }
        let end = min(lineCount, top + height)
        var lines: [Line] = []
        lines.reserveCapacity(end - top)
        var line = top
        var section = locate(top).section
        while line < end, section < sections.count {
            if line == starts[section] {
                lines.append(.header(index: section, section: sections[section]))
                line += 1
            }
            let firstRow = line - starts[section] - 1
            let lastRow = min(sections[section].rowCount, end - starts[section] - 1)
            if firstRow < lastRow {
                let rows = try reader.rows(inSection: section, range: firstRow..<lastRow)
                for (offset, row) in rows.enumerated() {
                    lines.append(.row(path: ListIndexPath(section: section, row: firstRow + offset), row: row))
                }
                // Fewer rows than counted (changed between two reads): stop; the next change reads again.
                if rows.count < lastRow - firstRow { break }
                line += rows.count
            }
            section += 1
        }
        window = lines
        if let current = cursorWindowLine {
            cursor = current.item
            switch current {
            case .header(_, let section): anchor = (section.id, nil)
            case .row(let path, _): anchor = (sections[path.section].id, path.row)
            }
        }
    }
}
