import ListStore

/// One line of the screen as text and how it is shown.
struct ScreenLine: Equatable, Sendable {
    enum Style: Equatable, Sendable {
        case plain, header, cursor, cursorHeader, status, error, help
    }

    var text: String
    var style: Style
}

/// A whole screen: exactly `height` lines, each at most `width - 1` columns wide (the last column stays
/// free, so no terminal wraps or scrolls), and where the text cursor goes (at a prompt).
struct ScreenFrame: Equatable, Sendable {
    var lines: [ScreenLine]
    var cursor: (row: Int, column: Int)?

    static func == (lhs: ScreenFrame, rhs: ScreenFrame) -> Bool {
        lhs.lines == rhs.lines && lhs.cursor?.row == rhs.cursor?.row && lhs.cursor?.column == rhs.cursor?.column
    }
}

/// Lays out what the controller holds as lines of text, measured in terminal columns (wide CJK
/// characters and emoji count two); the terminal only copies them to the screen.
///
/// ```
/// > [0] Roles (3 rows)
///     ✓ 0:0  Barbarian
///       0:1  Wizard  {…}
/// 3 sections · 27 rows · 1 ticked │ deleted 2 rows: 0:1, 1:3
/// j/k ↑↓ PgUp/PgDn g/G · Space tick · d delete · …
/// ```
enum ScreenLayout {
    /// Lines below the list: the status line and the key help.
    static let footerHeight = 2

    /// How many list lines fit in a terminal of `height` lines.
    static func listHeight(terminalHeight height: Int) -> Int { max(1, height - footerHeight) }

    static func frame(_ controller: UIController, width: Int, height: Int) -> ScreenFrame {
        let columns = max(1, width - 1)
        let model = controller.model
        var lines: [ScreenLine] = []
        let pathWidth = pathColumnWidth(model)
        for (offset, line) in model.window.enumerated() {
            let atCursor = model.top + offset == model.cursorLine
            lines.append(render(line, model: model, atCursor: atCursor, pathWidth: pathWidth, columns: columns))
        }
        if model.sections.isEmpty {
            lines.append(ScreenLine(text: "  (no sections: press n to add one)", style: .plain))
        }
        let listHeight = listHeight(terminalHeight: height)
        lines = Array(lines.prefix(listHeight))
        while lines.count < listHeight { lines.append(ScreenLine(text: "", style: .plain)) }

        var cursor: (row: Int, column: Int)?
        if let prompt = controller.prompt {
            let shown = prompt.line.visibleText(columns: columns)
            lines.append(ScreenLine(text: shown.text, style: .status))
            cursor = (lines.count - 1, shown.cursorColumn)
        } else if let targets = controller.confirmingDeletion {
            let text = "Delete \(targets.count) row\(targets.count == 1 ? "" : "s")? (y/n)"
            lines.append(ScreenLine(text: DisplayWidth.truncate(text, to: columns), style: .status))
            cursor = (lines.count - 1, min(columns, DisplayWidth.of(text) + 1))
        } else {
            lines.append(statusLine(controller, columns: columns))
        }
        lines.append(ScreenLine(text: DisplayWidth.truncate(controller.keyHelp, to: columns), style: .help))
        // A terminal too small for the footer shows what fits, from the top.
        return ScreenFrame(lines: Array(lines.prefix(max(0, height))), cursor: cursor.flatMap { $0.row < height ? $0 : nil })
    }

    /// Counts, then the result or error of the last action.
    static func statusLine(_ controller: UIController, columns: Int) -> ScreenLine {
        let model = controller.model
        var counts = "\(plural(model.sections.count, "section")) · \(plural(model.totalRows, "row"))"
        // With several lists in the file, the shown list's name leads (`l`/`L` switch).
        if !controller.listNames.isEmpty { counts = "[\(visible(controller.listName))] " + counts }
        if !model.ticks.isEmpty { counts += " · \(model.ticks.count) ticked" }
        var text = counts
        var style = ScreenLine.Style.status
        switch controller.message {
        case .info(let message)?: text += " │ " + visible(message)
        case .error(let message)?:
            text += " │ error: " + visible(message)
            style = .error
        case nil: break
        }
        return ScreenLine(text: DisplayWidth.truncate(text, to: columns), style: style)
    }

    private static func render(_ line: ScreenModel.Line, model: ScreenModel, atCursor: Bool, pathWidth: Int, columns: Int) -> ScreenLine {
        let marker = atCursor ? "> " : "  "
        switch line {
        case .header(let index, let section):
            let count = " (\(plural(section.rowCount, "row")))"
            let prefix = marker + "[\(index)] "
            let room = columns - DisplayWidth.of(prefix) - DisplayWidth.of(count)
            let title = room > 0 ? DisplayWidth.truncate(visible(section.title), to: room) : ""
            return ScreenLine(text: DisplayWidth.truncate(prefix + title + count, to: columns), style: atCursor ? .cursorHeader : .header)
        case .row(let path, let row):
            let mark = model.carried == row.id ? "↕ " : model.isTicked(row.id) ? "✓ " : "  "
            let prefix = marker + "  " + mark + DisplayWidth.pad(path.description, to: pathWidth) + "  "
            let payload = row.payload == nil ? "" : "  {…}"
            let room = columns - DisplayWidth.of(prefix) - DisplayWidth.of(payload)
            let title = room > 0 ? DisplayWidth.truncate(visible(row.title), to: room) : ""
            return ScreenLine(text: DisplayWidth.truncate(prefix + title + payload, to: columns), style: atCursor ? .cursor : .plain)
        }
    }

    /// Wide enough for the longest index path in the store, so the column does not jump while scrolling.
    private static func pathColumnWidth(_ model: ScreenModel) -> Int {
        let lastSection = max(0, model.sections.count - 1)
        let mostRows = model.sections.map(\.rowCount).max() ?? 1
        return "\(lastSection):\(max(0, mostRows - 1))".count
    }

    private static func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
