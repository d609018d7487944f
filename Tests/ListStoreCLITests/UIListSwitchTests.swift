import Foundation
import ListStore
import StoreShorthands
import TestSupport
import Testing

@testable import ListStoreCLI

/// `liststore ui` with several lists: `l` and `L` switch lists, the status line leads with the shown
/// list's name, edits go to the list shown, and a list deleted while shown never traps the ui.
@Suite struct UIListSwitchTests {
    @Test func lAndCapitalLSwitchListsAndTheStatusLineNamesTheListShown() throws {
        let directory = try TemporaryDirectory()
        let store = try UIScreenModelTests.makeStore(directory)
        let controller = try UIController(store: store, height: 10)
        // One list: nothing about lists is shown, and l says so.
        #expect(!ScreenLayout.statusLine(controller, columns: 80).text.contains("["))
        controller.handle(.character("l"))
        #expect(controller.listName == ListStore.defaultListName)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        try work.insertRow("w0", intoSection: 0)
        controller.handle(.character("l"))
        #expect(controller.listName == "Work")
        #expect(ScreenLayout.statusLine(controller, columns: 80).text.hasPrefix("[Work] 1 section · 1 row"))
        #expect(controller.model.sections.map(\.title) == ["W"])
        #expect(controller.keyHelp.contains("l/L list"))
        // An edit goes to the list shown.
        controller.handle(.character("a"))
        for character in "w1".unicodeScalars { controller.handle(.character(character)) }
        controller.handle(.enter)
        #expect(try work.snapshot().sections.map { $0.rows.map(\.title) } == [["w0", "w1"]])
        #expect(try store.snapshot().sections.map { $0.rows.map(\.title) } == [["a0", "a1", "a2", "a3", "a4"], ["b0", "b1", "b2"]])
        controller.handle(.character("L"))
        #expect(controller.listName == ListStore.defaultListName)
        #expect(ScreenLayout.statusLine(controller, columns: 80).text.hasPrefix("[default] 2 sections · 8 rows"))
        controller.handle(.character("L"))  // wraps around
        #expect(controller.listName == "Work")
    }

    /// A list that another process deletes while the ui shows it. Failed before the fix: the screen goes
    /// to "[Work] 0 sections", and then `l` and `L` fail with `there is no list named "#3" in the file`
    /// (the deleted list's internal id): the ui is stuck on a list that no longer exists — no key shows
    /// another list; only `q` is left.
    @Test func switchingAwayFromADeletedList() throws {
        let directory = try TemporaryDirectory()
        let store = try UIScreenModelTests.makeStore(directory)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        let controller = try UIController(store: store, height: 10)
        controller.handle(.character("l"))
        #expect(controller.listName == "Work")
        try store.deleteList(named: "Work")
        controller.handle(.character("L"))
        #expect(controller.listName == ListStore.defaultListName, "stuck on the deleted list: \(String(describing: controller.message))")
        #expect(!String(describing: controller.message).contains("#"), "an internal list id in: \(String(describing: controller.message))")
    }

    /// Control: the same lists, Work kept: `L` goes back to the default list.
    @Test func switchingAwayFromAKeptList() throws {
        let directory = try TemporaryDirectory()
        let store = try UIScreenModelTests.makeStore(directory)
        let work = try store.addList(named: "Work")
        try work.insertSection(title: "W")
        let controller = try UIController(store: store, height: 10)
        controller.handle(.character("l"))
        #expect(controller.listName == "Work")
        controller.handle(.character("L"))
        #expect(controller.listName == ListStore.defaultListName)
    }
}
