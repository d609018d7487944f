import ListStore

/// A key as the screen understands it, whatever terminal it came from.
enum UIKey: Equatable, Sendable {
    case character(Unicode.Scalar)
    case up, down, left, right, pageUp, pageDown, home, end
    case backspace, delete, enter, escape
    case resize
}

/// The result or error of the last action, shown on the status line.
enum UIMessage: Equatable, Sendable {
    case info(String)
    case error(String)
}

/// `liststore ui`'s behaviour without a terminal: keys in, edits through the library, the screen model
/// and the status line out. Every edit is one `store.write { }` transaction, with the library's
/// validation: an error goes to the status line and changes nothing.
final class UIController {
    /// What a text prompt is for; targets are held by id, so they stay right while others edit.
    enum PromptPurpose: Equatable {
        case appendToEverySection
        case insert(at: ScreenModel.Item)
        case edit(RowID)
        case newSection(after: SectionID?)
        case search
    }

    /// The list shown: the store's handle on it (`l` and `L` switch lists).
    private(set) var store: ListStore
    /// The shown list's name, and the file's list names in order when it has more than one (the status
    /// line then starts with the name, and `l`/`L` go to the next and previous list).
    private(set) var listName = ListStore.defaultListName
    private(set) var listNames: [String] = []
    private(set) var model: ScreenModel
    /// The text prompt being answered, and what for.
    private(set) var prompt: (line: PromptLine, purpose: PromptPurpose)?
    /// Rows waiting for the answer to "Delete N rows? (y/n)".
    private(set) var confirmingDeletion: [RowID]?
    private(set) var message: UIMessage?
    /// The text of the last `/` search, offered again by the next `/` (Enter jumps to the next match).
    private var lastSearch = ""
    /// Set by `q`.
    private(set) var wantsToQuit = false

    init(store: ListStore, height: Int) throws {
        self.store = store
        model = ScreenModel(height: height)
        try store.read { try model.refresh($0) }
        try readListNames()
    }

    /// Reads the file's lists and the shown list's name.
    private func readListNames() throws {
        listName = try store.listName()
        let names = try store.lists().map(\.name)
        listNames = names.count > 1 ? names : []
    }

    /// Shows the list `offset` places after the shown one (wrapping around), from its top.
    private func switchList(by offset: Int) throws {
        do { try readListNames() } catch let error as ListStoreError where { if case .listDeleted = error.reason { true } else { false } }() {
            // Deleted by another program while shown: l and L go back to the default list.
            try show(store.defaultList)
            message = .info("the list shown was deleted; list \(quoted(listName))")
            return
        }
        guard !listNames.isEmpty, let current = listNames.firstIndex(of: listName) else {
            message = .info("this file has one list; add another with `liststore list add NAME`")
            return
        }
        let next = listNames[((current + offset) % listNames.count + listNames.count) % listNames.count]
        try show(try store.list(named: next))
        message = .info("list \(quoted(next))")
    }

    /// Shows `list` from its top.
    private func show(_ list: ListStore) throws {
        store = list
        model = ScreenModel(height: model.height)
        try store.read { try model.refresh($0) }
        try readListNames()
    }

    /// The line of help for the current state.
    var keyHelp: String {
        if prompt != nil { return "Enter save  Esc cancel  ←→ Home End Backspace Delete edit  Ctrl-U clear" }
        if confirmingDeletion != nil { return "y delete  n or Esc keep them" }
        if model.carried != nil { return "jk↑↓ PgUp/Dn g/G  go where it belongs, then m to drop it  Esc cancel  q quit" }
        let lists = listNames.isEmpty ? "" : "  l/L list"
        return "jk↑↓ PgUp/Dn g/G  / find  Space tick  d delete  a add to all  i insert  e edit  m move  n section  u/U undo/redo\(lists)  q quit"
    }

    // MARK: Keys

    /// Handles one key.
    func handle(_ key: UIKey) {
        if prompt != nil { return handlePromptKey(key) }
        if let targets = confirmingDeletion {
            confirmingDeletion = nil
            if key == .character("y") || key == .character("Y") {
                perform { tx in try tx.deleteRows(ids: targets) }
            } else {
                message = .info("nothing deleted")
            }
            return
        }
        do {
            try handleListKey(key)
        } catch {
            message = .error(CLIAdvice.message(for: error))
        }
    }

    private func handleListKey(_ key: UIKey) throws {
        switch key {
        case .down, .character("j"): try read { try model.moveCursor(by: 1, $0) }
        case .up, .character("k"): try read { try model.moveCursor(by: -1, $0) }
        case .pageDown: try read { try model.page(1, $0) }
        case .pageUp: try read { try model.page(-1, $0) }
        case .character("g"), .home: try read { try model.moveToFirst($0) }
        case .character("G"), .end: try read { try model.moveToLast($0) }
        case .character(" "):
            if !model.toggleTickUnderCursor() { message = .error("Space ticks rows: put the cursor on a row, not a section header") }
        case .character("d"): askToDelete()
        case .character("a"):
            guard !model.sections.isEmpty else { return noSections() }
            prompt = (PromptLine(label: "Add to every section: "), .appendToEverySection)
        case .character("i"):
            guard let cursor = model.cursor else { return noSections() }
            prompt = (PromptLine(label: "Insert \(insertionPlace): "), .insert(at: cursor))
        case .character("e"):
            guard case .row(let path, let row)? = model.cursorWindowLine else {
                message = .error("e edits a row's title: put the cursor on a row (section titles: liststore section rename)")
                return
            }
            prompt = (PromptLine(label: "Title of \(path): ", text: row.title), .edit(row.id))
        case .character("m"): moveKey()
        case .character("/"): prompt = (PromptLine(label: "Find: ", text: lastSearch), .search)
        case .character("n"):
            let after = model.cursorSection.map { model.sections[$0].id }
            prompt = (PromptLine(label: "New section: "), .newSection(after: after))
        case .escape:
            if model.carried != nil {
                model.carried = nil
                message = .info("move cancelled")
            }
        case .character("u"): takeBack(redo: false)
        case .character("U"), .character("\u{12}"): takeBack(redo: true)  // U or Ctrl-R
        case .character("l") where model.carried == nil: try switchList(by: 1)
        case .character("L") where model.carried == nil: try switchList(by: -1)
        case .character("q"): wantsToQuit = true
        case .resize, .enter, .left, .right, .backspace, .delete, .character: break
        }
    }

    private func handlePromptKey(_ key: UIKey) {
        guard let (current, purpose) = prompt else { return }
        var line = current
        switch key {
        case .escape:
            prompt = nil
            message = .info("cancelled")
            return
        case .enter:
            prompt = nil
            submit(line.text, for: purpose)
            return
        case .backspace: line.backspace()
        case .delete: line.deleteForward()
        case .left: line.left()
        case .right: line.right()
        case .home: line.home()
        case .end: line.end()
        case .character(let scalar):
            if scalar == "\u{15}" {
                line.clear()
            }  // Ctrl-U
            else if scalar.properties.generalCategory != .control {
                line.type(scalar)
            }
        case .up, .down, .pageUp, .pageDown, .resize: break
        }
        prompt = (line, purpose)
    }

    private func submit(_ title: String, for purpose: PromptPurpose) {
        switch purpose {
        case .appendToEverySection:
            perform { tx in _ = try tx.appendRowToEverySection(title) }
        case .insert(at: .row(let anchor)):
            perform({ tx in try tx.insertRows([title], before: anchor) }, then: { $0.first.map(ScreenModel.Item.row) })
        case .insert(at: .header(let section)):
            perform({ tx in try tx.insertRow(title, intoSection: section, at: 0) }, then: { .row($0) })
        case .edit(let id):
            perform { tx in try tx.updateRow(id: id, title: title) }
        case .search:
            find(title)
        case .newSection(let after):
            perform(
                { tx in
                    let index = try after.flatMap { try tx.index(of: $0) }.map { $0 + 1 } ?? 0
                    return try tx.insertSection(title: title, at: index)
                }, then: { .header($0) })
        }
    }

    private func askToDelete() {
        let targets = model.deletionTargets
        guard !targets.isEmpty else {
            message = .error("nothing to delete: tick rows with Space, or put the cursor on a row")
            return
        }
        confirmingDeletion = targets
    }

    private func moveKey() {
        guard let carried = model.carried else {
            guard case .row(_, let row)? = model.cursorWindowLine else {
                message = .error("m picks up a row: put the cursor on a row")
                return
            }
            model.carried = row.id
            message = .info("moving \(quoted(row.title)): put the cursor where it goes and press m (Esc cancels)")
            return
        }
        model.carried = nil
        switch model.cursor {
        case .row(let target) where target == carried:
            message = .info("left where it was")
        case .row(let target):
            perform(
                { tx in
                    // Dropped on a row below it in the same section, it goes after that row: it ends up at the
                    // index path the cursor showed, as `liststore move` puts it.
                    let from = try tx.indexPath(of: carried)
                    let to = try tx.indexPath(of: target)
                    if let from, let to, from.section == to.section, from.row < to.row {
                        try tx.moveRow(id: carried, after: target)
                    } else {
                        try tx.moveRow(id: carried, before: target)
                    }
                }, then: { .row(carried) })
        case .header(let section):
            perform({ tx in try tx.moveRow(id: carried, toSection: section, at: 0) }, then: { .row(carried) })
        case nil:
            noSections()
        }
    }

    /// `u` and `U`: the command line's last transaction undone or redone (``ListStore/undo()``), with
    /// what it changed (or why it cannot) on the status line.
    private func takeBack(redo: Bool) {
        do {
            let action = try store.nextUndo(redo: redo)?.actionName
            let changes = redo ? try store.redo() : try store.undo()
            let what = "\(redo ? "redid" : "undid") \(action.map { HumanText.display($0) } ?? "the last edit")"
            message = .info(([what] + HumanText.changes(changes).split(separator: "\n").map(String.init)).joined(separator: "; "))
            try read { try model.apply([changes], $0) }
        } catch {
            message = .error(CLIAdvice.message(for: error))
        }
    }

    private func noSections() {
        message = .error("the store has no sections: add one with n")
    }

    /// Where `i` inserts, for its prompt: "before 0:3" or "at 1:0".
    private var insertionPlace: String {
        switch model.cursorWindowLine {
        case .row(let path, _)?: "before \(path)"
        case .header(let index, _)?: "at \(index):0"
        case nil: "here"
        }
    }

    // MARK: Changes

    /// What the observer heard since the last call: changes committed elsewhere (or this screen's own,
    /// seen again), applied together with one re-read of the window.
    func receive(_ events: [LiveEvent]) {
        var changeSets: [ChangeSet] = []
        var resynchronize = false
        for event in events {
            switch event {
            case .changes(let changes): changeSets.append(changes)
            case .resynchronize: resynchronize = true
            case .ended(let reason): message = .error(reason)
            }
        }
        do {
            if resynchronize {
                try read { try model.resynchronize($0) }
            } else if !changeSets.isEmpty {
                try read { try model.apply(changeSets, $0) }
            }
        } catch {
            message = .error(CLIAdvice.message(for: error))
        }
    }

    /// The terminal now has room for `height` lines of the list.
    func resize(height: Int) {
        do {
            try read { try model.resize(height: height, $0) }
        } catch {
            message = .error(CLIAdvice.message(for: error))
        }
    }

    /// Puts the cursor on the next row whose title holds (or contains) `text` (``UISearch``).
    private func find(_ text: String) {
        guard !text.allSatisfy(\.isWhitespace) else {
            message = .info("nothing to find")
            return
        }
        lastSearch = text
        let cursor: (section: Int, row: Int?)?
        switch model.cursorWindowLine {
        case .row(let path, _)?: cursor = (path.section, path.row)
        case .header(let index, _)?: cursor = (index, nil)
        case nil: cursor = nil
        }
        do {
            let (row, text) = try UISearch.next(text, after: cursor, in: store)
            if let row { try read { try model.setCursor(.row(row), $0) } }
            message = .info(text)
        } catch {
            message = .error(CLIAdvice.message(for: error))
        }
    }

    private func read(_ body: (ListReader) throws -> Void) throws {
        try store.read { try body($0) }
    }

    /// Runs `body` as one transaction, then shows what changed (or the error, when nothing did) and
    /// puts the cursor on what `then` names from `body`'s result (a new row or section, a moved row).
    private func perform<T>(_ body: (ListTransaction) throws -> T, then cursorOn: (T) -> ScreenModel.Item? = { _ in nil }) {
        do {
            let (value, changes) = try store.write { try body($0) }
            message = .info(HumanText.changes(changes).split(separator: "\n").joined(separator: "; "))
            try read { reader in
                try model.apply([changes], reader)
                if let item = cursorOn(value) { try model.setCursor(item, reader) }
            }
        } catch {
            message = .error(CLIAdvice.message(for: error))
        }
    }
}
