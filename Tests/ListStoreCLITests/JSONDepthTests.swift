import Foundation
import ListStore
import StoreShorthands
import Testing

/// Payload nesting is limited by ListStore itself, to ``ListStore/maximumPayloadDepth`` (1000, what
/// every SQLite's JSON functions read): a deeper payload is refused as too deep — never as "not valid
/// JSON" — by `add`, `edit`, `batch`, `import` and the library, and `check` reports one written by hand.
@Suite struct JSONDepthTests {
    static func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth) }

    static let tooDeep = "nested deeper than 1000 levels, the most ListStore stores"

    @Test func theDeepestPayloadAllowedIsStoredAndShown() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("a.sqlite")
        #expect(runInProcess(["--db", db, "section", "add", "A"]).status == 0)
        let deepest = Self.nested(1_000)
        #expect(runInProcess(["--db", db, "add", "0", "deepest", "--payload", deepest]).status == 0)
        #expect(runInProcess(["--db", db, "edit", "0:0", "--payload", deepest]).status == 0)
        #expect(runInProcess(["--db", db, "batch", try inputFile("add 0 also --payload '\(deepest)'\n", in: directory)]).status == 0)
        let document = #"{"sections":[{"title":"A","rows":[{"title":"d","payload":"# + deepest + "}]}]}"
        #expect(runInProcess(["--db", directory.path("b.sqlite"), "import", "-"], stdin: Data(document.utf8)).status == 0)
        #expect(runInProcess(["--db", db, "export"]).output.contains(#""payload":"# + deepest))
        #expect(runInProcess(["--db", db, "check"]).status == 0)
        // What SQLite's JSON functions make of it.
        let extracted = try CLIHarness.process("/usr/bin/env", ["sqlite3", "-readonly", db, "SELECT json_type(payload) FROM rows LIMIT 1"], in: directory.url)
        #expect(extracted.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "array", "\(extracted.stderr)")
    }

    @Test(arguments: [1_001, 2_001, 5_000])
    func aDeeperPayloadIsRefusedAsTooDeepNamingTheLimit(_ depth: Int) throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("a.sqlite")
        #expect(runInProcess(["--db", db, "demo"]).status == 0)
        let before = try #require(fileBytes(db))
        let payload = Self.nested(depth)
        let batch = try inputFile("add 0 fine\nadd 0 deep --payload '\(payload)'\n", in: directory)
        for arguments in [["add", "0", "x", "--payload", payload], ["edit", "0:0", "--payload", payload], ["batch", batch]] {
            let run = runInProcess(["--db", db] + arguments)
            #expect(run.status == 1)
            #expect(run.error.contains("payload is \(Self.tooDeep)"), "\(arguments.prefix(2)): \(run.error.prefix(300))")
            #expect(!run.error.contains("not valid JSON"))
            #expect(fileBytes(db) == before)
        }
        // import: refused before the store is touched, naming the row.
        let document = #"{"sections":[{"title":"A","rows":[{"title":"ok"},{"title":"deep","payload":"# + payload + "}]}]}"
        let fresh = directory.path("fresh.sqlite")
        let imported = runInProcess(["--db", fresh, "import", "-"], stdin: Data(document.utf8))
        #expect(imported.status == 1)
        #expect(imported.error.contains("standard input: sections[0].rows[1]: payload is \(Self.tooDeep)"), "\(imported.error.prefix(300))")
        #expect(!FileManager.default.fileExists(atPath: fresh))
        // The library refuses it the same way.
        let store = try ListStore.open(at: db)
        #expect(throws: ListStoreError.payloadTooDeep(payload)) { try store.insertRow(NewRow(title: "x", payload: payload), intoSection: 0) }
        #expect(fileBytes(db) == before)
    }

    @Test func checkReportsAPayloadTooDeepWrittenByHand() throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("a.sqlite")
        #expect(runInProcess(["--db", db, "demo"]).status == 0)
        for (depth, reported) in [(1_000, false), (1_500, true)] {
            let sql = "UPDATE rows SET payload = '\(Self.nested(depth))' WHERE id = 1"
            #expect(try CLIHarness.process("/usr/bin/env", ["sqlite3", db, sql], in: directory.url).status == 0)
            let check = runInProcess(["--db", db, "check"])
            #expect(check.status == (reported ? 1 : 0), "\(depth): \(check.output)")
            #expect(check.output.contains("row #1 has a payload nested deeper than 1000 levels") == reported, "\(check.output)")
        }
    }
}
