import ListStore

/// Human-readable output: aligned columns whatever the script of the titles.
enum HumanText {
    /// The widest a title is shown; longer titles end in "…" (`--json` and `export` show them whole).
    static let titleColumns = 60

    static let emptyStore = "(no sections; add one with `liststore section add TITLE`)"

    /// Sections with their rows and index paths, e.g.
    /// ```
    /// [0] Roles (2 rows)
    ///     0:0  Barbarian
    ///     0:1  Wizard     {"level":2}
    /// ```
    static func list(_ sections: [(index: Int, section: SectionSnapshot)]) -> String {
        guard !sections.isEmpty else { return emptyStore }
        let pathWidth = sections.map { pathColumn(section: $0.index, rowCount: $0.section.rows.count) }.max() ?? 3
        var lines: [String] = []
        for (index, section) in sections {
            lines.append(header(index: index, title: section.title, rowCount: section.rows.count))
            let titleWidth = section.rows.map { DisplayWidth.of(display($0.title)) }.max() ?? 0
            for (row, entry) in section.rows.enumerated() {
                lines.append(line(ListIndexPath(section: index, row: row), entry, pathWidth: pathWidth, titleWidth: titleWidth))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The same listing for the whole store (or one section), written as it is read: two scans (one
    /// for the column widths, one to print), so a store of any size prints in constant memory. Index
    /// paths are the ones edits act on; where hand edits left gaps in them, `warn` gets one line saying so.
    static func streamList(of store: ListStore, section: Int? = nil, to write: (String) throws -> Void, warn: (String) -> Void) throws {
        let scan: ((ScannedItem) throws -> Void) throws -> Void = { visit in
            if let section { try store.scan(section: section, visit) } else { try store.scan(visit) }
        }
        var titleWidths: [Int: Int] = [:]
        var pathWidth = 3
        var damage = DamageSpotter()
        try scan { item in
            damage.see(item)
            switch item {
            case .section(let index, _, _, let rowCount):
                titleWidths[index] = 0
                pathWidth = max(pathWidth, pathColumn(section: index, rowCount: rowCount))
            case .row(let path, let row):
                titleWidths[path.section] = max(titleWidths[path.section] ?? 0, DisplayWidth.of(display(row.title)))
                pathWidth = max(pathWidth, path.description.count)
            }
        }
        guard !titleWidths.isEmpty else {
            try write(emptyStore + "\n")
            return
        }
        var buffer = ""
        try scan { item in
            switch item {
            case .section(let index, _, let title, let rowCount):
                buffer += header(index: index, title: title, rowCount: rowCount) + "\n"
            case .row(let path, let row):
                // Rows another process added between the two scans are printed, just not aligned.
                buffer += line(path, row, pathWidth: pathWidth, titleWidth: titleWidths[path.section] ?? 0) + "\n"
            }
            if buffer.utf8.count >= 65_536 {
                try write(buffer)
                buffer = ""
            }
        }
        try write(buffer)
        if let summary = damage.summary(wholeStore: section == nil) { warn(summary) }
    }

    private static func pathColumn(section: Int, rowCount: Int) -> Int { "\(section):\(rowCount > 0 ? rowCount - 1 : 0)".count }

    private static func header(index: Int, title: String, rowCount: Int) -> String {
        let count = rowCount == 1 ? "1 row" : "\(rowCount) rows"
        return "[\(index)] \(display(title)) (\(count))" + (rowCount == 0 ? "\n    (no rows)" : "")
    }

    private static func line(_ path: ListIndexPath, _ row: ListRow, pathWidth: Int, titleWidth: Int) -> String {
        let pathText = DisplayWidth.pad(path.description, to: pathWidth)
        let title = display(row.title)
        guard let payload = row.payload else { return "    \(pathText)  \(title)" }
        return "    \(pathText)  \(DisplayWidth.pad(title, to: titleWidth))  \(DisplayWidth.truncate(visible(payload), to: titleColumns))"
    }

    static func display(_ title: String) -> String { DisplayWidth.truncate(visible(title), to: titleColumns) }

    /// One line per kind of change, e.g. `deleted 2 rows: 0:1, 0:5`; "nothing changed" when empty.
    static func changes(_ changes: ChangeSet) -> String {
        var lines: [String] = []
        func add(_ verb: String, _ noun: String, _ items: [String]) { if let line = line(verb, noun, items) { lines.append(line) } }
        add("deleted", "section", changes.deletedSections.map { "\($0.index)" })
        add("inserted", "section", changes.insertedSections.map { "\($0.index)" })
        add("moved", "section", changes.movedSections.map { "\($0.from) → \($0.to)" })
        add("renamed", "section", changes.updatedSections.map { "\($0.index)" })
        add("deleted", "row", changes.deletedRows.map { "\($0.indexPath)" })
        add("inserted", "row", changes.insertedRows.map { "\($0.indexPath)" })
        add("moved", "row", changes.movedRows.map { "\($0.from) → \($0.to)" })
        add("updated", "row", changes.updatedRows.map { "\($0.indexPath)" })
        return lines.isEmpty ? "nothing changed" : lines.joined(separator: "\n")
    }

    /// `deleted 2 rows: 0:1, 0:5`, or nil for no items: one line of ``changes(_:)``.
    static func line(_ verb: String, _ noun: String, _ items: [String]) -> String? {
        guard !items.isEmpty else { return nil }
        return "\(verb) \(items.count) \(noun)\(items.count == 1 ? "" : "s"): \(items.joined(separator: ", "))"
    }
}

/// JSON output: the shapes other tools script against.
enum JSONShapes {
    /// `{"sections":[{"index":0,"id":…,"title":…,"rows":[{"path":[0,0],"id":…,"title":…,"payload":…}]}]}`:
    /// every section with its index and every row with its index path — the ones edits act on, so a
    /// script never takes an array position for one (after hand edits they can differ: see `show`).
    /// `sections` are consecutive sections of a store whose positions are dense (snapshots refuse
    /// others), the first at `firstIndex`.
    static func list(_ sections: [SectionSnapshot], firstIndex: Int = 0) -> JSONValue {
        .object([("sections", .array(sections.enumerated().map { section($0.element, index: firstIndex + $0.offset) }))])
    }

    /// A section at `index`, its rows at `[index, 0]`, `[index, 1]`, …
    static func section(_ section: SectionSnapshot, index: Int) -> JSONValue {
        .object([
            ("index", .int(index)), ("id", .int(section.id.rawValue)), ("title", .string(section.title)),
            ("rows", .array(section.rows.enumerated().map { row($0.element, at: ListIndexPath(section: index, row: $0.offset)) })),
        ])
    }

    /// A row; with its index path first when given (the `export` document, the import format, has none).
    static func row(_ row: ListRow, at path: ListIndexPath? = nil) -> JSONValue {
        .object(
            (path.map { [("path", self.path($0))] } ?? [])
                + [("id", .int(row.id.rawValue)), ("title", .string(row.title)), ("payload", row.payload.map(JSONValue.raw) ?? .null)])
    }

    /// `("version", N)` for a document of a state or change set that has a version (``ListVersion``),
    /// nothing for one that has none: what `--as-of` takes.
    static func version(_ version: ListVersion) -> [(String, JSONValue)] {
        version.isVersioned ? [("version", .int(version.rawValue))] : []
    }

    /// `value`, an object, with its version as its last member.
    static func versioned(_ value: JSONValue, _ version: ListVersion) -> JSONValue {
        guard case .object(let members) = value else { return value }
        return .object(members + self.version(version))
    }

    /// `[section,row]`, as text: one small value, not three, for documents with a path on every row.
    /// `[S,R]`; `[S,null]` for a row no index names (``ListIndexPath/noRow``: a hand edit left it uncounted).
    static func path(_ path: ListIndexPath) -> JSONValue {
        .raw(path.row == ListIndexPath.noRow ? "[\(path.section),null]" : "[\(path.section),\(path.row)]")
    }

    /// The change set in UIKit batch-update coordinates — deletions, updates and move sources before the
    /// change, insertions and move targets after it — every entry with its id, and inserted and updated
    /// entries with their values (an inserted section with all its rows, each with its path):
    /// `{"sections":{"deleted":[{"index":2,"id":3}],"inserted":[{"index":0,"id":9,"title":"…","rows":[{"path":[0,0],…}]}],
    /// "moved":[{"from":0,"to":2,"id":1}],"updated":[{"index":1,"id":2,"title":"…"}]},"rows":{"deleted":
    /// [{"path":[2,1],"id":18}],"inserted":[{"path":[0,0],"id":31,"title":"…","payload":null}],"moved":
    /// [{"from":[0,0],"to":[1,2],"id":1}],"updated":[{"path":[0,3],"id":4,"title":"…","payload":{"a":1}}]}}`
    static func changes(_ changes: ChangeSet) -> JSONValue {
        func rowValue(_ entry: ChangeSet.RowValue) -> JSONValue {
            .object([
                ("path", path(entry.indexPath)), ("id", .int(entry.id.rawValue)), ("title", .string(entry.row.title)),
                ("payload", entry.row.payload.map(JSONValue.raw) ?? .null),
            ])
        }
        return .object([
            (
                "sections",
                .object([
                    ("deleted", .array(changes.deletedSections.map { .object([("index", .int($0.index)), ("id", .int($0.id.rawValue))]) })),
                    // Each inserted section as its text, built and serialised one at a time: an import's change
                    // set holds every row, and a tree of values for all of them at once would take several
                    // times the memory of its text.
                    ("inserted", .array(changes.insertedSections.map { .raw(section($0.section, index: $0.index).serialized()) })),
                    ("moved", .array(changes.movedSections.map { .object([("from", .int($0.from)), ("to", .int($0.to)), ("id", .int($0.id.rawValue))]) })),
                    (
                        "updated",
                        .array(
                            changes.updatedSections.map {
                                .object([("index", .int($0.index)), ("id", .int($0.id.rawValue)), ("title", .string($0.title))])
                            })
                    ),
                ])
            ),
            (
                "rows",
                .object([
                    ("deleted", .array(changes.deletedRows.map { .object([("path", path($0.indexPath)), ("id", .int($0.id.rawValue))]) })),
                    ("inserted", .array(changes.insertedRows.map(rowValue))),
                    ("moved", .array(changes.movedRows.map { .object([("from", path($0.from)), ("to", path($0.to)), ("id", .int($0.id.rawValue))]) })),
                    ("updated", .array(changes.updatedRows.map(rowValue))),
                ])
            ),
        ])
    }
}

/// Notices, while a listing is scanned, index paths that are not dense: the marks of hand edits that
/// `liststore check` explains and `liststore repair` renumbers.
struct DamageSpotter {
    private var expectedSection = 0
    private var expectedRow = 0
    private var recordedCount = 0
    private var damagedSections: [Int] = []
    private var orderDamaged = false
    private var current: Int?

    mutating func see(_ item: ScannedItem) {
        switch item {
        case .section(let index, _, _, let rowCount):
            finishSection()
            if index != expectedSection { orderDamaged = true }
            expectedSection = index == Int.max ? index : index + 1
            current = index
            expectedRow = 0
            recordedCount = rowCount
        case .row(let path, _):
            if path.row != expectedRow { markCurrent() }
            expectedRow = path.row == Int.max ? path.row : path.row + 1
        }
    }

    private mutating func markCurrent() {
        if let current, damagedSections.last != current { damagedSections.append(current) }
    }

    private mutating func finishSection() {
        if current != nil && expectedRow != recordedCount { markCurrent() }
    }

    /// One line naming what is damaged, or nil when every index path is dense.
    mutating func summary(wholeStore: Bool) -> String? {
        finishSection()
        current = nil
        var parts: [String] = []
        if orderDamaged && wholeStore { parts.append("the section indexes have gaps") }
        if !damagedSections.isEmpty {
            let names = damagedSections.prefix(5).map(String.init).joined(separator: ", ") + (damagedSections.count > 5 ? ", …" : "")
            parts.append("the row indexes of section\(damagedSections.count == 1 ? "" : "s") \(names) have gaps or a wrong count")
        }
        guard !parts.isEmpty else { return nil }
        return
            "warning: positions were changed outside ListStore: \(parts.joined(separator: "; ")); the index paths shown are the ones edits act on, and edits refuse what they can see is damaged — run `liststore check`, then `liststore repair`"
    }
}
