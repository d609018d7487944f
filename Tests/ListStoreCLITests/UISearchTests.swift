import Foundation
import Testing

@testable import ListStore
@testable import ListStoreCLI

/// `liststore ui`'s `/` (issue 35): the cursor jumps to the next row, in display order, whose title holds
/// the words typed — from the index of titles when the file has it, by the title's text when not — and
/// from the top again past the last; the last search is offered again, so that Enter goes on.
@Suite struct UISearchTests {
    static func type(_ text: String, into controller: UIController) {
        for scalar in text.unicodeScalars { controller.handle(.character(scalar)) }
    }

    @Test(arguments: [true, false])
    func slashJumpsFromMatchToMatchInDisplayOrderAndWrapsAround(indexed: Bool) throws {
        let directory = try TemporaryDirectory(prefix: "ui-search")
        let store = try ListStore.open(at: directory.path("ui.sqlite"))
        if indexed { try store.addTitleIndex() }
        try store.write { tx in
            try tx.insertRows(["Café noir", "tea", "café crème"], intoSection: try tx.insertSection(title: "A"))
            try tx.insertRows(["water", "Café au lait"], intoSection: try tx.insertSection(title: "B"))
        }
        let controller = try UIController(store: store, height: 12)
        #expect(controller.keyHelp.contains("/ find"))
        controller.handle(.character("/"))
        Self.type(indexed ? "CAFE" : "Caf", into: controller)
        controller.handle(.enter)
        var titles: [String] = []
        var messages: [String] = []
        for _ in 0..<4 {
            if case .row(_, let row)? = controller.model.cursorWindowLine { titles.append(row.title) }
            if case .info(let text)? = controller.message { messages.append(text) }
            controller.handle(.character("/"))  // the last search, offered again
            controller.handle(.enter)
        }
        // The cursor starts on the first row: the next match is the second (without the index, "Caf" is
        // text with ASCII letters case folded, which finds the same three rows here).
        #expect(titles == ["café crème", "Café au lait", "Café noir", "café crème"])
        #expect(messages.first?.hasSuffix("2 of 3 at 0:2") == true, "\(messages)")
        #expect(messages.count == 4 && messages[2].hasSuffix("1 of 3 at 0:0 (from the top)"), "\(messages)")
        controller.handle(.character("/"))
        controller.handle(.character("\u{15}"))  // Ctrl-U: clear
        Self.type("nowhere", into: controller)
        controller.handle(.enter)
        #expect(controller.message == .info("no title \(indexed ? "holds" : "contains") \"nowhere\""))
        #expect(try store.snapshot().sections.map(\.rows.count) == [3, 2])  // nothing written
    }
}
