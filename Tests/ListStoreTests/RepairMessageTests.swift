import ListStore
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

    @Test func rowPositionsSpanningTheWholeIntegerRangeAreNamedWithTheSectionsIdAsANumber() throws {
        let max = HandEditAddressingTests.max
        let min = HandEditAddressingTests.min
        let (sectionID, result) = try Self.repairOutcome(
            """
            UPDATE rows SET position = \(max) WHERE title = 'S0 r4';
            UPDATE rows SET position = \(min) WHERE title = 'S0 r0';
            """)
        guard case .failure(let error) = result else {
            Issue.record("repair renumbered positions spanning the whole integer range: \(result)")
            return
        }
        let message = error.description
        #expect(message.contains("cannot renumber the rows of section 0"), "\(message)")
        #expect(message.contains("UPDATE rows SET position = … WHERE section_id = \(sectionID.rawValue))"), "\(message)")
        #expect(!message.contains("integer("), "\(message)")
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
