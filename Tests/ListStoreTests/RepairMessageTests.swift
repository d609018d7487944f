import ListStore
import StoreShorthands
import Testing

/// What `repair` says when it cannot renumber: the SQL it suggests is SQL a user can paste.
@Suite struct RepairMessageTests {
    /// What `repair` does to the test store after `damage` (run as the shell would), with section 0's id.
    static func repairOutcome(_ damage: String) throws -> (sectionID: SectionID, result: Result<RepairReport, ListStoreError>) {
        let directory = try TemporaryDirectory()
        let store = try HandEditAddressingTests.damagedStore(directory, damage)
        let sectionID = try #require(try HandEditAddressingTests.shown(store).sections.first).1
        do {
            return (sectionID, .success(try store.repair()))
        } catch let error as ListStoreError {
            return (sectionID, .failure(error))
        }
    }

    /// Rows at both ends of the integers (hand edits): repair renumbers them like any other positions,
    /// keeping their order (rows wait under the section's negated id, so no parking range is needed).
    @Test func rowPositionsSpanningTheWholeIntegerRangeAreRenumberedKeepingTheOrder() throws {
        let max = HandEditAddressingTests.max
        let min = HandEditAddressingTests.min
        let directory = try TemporaryDirectory()
        let store = try HandEditAddressingTests.damagedStore(
            directory,
            """
            UPDATE rows SET position = \(max) WHERE title = 'S0 r4';
            UPDATE rows SET position = \(min) WHERE title = 'S0 r0';
            """)
        #expect(!(try store.checkInvariants()).isEmpty)
        _ = try store.repair()
        #expect(try store.checkInvariants().isEmpty)
        #expect(try store.snapshot().sections[0].rows.map(\.title) == ["S0 r0", "S0 r1", "S0 r2", "S0 r3", "S0 r4"])
    }

    @Test func rowPositionsFarApartButWithinRangeAreRenumbered() throws {
        let (_, result) = try Self.repairOutcome(
            """
            UPDATE rows SET position = \(HandEditAddressingTests.max) WHERE title = 'S0 r4';
            UPDATE rows SET position = -1000 WHERE title = 'S0 r0';
            """)
        let report = try result.get()
        #expect(report.fixes.contains { $0.hasPrefix("section 0: renumbered 5 rows") }, "\(report.fixes)")
        #expect(report.unresolved.isEmpty)
    }

    /// The library names its own calls, not the command line's (the CLI maps `repair()` to its command).
    @Test(arguments: ["rows", "sections"])
    func aUsedUpIdsRemedyNamesTheLibrarysRepair(table: String) throws {
        let directory = try TemporaryDirectory()
        let store = try HandEditAddressingTests.damagedStore(
            directory,
            table == "rows"
                ? "UPDATE rows SET id = 9223372036854775807 WHERE title = 'S1 r1'"
                : "UPDATE sections SET id = 9223372036854775807 WHERE title = 'S2'; UPDATE rows SET section_id = 9223372036854775807 WHERE title LIKE 'S2 %'")
        let problem = try #require(try store.checkInvariants().first { $0.description.contains("largest possible id") })
        let remedy = try #require(problem.remedy)
        #expect(remedy.hasSuffix("(gives it a free id), then `repair()`"), "\(remedy)")
        #expect(!remedy.contains("liststore"), "\(remedy)")
    }
}
