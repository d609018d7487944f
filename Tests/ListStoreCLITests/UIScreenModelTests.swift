import Foundation
import ListStore
import StoreShorthands
import Testing

@testable import ListStoreCLI

/// A `ListReader` that counts what it is asked to read, to show the screen reads only its window.
final class CountingReader: ScreenReading {
    let reader: ListReader
    private(set) var rowsRead = 0
    private(set) var rowCalls = 0

    init(_ reader: ListReader) { self.reader = reader }

    func sections() throws -> [ListSection] { try reader.sections() }
    func rows(inSection section: Int, range: Range<Int>?) throws -> [ListRow] {
        let rows = try reader.rows(inSection: section, range: range)
        rowCalls += 1
        rowsRead += rows.count
        return rows
    }
    func indexPath(of id: RowID) throws -> ListIndexPath? { try reader.indexPath(of: id) }
}

/// The screen of `liststore ui` without a terminal: cursor, ticks, window, prompts, layout, keys.
@Suite struct UIScreenModelTests {
    /// A file store with sections "A" (a0…a{n-1}) and "B" (b0, b1, b2).
    static func makeStore(_ directory: TemporaryDirectory, rowsInA: Int = 5) throws -> ListStore {
        let store = try ListStore.open(at: directory.path("ui.sqlite"))
        try store.write { tx in
            try tx.insertSection(title: "A")
            try tx.insertSection(title: "B")
            _ = try tx.insertRows((0..<rowsInA).map { "a\($0)" }, intoSection: 0)
            _ = try tx.insertRows(["b0", "b1", "b2"], intoSection: 1)
        }
        return store
    }

    static func model(_ store: ListStore, height: Int = 20) throws -> ScreenModel {
        var model = ScreenModel(height: height)
        try store.read { try model.refresh($0) }
        return model
    }

    /// Ticks the row under the cursor; false when it is not on a row.
    func tick(_ model: inout ScreenModel) -> Bool { model.toggleTickUnderCursor() }

    static func titleUnderCursor(_ model: ScreenModel) -> String? {
        switch model.cursorWindowLine {
        case .row(_, let row)?: row.title
        case .header(_, let section)?: "[\(section.title)]"
        case nil: nil
        }
    }

    @Test func cursorStartsOnTheFirstRowAndMovesOverHeadersAndRows() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try Self.makeStore(directory, rowsInA: 2)
        var model = try Self.model(store)
        #expect(Self.titleUnderCursor(model) == "a0")
        #expect(model.window.count == 7)  // 2 headers, 5 rows
        try store.read { try model.moveCursor(by: -1, $0) }
        #expect(Self.titleUnderCursor(model) == "[A]")
        try store.read { try model.moveCursor(by: -1, $0) }
        #expect(Self.titleUnderCursor(model) == "[A]")  // clamped at the top
        try store.read { try model.moveCursor(by: 3, $0) }
        #expect(Self.titleUnderCursor(model) == "[B]")
        try store.read { try model.moveToLast($0) }
        #expect(Self.titleUnderCursor(model) == "b2")
        try store.read { try model.moveCursor(by: 10, $0) }
        #expect(Self.titleUnderCursor(model) == "b2")
        try store.read { try model.moveToFirst($0) }
        #expect(Self.titleUnderCursor(model) == "a0")
    }

    @Test func scrollingReadsOnlyTheVisibleWindow() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try Self.makeStore(directory, rowsInA: 20_000)
        var model = ScreenModel(height: 10)
        try store.read { reader in
            let counting = CountingReader(reader)
            try model.refresh(counting)
            #expect(counting.rowsRead <= 10)
        }
        try store.read { reader in
            let counting = CountingReader(reader)
            try model.moveToLast(counting)
            #expect(counting.rowsRead <= 10)
            #expect(counting.rowCalls <= 2)
        }
        #expect(Self.titleUnderCursor(model) == "b2")
        #expect(model.window.count == 10)
        try store.read { reader in
            let counting = CountingReader(reader)
            try model.page(-1, counting)
            try model.page(-1, counting)
            #expect(counting.rowsRead <= 20)
        }
        // Two pages of 9 lines up from b2 (line 20,004): line 19,986, row a19985.
        #expect(Self.titleUnderCursor(model) == "a19985")
        try store.read { reader in
            let counting = CountingReader(reader)
            try model.moveCursor(by: 1, counting)
            #expect(counting.rowsRead <= 10)
        }
        #expect(Self.titleUnderCursor(model) == "a19986")
    }

    @Test func cursorAndTicksStayOnTheirRowsWhileAnotherConnectionInsertsAtTheHead() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try Self.makeStore(directory, rowsInA: 10)
        var model = try Self.model(store, height: 4)
        try store.read { try model.moveCursor(by: 5, $0) }  // a5
        #expect(tick(&model))
        try store.read { try model.moveCursor(by: 1, $0) }  // a6, scrolled: lines 4…7 on screen
        #expect(tick(&model))
        #expect(model.top == 4)
        let ticked = model.ticks.ids
        let screenLineBefore = model.cursorLine - model.top

        let other = try ListStore.open(at: directory.path("ui.sqlite"))
        let changes = try other.write { tx in _ = try tx.insertRows(["new0", "new1"], intoSection: 0, at: 0) }.changes
        try store.read { try model.apply([changes], $0) }

        #expect(Self.titleUnderCursor(model) == "a6")
        #expect(model.ticks.ids == ticked)
        #expect(model.cursorLine - model.top == screenLineBefore)
        let tickedTitles = model.window.compactMap { line -> String? in
            if case .row(_, let row) = line, model.isTicked(row.id) { return row.title }
            return nil
        }
        #expect(tickedTitles == ["a5", "a6"])
        #expect(model.window.count == 4)
        #expect(model.deletionTargets.sorted() == ticked.sorted())
    }

    @Test func ticksOfRowsDeletedElsewhereGoAndTheCursorTakesTheNextRow() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try Self.makeStore(directory)
        var model = try Self.model(store)
        try store.read { try model.moveCursor(by: 1, $0) }  // a1
        #expect(tick(&model))
        try store.read { try model.moveToLast($0) }  // b2
        #expect(tick(&model))
        try store.read { try model.moveCursor(by: -1, $0) }  // b1
        let other = try ListStore.open(at: directory.path("ui.sqlite"))
        let a1 = try other.row(at: ListIndexPath(section: 0, row: 1)).id
        let b1 = try other.row(at: ListIndexPath(section: 1, row: 1)).id
        let changes = try other.write { tx in try tx.deleteRows(ids: [a1, b1]) }.changes
        try store.read { try model.apply([changes], $0) }
        #expect(model.ticks.count == 1)
        #expect(!model.isTicked(a1))
        #expect(Self.titleUnderCursor(model) == "b2")  // took the deleted b1's place

        // A whole section deleted elsewhere: its rows are not listed in the change set, yet their ticks go.
        let sectionChanges = try other.write { tx in try tx.deleteSections(at: [1]) }.changes
        #expect(sectionChanges.deletedRows.isEmpty)
        try store.read { try model.apply([sectionChanges], $0) }
        #expect(model.ticks.isEmpty)
        #expect(model.sections.map(\.title) == ["A"])
        #expect(Self.titleUnderCursor(model) == "a4")
    }

    @Test func anEmptyStoreHasNoCursorAndTheLayoutSaysHowToStart() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try ListStore.open(at: directory.path("empty.sqlite"))
        let controller = try UIController(store: store, height: 10)
        #expect(controller.model.cursor == nil)
        controller.handle(.character("j"))
        controller.handle(.character("d"))
        #expect(controller.message == .error("nothing to delete: tick rows with Space, or put the cursor on a row"))
        let frame = ScreenLayout.frame(controller, width: 60, height: 12)
        #expect(frame.lines.count == 12)
        #expect(frame.lines[0].text.contains("press n"))
        #expect(frame.lines[10].text.hasPrefix("0 sections · 0 rows"))
    }

    // MARK: Prompt

    @Test func promptEditsUnicodeWithBackspaceAndArrows() {
        var prompt = PromptLine(label: "Title: ")
        for scalar in "漢字ok".unicodeScalars { prompt.type(scalar) }
        prompt.left()
        prompt.left()
        prompt.type("😀")
        #expect(prompt.text == "漢字😀ok")
        prompt.backspace()
        prompt.backspace()
        #expect(prompt.text == "漢ok")
        prompt.home()
        prompt.deleteForward()
        #expect(prompt.text == "ok")
        prompt.end()
        prompt.type("e")
        prompt.type("\u{301}")  // a combining acute joins the e
        #expect(prompt.text == "oke\u{301}")
        #expect(prompt.characters.count == 3)
        prompt.backspace()
        #expect(prompt.text == "ok")
        let shown = PromptLine(label: "T: ", text: "漢字").visibleText(columns: 40)
        #expect(shown.text == "T: 漢字")
        #expect(shown.cursorColumn == 7)
    }

    @Test func aLongPromptScrollsToKeepTheCursorInView() {
        let prompt = PromptLine(label: "T: ", text: String(repeating: "字", count: 100))
        let shown = prompt.visibleText(columns: 30)
        #expect(DisplayWidth.of(shown.text) <= 30)
        #expect(shown.cursorColumn <= 29)
        #expect(shown.text.hasPrefix("T: 字"))
    }

    // MARK: Layout

    @Test func layoutMeasuresWideCharactersAndCutsLongTitles() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try ListStore.open(at: directory.path("wide.sqlite"))
        try store.write { tx in
            try tx.insertSection(title: "漢字セクション")
            _ = try tx.insertRows(
                [
                    NewRow(title: String(repeating: "長", count: 80), payload: #"{"k":1}"#),
                    NewRow(title: "emoji 😀🎉 row"), NewRow(title: "tab\there"),
                ], intoSection: 0)
        }
        let controller = try UIController(store: store, height: 8)
        let frame = ScreenLayout.frame(controller, width: 50, height: 10)
        #expect(frame.lines.count == 10)
        for line in frame.lines { #expect(DisplayWidth.of(line.text) <= 49, "\(line.text)") }
        #expect(frame.lines[0].text == "  [0] 漢字セクション (3 rows)")
        #expect(frame.lines[1].text.hasPrefix("> "))
        #expect(frame.lines[1].text.hasSuffix("…  {…}"))
        #expect(frame.lines[1].style == .cursor)
        #expect(frame.lines[2].text == "      0:1  emoji 😀🎉 row")
        #expect(frame.lines[3].text == "      0:2  tab\\there")
        #expect(frame.lines[8].text == "1 section · 3 rows")
    }

    // MARK: Keys, through the library

    @Test func tickTwoRowsAndDeleteExactlyThoseWhileTheirTwinsStay() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try ListStore.open(at: directory.path("twins.sqlite"))
        try store.write { tx in
            try tx.insertSection(title: "S")
            _ = try tx.insertRows(["Invoice", "Lunch", "Invoice", "Lunch"], intoSection: 0)
        }
        let controller = try UIController(store: store, height: 10)
        controller.handle(.character(" "))  // 0:0 Invoice
        controller.handle(.down)
        controller.handle(.character(" "))  // 0:1 Lunch
        controller.handle(.character("d"))
        #expect(ScreenLayout.frame(controller, width: 60, height: 12).lines[10].text == "Delete 2 rows? (y/n)")
        controller.handle(.character("y"))
        #expect(try store.snapshot(ofSection: 0).rows.map(\.title) == ["Invoice", "Lunch"])
        #expect(controller.model.ticks.isEmpty)
        #expect(controller.message == .info("deleted 2 rows: 0:0, 0:1"))

        // n keeps them; d on an unticked cursor row deletes that row only.
        controller.handle(.character("d"))
        controller.handle(.character("n"))
        #expect(try store.totalRowCount() == 2)
        controller.handle(.character("d"))
        controller.handle(.character("y"))
        #expect(try store.snapshot(ofSection: 0).rows.map(\.title).count == 1)
    }

    @Test func addInsertEditMoveAndNewSectionGoThroughTheLibrary() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try Self.makeStore(directory, rowsInA: 2)
        let controller = try UIController(store: store, height: 20)
        func type(_ text: String) { for scalar in text.unicodeScalars { controller.handle(.character(scalar)) } }

        controller.handle(.character("a"))
        type("每個")
        controller.handle(.enter)
        #expect(try store.snapshot().sections.map { $0.rows.last?.title } == ["每個", "每個"])

        controller.handle(.character("i"))  // before a0
        type("first")
        controller.handle(.enter)
        #expect(try store.row(at: ListIndexPath(section: 0, row: 0)).title == "first")
        #expect(Self.titleUnderCursor(controller.model) == "first")

        controller.handle(.character("k"))  // header A: insert at row 0
        controller.handle(.character("i"))
        type("zero")
        controller.handle(.escape)
        #expect(try store.row(at: ListIndexPath(section: 0, row: 0)).title == "first")
        #expect(controller.message == .info("cancelled"))

        controller.handle(.character("j"))
        controller.handle(.character("e"))
        controller.handle(.backspace)
        controller.handle(.backspace)
        type("RST!")
        controller.handle(.enter)
        #expect(try store.row(at: ListIndexPath(section: 0, row: 0)).title == "firRST!")

        // Move "firRST!" (0:0) to B's header: row 0 of B.
        controller.handle(.character("m"))
        controller.handle(.character("G"))  // last row: B's 每個
        for _ in 0..<4 { controller.handle(.up) }  // b0, header B? (b2, b1, b0, [B])
        #expect(Self.titleUnderCursor(controller.model) == "[B]")
        controller.handle(.character("m"))
        #expect(try store.row(at: ListIndexPath(section: 1, row: 0)).title == "firRST!")
        #expect(Self.titleUnderCursor(controller.model) == "firRST!")

        // Move it down within B onto b1: it ends where b1 was (1:2).
        controller.handle(.character("m"))
        controller.handle(.down)
        controller.handle(.down)
        controller.handle(.character("m"))
        #expect(try store.snapshot(ofSection: 1).rows.map(\.title) == ["b0", "b1", "firRST!", "b2", "每個"])

        controller.handle(.character("n"))
        type("C")
        controller.handle(.enter)
        #expect(try store.sections().map(\.title) == ["A", "B", "C"])
        #expect(Self.titleUnderCursor(controller.model) == "[C]")
    }

    @Test func libraryErrorsShowOnTheStatusLineAndChangeNothing() throws {
        let directory = try TemporaryDirectory(prefix: "ui-model")
        let store = try Self.makeStore(directory, rowsInA: 2)
        let controller = try UIController(store: store, height: 20)
        let before = try store.snapshot()
        controller.handle(.character("a"))
        controller.handle(.enter)  // an empty title
        guard case .error(let message)? = controller.message else {
            Issue.record("expected an error, got \(String(describing: controller.message))")
            return
        }
        #expect(message.contains("empty"))
        controller.handle(.character("e"))
        controller.handle(.character("\u{15}"))  // Ctrl-U clears
        controller.handle(.enter)
        #expect(try store.snapshot() == before)
        let status = ScreenLayout.frame(controller, width: 100, height: 22).lines[20]
        #expect(status.style == .error)
        #expect(status.text.contains("error: "))
        controller.handle(.character("k"))
        controller.handle(.character(" "))
        #expect(controller.message == .error("Space ticks rows: put the cursor on a row, not a section header"))
        controller.handle(.character("q"))
        #expect(controller.wantsToQuit)
    }
}
