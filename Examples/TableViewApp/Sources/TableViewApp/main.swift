import Foundation
import ListStore
#if canImport(UIKit)
import UIKit
#endif
#if canImport(SwiftUI)
import SwiftUI
#endif

// The library examples of README.md and of the DocC articles (Sources/ListStore/ListStore.docc), as an
// app would write them. Each block from a "// Shown in FILE: name" line to "// END" must appear verbatim
// in every file it names (ReadmeExampleTests), so the documents cannot drift from code that compiles.

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("TableViewApp-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let url = folder.appendingPathComponent("lists.sqlite")

// Shown in README.md: opening and simple edits
let store = try ListStore.open(at: url)                        // a file URL: created when new
try store.write { tx in                                        // one transaction: all of it or nothing
    try tx.insertSection(title: "Inbox")
    try tx.insertRows(["Invoice", "Lunch?", "Invoice"], intoSection: 0)
    try tx.appendRowToEverySection("New item")                 // every section
}
// END

// Shown in README.md: reading
let firstPage = try store.rows(inSection: 0, range: 0..<50)    // a page of rows, as a table view asks for them
let everything = try store.snapshot()                          // every section and row, in one read
print(firstPage.map(\.title), everything.version)              // the version: which state this is
// END

// Shown in OpeningAndEditing.md: one transaction, several edits, ids
let invoice = try store.read { try $0.row(at: ListIndexPath(section: 0, row: 0)).id }
let changes = try store.write { tx in
    try tx.deleteRows(ids: [invoice])                          // exactly this row: its twin "Invoice" stays
    let header = try tx.insertRow("Today", intoSection: 0, at: 0)
    try tx.moveRow(id: header, after: try tx.row(at: ListIndexPath(section: 0, row: 1)).id)
}.changes
print(changes.deletedRows, changes.insertedRows)               // before / after the whole transaction
// END

// Shown in OpeningAndEditing.md: errors an app can show
do {
    try store.write { try $0.deleteRows(at: [ListIndexPath(section: 0, row: 99)]) }
} catch let error as ListStoreError where error.family == .notFound {
    print(error.localizedDescription)  // "row 0:99 does not exist: section 0 has 4 rows (0…3); read the rows again …"
}
// END

// Shown in Threading.md: async, off the main thread
func addRow(_ title: String, to store: ListStore) async throws -> Int {
    try await store.writeInBackground { tx in              // waits for the lock off the caller's thread
        try tx.insertRow(title, intoSection: 0)
        return try tx.totalRowCount()
    }.value
}
// END
print("now \(try await addRow("Written while the UI stays responsive", to: store)) rows")

// Shown in PayloadsAndSearch.md: typed payloads and search
struct Contact: Codable, Equatable {
    var name: String
    var city: String
    var met: Date?
}
let contacts = try ListStore.inMemory()
let (ada, _) = try contacts.write { tx in
    let people = try tx.insertSection(title: "People")
    return try tx.insertRow(try NewRow(title: "Ada Lovelace", encoding: Contact(name: "Ada", city: "London")), intoSection: people)
}
try contacts.write { try $0.updateRow(id: ada, payload: try .encoding(Contact(name: "Ada", city: "Paris", met: Date()))) }
let contact = try contacts.read { try $0.row(id: ada).payload(as: Contact.self) }   // nil when the row has none

let search = RowSearch(titleContains: "love", where: [PayloadMatch(try PayloadField("city"), equals: "Paris")])
var page = try contacts.read { try $0.findRows(search, limit: 50) }            // one read: rows and their index paths
for result in page.results { print(result.indexPath, result.row.title) }
while let next = page.next { page = try contacts.read { try $0.findRows(search, limit: 50, after: next) } }  // right across edits
// END

// Shown in PayloadsAndSearch.md: payload-field indexes
try contacts.addPayloadIndex(on: PayloadField("city"))     // once: kept in the file, for every list
let inParis = try contacts.read { try $0.findRows(RowSearch(where: [PayloadMatch(try PayloadField("city"), equals: "Paris")])) }
// END
print("\(inParis.results.count) contact in Paris, found through the index on city")
guard contact?.city == "Paris", page.results.map(\.row.id) == [ada], inParis.results.map(\.row.id) == [ada] else {
    print("unexpected search: \(String(describing: contact)), \(page.results)")
    exit(1)
}

// Shown in README.md and Observing.md: observing
@MainActor func keepInSync(with store: ListStore, draw: (ListSnapshot, ChangeSet?) -> Void) async throws {
    var mirror = ListSnapshot(sections: [])
    let observation = store.observe()
    for try await update in observation {                  // the state first, then every commit, in order
        switch update {
        case .initial(let state), .reset(let state):
            mirror = state
            draw(mirror, nil)                              // reloadData, or a new diffable snapshot
        case .changes(let changes):
            do {
                try mirror.apply(changes)                  // now exactly the store's state after the commit
                draw(mirror, changes)                      // performBatchUpdates with `changes`
            } catch {
                observation.resynchronize()                // a fresh state comes next in this stream
            }
        }
    }
}
// END

// Observing for real: the state, one change made elsewhere, the mirror equals the store.
let observed = Task {
    var seen: [ListSnapshot] = []
    try await keepInSync(with: store) { state, _ in
        seen.append(state)
        if seen.count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
    }
    return seen
}
try await Task.sleep(for: .milliseconds(300))
let elsewhere = try ListStore.open(at: url)
try elsewhere.write { try $0.insertRow("Added by another connection", intoSection: 0, at: 0) }
let states = try await observed.value
guard states.count == 2, states[1] == (try store.snapshot()) else {
    print("observation did not follow the store: \(states.count) states")
    exit(1)
}

// Shown in Observing.md: a diffable data source
@MainActor func keepDiffableInSync(with store: ListStore, show: (ListSnapshot, DiffableReloads) -> Void) async throws {
    var mirror = ListSnapshot(sections: [])
    for try await update in store.observe() {
        switch update {
        case .initial(let state), .reset(let state):
            let reloads = DiffableReloads(from: mirror, to: state)     // what stays but looks different
            mirror = state
            show(mirror, reloads)
        case .changes(let changes):
            let reloads = try mirror.applyReturningReloads(changes)    // compared with the state before
            show(mirror, reloads)
        }
    }
}
// END

// The diffable recipe for real: a section renamed elsewhere is a header to reload.
let shown = Task {
    var seen: [DiffableReloads] = []
    try await keepDiffableInSync(with: store) { state, reloads in
        seen.append(reloads)
        if seen.count == 1 { _ = try? elsewhere.write { try $0.renameSection(id: state.sections[0].id, to: "Inbox, renamed elsewhere") } }
        if seen.count == 2 { withUnsafeCurrentTask { $0?.cancel() } }
    }
    return seen
}
let reloads = try await shown.value
guard reloads.count == 2, reloads[1] == DiffableReloads(sectionsToReload: [try store.read { try $0.section(at: 0).id }]) else {
    print("the diffable recipe missed the renamed section: \(reloads)")
    exit(1)
}

// Shown in IndexPathsAsDrawn.md: taps, swipes and drags on what was drawn
@MainActor func userTapped(_ drawn: ListIndexPath, in mirror: ListSnapshot, selecting selection: inout ListSelection) throws {
    try selection.toggle(drawnAt: drawn, in: mirror)                     // the row drawn there; nothing read
}

@MainActor func userSwiped(toDelete drawn: ListIndexPath, in mirror: ListSnapshot, of store: ListStore) throws {
    try store.write { try $0.asOf(mirror.version).deleteRows(at: [drawn]) }  // that row, wherever it is now
}

@MainActor func userDragged(_ from: ListIndexPath, to: ListIndexPath, in mirror: ListSnapshot, of store: ListStore) throws {
    try store.write { try $0.asOf(mirror.version).moveRow(from: from, to: to) }  // UIKit's moveRowAt:to:, as drawn
}
// END

// Acting on what was drawn for real: another connection inserts above the drawn rows before the user acts.
let drawn = try store.snapshot()
let lunch = drawn.sections[0].rows[1].id                                 // drawn at 0:1
try elsewhere.write { try $0.insertRow("Inserted above, after the draw", intoSection: 0, at: 0) }
var selection = ListSelection()
try userTapped(ListIndexPath(section: 0, row: 1), in: drawn, selecting: &selection)
try userSwiped(toDelete: ListIndexPath(section: 0, row: 1), in: drawn, of: store)
try userDragged(ListIndexPath(section: 0, row: 2), to: ListIndexPath(section: 0, row: 0), in: drawn, of: store)
guard selection.ids == [lunch], try store.indexPath(of: lunch) == nil else {
    print("a tap or a swipe acted on another row than the one drawn")
    exit(1)
}

// Shown in README.md: undo and redo
let notes = try ListStore.open(at: folder.appendingPathComponent("notes.sqlite"), author: "Notes")
try notes.write(actionName: "Add Groceries") { tx in
    try tx.insertRows(["Milk", "Eggs"], intoSection: try tx.insertSection(title: "Groceries"))
}
let milk = try notes.read { try $0.row(at: ListIndexPath(section: 0, row: 0)).id }
try notes.write(actionName: "Delete Milk") { try $0.deleteRows(ids: [milk]) }
let menu = try notes.nextUndo()?.actionName                    // "Delete Milk", for "Undo Delete Milk"
let undone = try notes.undo()                                  // Milk is back, with its id, before Eggs
try notes.redo()                                               // and deleted again
// END
guard menu == "Delete Milk", undone.insertedRows.map(\.row.id) == [milk], try notes.snapshot().sections[0].rows.map(\.title) == ["Eggs"] else {
    print("undo did not restore the row it deleted")
    exit(1)
}

// Shown in SwiftUIModel.md: a SwiftUI model
let tasks = try ListStore.open(at: folder.appendingPathComponent("tasks.sqlite"))
try tasks.write { tx in
    try tx.insertRows(["a", "b", "c", "d", "e"], intoSection: try tx.insertSection(title: "Today"))
    try tx.insertRows(["x", "y"], intoSection: try tx.insertSection(title: "Later"))
}
let model = ListStoreModel(store: tasks)                       // @Observable: the sections and rows as drawn
let following = Task { await model.run() }                     // a view: .task { await model.run() }
// END
for _ in 0..<6_000 where !model.snapshot.version.isVersioned { try await Task.sleep(for: .milliseconds(10)) }

// Shown in SwiftUIModel.md: onMove and onDelete through the model
let version = model.snapshot.version                           // the state the List drew
try await model.moveRows(fromOffsets: [0, 2], toOffset: 4, inSection: 0, asOf: version)         // onMove's arguments
try await model.deleteRows(atOffsets: [1], inSection: 0, asOf: version)                         // onDelete's
try await model.moveRows(fromOffsets: [3], inSection: 0, toSection: 1, atOffset: 0, asOf: version)  // a drop elsewhere
// END
let arranged = try tasks.snapshot()
for _ in 0..<6_000 where model.snapshot.version != arranged.version { try await Task.sleep(for: .milliseconds(10)) }
model.stop()
await following.value
guard arranged.sections.map({ $0.rows.map(\.title) }) == [["a", "c", "e"], ["d", "x", "y"]], model.snapshot == arranged, case .stopped = model.phase else {
    print("the model's List edits did not act on the rows drawn: \(arranged.sections.map { $0.rows.map(\.title) }), \(model.phase)")
    exit(1)
}

#if canImport(SwiftUI)
// Shown in SwiftUIModel.md: a SwiftUI List bound to the model
struct TasksView: View {
    @State var model: ListStoreModel

    var body: some View {
        let drawn = model.snapshot                                         // one state: its rows and its version
        List {
            ForEach(Array(drawn.sections.enumerated()), id: \.element.id) { index, section in
                Section(section.title) {
                    ForEach(section.rows) { row in Text(row.title) }
                        .onMove { offsets, destination in
                            Task { try? await model.moveRows(fromOffsets: offsets, toOffset: destination, inSection: index, asOf: drawn.version) }
                        }
                        .onDelete { offsets in
                            Task { try? await model.deleteRows(atOffsets: offsets, inSection: index, asOf: drawn.version) }
                        }
                }
            }
        }
        .task { await model.run() }                                        // until the view goes away
    }
}
// END
#endif

#if canImport(UIKit)
// Shown in Observing.md: feeding a diffable data source
@MainActor func show(_ state: ListSnapshot, reloading reloads: DiffableReloads, in dataSource: UITableViewDiffableDataSource<SectionID, RowID>) {
    var snapshot = NSDiffableDataSourceSnapshot<SectionID, RowID>()
    for section in state.sections {
        snapshot.appendSections([section.id])
        snapshot.appendItems(section.rows.map(\.id), toSection: section.id)
    }
    snapshot.reconfigureItems(reloads.itemsToReconfigure)   // same id, new title or payload, moved or not
    snapshot.reloadSections(reloads.sectionsToReload)       // same id, new header (renamed or replaced)
    dataSource.apply(snapshot, animatingDifferences: true)
}
// END

// Shown in Observing.md: feeding a table view
@MainActor func apply(_ changes: ChangeSet, to tableView: UITableView) {
    tableView.performBatchUpdates {
        tableView.deleteSections(IndexSet(changes.deletedSections.map(\.index)), with: .automatic)
        tableView.insertSections(IndexSet(changes.insertedSections.map(\.index)), with: .automatic)
        for move in changes.movedSections { tableView.moveSection(move.from, toSection: move.to) }
        tableView.reloadSections(IndexSet(changes.updatedSections.map(\.index)), with: .automatic)
        tableView.deleteRows(at: changes.deletedRows.map(\.indexPath.indexPath), with: .automatic)
        tableView.insertRows(at: changes.insertedRows.map(\.indexPath.indexPath), with: .automatic)
        for move in changes.movedRows { tableView.moveRow(at: move.from.indexPath, to: move.to.indexPath) }
        tableView.reloadRows(at: changes.updatedRows.map(\.indexPath.indexPath), with: .automatic)
    }
}
// END
#endif

// Shown in SeveralLists.md: several lists
let groceries = try store.addList(named: "Groceries")          // a handle on the list: same file, connections, observers
let (apples, _) = try groceries.write { tx in
    try tx.insertRows(["Apples", "Pears"], intoSection: try tx.insertSection(title: "Fruit"))
}
let errands = try store.addList(named: "Errands")
try errands.write { try $0.insertSection(title: "Today") }
let moved = try groceries.transferRow(id: apples[0], toList: "Errands", section: 0)  // one transaction
print(moved.source.deletedRows, moved.target.insertedRows)     // each list's change set, for its own observers
for list in try store.lists() { print(list.name, list.sectionCount, list.rowCount) }  // default 1 6, Groceries 1 1, …
let sameList = try store.list(named: "Groceries")              // by name; `store` itself acts on the default list
// END
_ = sameList

// Shown in PayloadsAndSearch.md: the index of titles
try store.addTitleIndex()                          // once per file: later launches find it there
var typed = RowSearch(titleWords: "invo")          // as typed so far: finds "Invoice"
let found = try store.read { try $0.findRows(typed, limit: 50) }
print(found.total ?? 0, found.results.map(\.indexPath))  // how many in all; the first 50, with index paths
typed.matchingAccents = true                       // "café" finds "Café", "cafe" does not
typed.inDisplayOrder = true                        // as the list shows them, not in id order
var best = RowSearch(titleWords: "invo")
best.ranked = true                                 // or best matches first (FTS5's bm25)
// END
guard found.total == 1, try store.read({ try $0.findRows(best) }).results.map(\.row.id) == found.results.map(\.row.id) else {
    print("the index of titles found \(found.total ?? -1) rows")
    exit(1)
}

// Shown in README.md: a search bar
@MainActor final class SearchBar {
    let store: ListStore
    private(set) var results: [SearchResult] = []   // each with its index path
    private(set) var total = 0                      // how many rows the whole search finds
    private var text = ""
    private var next: SearchCursor?
    init(store: ListStore) { self.store = store }

    func textChanged(_ typed: String) throws {      // at each keystroke: the first page
        (text, results, total, next) = (typed, [], 0, nil)
        try loadMore()
    }

    func loadMore() throws {                        // as the list scrolls to its end
        guard !text.allSatisfy(\.isWhitespace), next != nil || results.isEmpty else { return }
        let search = RowSearch(titleWords: text)    // lastWordIsPrefix, matchingAccents, inDisplayOrder: options
        do {
            let page = try store.read { try $0.findRows(search, limit: 50, after: next) }
            (results, total, next) = (results + page.results, page.total ?? 0, page.next)
        } catch let error as ListStoreError where error.family == .invalidInput {
            return                                  // nothing to search for yet ("*", "--"): no rows
        }
    }
}
// END
let searchBar = SearchBar(store: store)
try searchBar.textChanged("INVO")
guard searchBar.total == 1, searchBar.results.map(\.row.title) == ["Invoice"] else {
    print("the search bar found \(searchBar.total) rows")
    exit(1)
}

let final = try store.snapshot().sections.map { $0.rows.map(\.title) }
print(final)
let expected = ["Inserted above, after the draw", "Today", "Added by another connection", "Invoice", "New item", "Written while the UI stays responsive"]
guard final == [expected] else {
    print("unexpected state: \(final)")
    exit(1)
}
