import Foundation
import SQLiteLayer
import Testing

@testable import ListStoreCLI

/// `find` matches exactly the rows it should, indexed or not, whatever another program wrote between
/// ListStore commands; `index add`, `check` and `repair` cope with what it left (payload-field indexes,
/// schema 10). Each hand edit that failed before its fix comes with the same scenario without it, which
/// passes on any version.
@Suite struct FindMatchesExactlyAfterHandEditsTests {
    func run(_ cli: CLIHarness, _ arguments: [String]) -> CLI.Result { runInProcess(["--db", cli.database] + arguments) }

    /// The demo file with rows 0:0 (id 1) and 0:2 (id 3) in Lyon and row 0:1 (id 2) in Paris, `city` indexed.
    func indexedDemo() throws -> CLIHarness {
        let cli = try CLIHarness()
        #expect(run(cli, ["demo"]).status == 0)
        for (path, city) in [("0:0", "Lyon"), ("0:1", "Paris"), ("0:2", "Lyon")] {
            #expect(run(cli, ["edit", path, "--payload", #"{"city":"\#(city)"}"#]).status == 0)
        }
        #expect(run(cli, ["index", "add", "city"]).status == 0)
        return cli
    }

    /// The index paths `find --where city=Lyon` prints, or its error.
    func lyon(_ cli: CLIHarness) -> String {
        let found = run(cli, ["find", "--where", "city=Lyon"])
        guard found.status == 0 else { return found.error }
        return found.output.split(separator: "\n").map { $0.prefix { $0 != " " } }.joined(separator: " ")
    }

    // MARK: - Entries left behind by a hand removal of an index without foreign keys

    /// FAILED before the fix in `PayloadIndex.add` and `PayloadIndexDamage`: `DELETE FROM
    /// liststore_payload_indexes` in the sqlite3 shell (foreign keys off, its default) leaves the field's
    /// entries behind; `check` called the file sound, `repair` found nothing to do, and `index add city`
    /// then failed with a raw "SQLite error 1555 (constraint failed): UNIQUE constraint failed:
    /// liststore_payload_values.row_id, …" — the field could never be indexed again.
    @Test func indexAddAfterAHandRemovalWithoutForeignKeys() throws {
        let cli = try indexedDemo()
        try cli.handEdit(foreignKeys: false, "DELETE FROM liststore_payload_indexes")
        let checked = run(cli, ["check"])
        #expect(checked.status == 1 && checked.output.contains("payload index entries for \"city\", which has no index: 3 entries"), "\(checked)")
        let added = run(cli, ["index", "add", "city"])
        #expect(added.status == 0 && added.output == "indexed city; indexed: city\n", "\(added)")
        #expect(lyon(cli) == "0:0 0:2 2")
        #expect(run(cli, ["check"]).status == 0)
    }

    /// FAILED before the fix (as above): `repair` now drops the entries that no index has.
    @Test func repairDropsTheEntriesOfAFieldWithNoIndex() throws {
        let cli = try indexedDemo()
        try cli.handEdit(foreignKeys: false, "DELETE FROM liststore_payload_indexes")
        let repaired = run(cli, ["repair"])
        #expect(repaired.status == 0 && repaired.output.contains("payload index entries for \"city\""), "\(repaired)")
        #expect(run(cli, ["check"]).status == 0)
        #expect(try Connection(path: cli.database, mode: .readOnly).scalarInt("SELECT count(*) FROM liststore_payload_values") == 0)
        #expect(run(cli, ["index", "add", "city"]).status == 0)
        #expect(lyon(cli) == "0:0 0:2 2")
    }

    /// Control (foreign keys on, so the entries go with the index): passes before and after.
    @Test func indexAddAfterAHandRemovalWithForeignKeys() throws {
        let cli = try indexedDemo()
        try cli.handEdit(foreignKeys: true, "DELETE FROM liststore_payload_indexes")
        #expect(run(cli, ["check"]).status == 0)
        #expect(run(cli, ["index", "add", "city"]).status == 0)
        #expect(lyon(cli) == "0:0 0:2 2")
    }

    // MARK: - A payload made invalid JSON by hand

    /// FAILED before the fix in `RowSearchQuery`: a payload the sqlite3 shell set to text that is not JSON
    /// made every `find --where` of the file fail with a raw "SQLite error 1 (SQL logic error): malformed
    /// JSON — while running: SELECT r.id …", through the index (the row noted stale) and without it — while
    /// the same search through a refreshed index passed over that row. Now no search matches such a row,
    /// indexed or not (it has no entry), and `check` still reports the payload.
    @Test func aSearchPassesOverAPayloadMadeInvalidByHand() throws {
        let cli = try indexedDemo()
        try cli.handEdit(foreignKeys: false, "UPDATE rows SET payload = 'not json' WHERE id = 2")
        #expect(lyon(cli) == "0:0 0:2 2", "stale row, through the index")
        #expect(run(cli, ["edit", "1:0", "--title", "caught up"]).status == 0)
        #expect(lyon(cli) == "0:0 0:2 2", "refreshed index")
        #expect(run(cli, ["index", "remove", "city"]).status == 0)
        #expect(lyon(cli) == "0:0 0:2 2", "no index")
        #expect(run(cli, ["find", "--where", "city=Paris"]).output == "no rows found\n")
        let checked = run(cli, ["check"])
        #expect(checked.status == 1 && checked.output.contains("row #2 has a payload that is not valid JSON"), "\(checked)")
    }

    /// Control (the hand edit writes JSON): passes before and after.
    @Test func aSearchFindsAPayloadChangedByHand() throws {
        let cli = try indexedDemo()
        try cli.handEdit(foreignKeys: false, #"UPDATE rows SET payload = '{"city":"Lyon"}' WHERE id = 2"#)
        #expect(lyon(cli) == "0:0 0:1 0:2 3")
        #expect(run(cli, ["edit", "1:0", "--title", "caught up"]).status == 0)
        #expect(lyon(cli) == "0:0 0:1 0:2 3")
        #expect(run(cli, ["index", "remove", "city"]).status == 0)
        #expect(lyon(cli) == "0:0 0:1 0:2 3")
    }

    // MARK: - Objects and arrays against strings

    /// The rows `find --where FIELD=VALUE` prints (index paths), with and without an index on FIELD.
    func found(_ cli: CLIHarness, _ condition: String) -> [String] {
        let field = String(condition.prefix { $0 != "=" })
        var outputs: [String] = []
        for indexed in [false, true] {
            if indexed { #expect(run(cli, ["index", "add", field]).status == 0) }
            let found = run(cli, ["find", "--where", condition])
            outputs.append(found.status == 0 ? found.output.split(separator: "\n").dropLast().map { String($0.prefix { $0 != " " }) }.joined(separator: " ") : found.error)
        }
        #expect(run(cli, ["index", "remove", field]).status == 0)
        return outputs
    }

    /// FAILED before the fix in `PayloadField.scalarValueSQL` (used by `RowSearchQuery` and `PayloadIndex`):
    /// the string `"[1,2]"` found the row whose `tags` is the array `[1,2]`, and the string `"{\"a\":1}"` the
    /// row whose `tags` is that object (`json_extract` gives an object's or array's JSON text), indexed or
    /// not — where `PayloadValue` documents that an object or an array equals no value. Now they find nothing.
    @Test func aStringDoesNotEqualAnArrayOrAnObject() throws {
        let cli = try CLIHarness()
        #expect(run(cli, ["demo"]).status == 0)
        #expect(run(cli, ["edit", "0:0", "--payload", #"{"tags":[1,2]}"#]).status == 0)
        #expect(run(cli, ["edit", "0:1", "--payload", #"{"tags":{"a":1}}"#]).status == 0)
        #expect(found(cli, #"tags="[1,2]""#) == ["", ""])
        #expect(found(cli, #"tags="{\"a\":1}""#) == ["", ""])
        #expect(run(cli, ["check"]).status == 0)
    }

    /// Control (the strings are strings in the payloads): passes before and after.
    @Test func aStringEqualsTheSameString() throws {
        let cli = try CLIHarness()
        #expect(run(cli, ["demo"]).status == 0)
        #expect(run(cli, ["edit", "0:0", "--payload", #"{"tags":"[1,2]"}"#]).status == 0)
        #expect(run(cli, ["edit", "0:1", "--payload", #"{"tags":"{\"a\":1}"}"#]).status == 0)
        #expect(found(cli, #"tags="[1,2]""#) == ["0:0", "0:0"])
        #expect(found(cli, #"tags="{\"a\":1}""#) == ["0:1", "0:1"])
    }

    // MARK: - A row id at the bottom of the integer range

    /// The ids `find --json --where city=Lyon` and `find --json Lyon-titled` print, indexed and not.
    func foundIDs(_ cli: CLIHarness, _ arguments: [String]) -> String {
        let found = run(cli, ["--json", "find"] + arguments)
        return found.output.components(separatedBy: "\"id\":").dropFirst().map { String($0.prefix { $0 == "-" || $0.isNumber }) }.joined(separator: " ")
    }

    /// FAILED before the fix in `RowSearchQuery.page(after:)`: a row whose id the shell set to
    /// -9223372036854775808 (`Int64.min`; `check` calls the file sound and `show` lists it) was never found by
    /// `find`, by title or payload, indexed or not: the first page started "after" `Int64.min` (`r.id > ?1`
    /// with no cursor bound as `Int64.min`). Now a page starts at the id after the cursor's.
    @Test func aRowWithTheSmallestIDIsFound() throws {
        let cli = try indexedDemo()
        try cli.handEdit(foreignKeys: true, "UPDATE rows SET id = -9223372036854775808 WHERE id = 1")
        #expect(run(cli, ["check"]).status == 0)
        #expect(foundIDs(cli, ["--where", "city=Lyon"]) == "-9223372036854775808 3")
        #expect(foundIDs(cli, ["--where", "city=Lyon", "--limit", "1"]) == "-9223372036854775808")
        #expect(foundIDs(cli, ["--where", "city=Lyon", "--after", "-9223372036854775808"]) == "3")
        #expect(run(cli, ["index", "remove", "city"]).status == 0)
        #expect(foundIDs(cli, ["--where", "city=Lyon"]) == "-9223372036854775808 3")
    }

    /// Control (a negative id, not the smallest): passes.
    @Test func aRowWithANegativeIDIsFound() throws {
        let cli = try indexedDemo()
        try cli.handEdit(foreignKeys: true, "UPDATE rows SET id = -5 WHERE id = 1")
        #expect(run(cli, ["check"]).status == 0)
        #expect(foundIDs(cli, ["--where", "city=Lyon"]) == "-5 3")
        #expect(run(cli, ["index", "remove", "city"]).status == 0)
        #expect(foundIDs(cli, ["--where", "city=Lyon"]) == "-5 3")
    }
}
