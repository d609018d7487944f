import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// Index paths as the user saw them: an app draws a snapshot, another connection commits, then the app
/// acts on what it drew (a tap, a swipe, a drag) with the drawn version (``ListStore/write(asOf:_:)``).
/// "Another process" is another `ListStore` on the same file here, which shares nothing with the app's
/// store but the file (the CLI's tests run a real process too).
@Suite struct AsOfEditTests {
    /// Three sections — a: a0…a4, b: b0…b3, c: c0 c1 — seen by an app store and another store.
    struct Fixture {
        let directory: TemporaryDirectory
        let app: ListStore
        let other: ListStore
        var path: String { directory.path("list.sqlite") }

        init() throws {
            directory = try TemporaryDirectory()
            let path = directory.path("list.sqlite")
            app = try ListStore.open(at: path)
            try app.write { tx in
                for (title, count) in [("a", 5), ("b", 4), ("c", 2)] {
                    let section = try tx.insertSection(title: title)
                    try tx.insertRows((0..<count).map { "\(title)\($0)" }, intoSection: section)
                }
            }
            other = try ListStore.open(at: path)
        }

        /// Section titles with their row titles, as now.
        func titles() throws -> [String] {
            try app.snapshot().sections.map { "\($0.title): " + $0.rows.map(\.title).joined(separator: " ") }
        }

        /// The database file and its -wal, for comparing before and after a refusal.
        func bytes() -> [Data?] { [fileBytes(path), fileBytes(path + "-wal")] }
    }

    static func path(_ section: Int, _ row: Int) -> ListIndexPath { ListIndexPath(section: section, row: row) }

    // MARK: Versions

    @Test func snapshotsAndChangeSetsCarryTheVersionTheyDescribe() throws {
        let f = try Fixture()
        var mirror = try f.app.snapshot()
        #expect(mirror.version.isVersioned)
        #expect(try f.app.version() == mirror.version)
        let own = try f.app.insertRow("x", intoSection: 0, asOf: mirror.version).changes
        #expect(own.version > mirror.version)
        try mirror.apply(own)
        #expect(mirror == (try f.app.snapshot()))
        #expect(try mirror.version == own.version && mirror.version == f.app.snapshot().version)
        let theirs = try f.other.deleteRows(at: [Self.path(1, 0)])
        #expect(theirs.version > own.version)
        #expect(try f.app.version() == theirs.version)
        // A write that changes nothing gives the version it found; applying it leaves a mirror as it was.
        let nothing = try f.app.write { _ in }.changes
        #expect(nothing.isEmpty && nothing.version == theirs.version)
        let before = mirror
        try mirror.apply(nothing)
        #expect(mirror == before)
        // A hand edit of a title is logged by the triggers: it advances the version too.
        let db = try Connection(path: f.path, mode: .readWrite)
        try db.run("UPDATE rows SET title = 'hand' WHERE title = 'c0'")
        #expect(try f.app.version() > theirs.version)
    }

    @Test func observedChangeSetsCarryTheVersionAndTheMirrorFollows() async throws {
        let f = try Fixture()
        var updates = f.app.observe(pollInterval: .milliseconds(10)).makeAsyncIterator()
        guard case .initial(var mirror)? = try await updates.next() else {
            Issue.record("no initial state")
            return
        }
        #expect(mirror.version == (try f.app.version()))
        let theirs = try f.other.moveRow(from: Self.path(0, 0), to: Self.path(2, 0))
        try f.app.deliverChangesFromOtherConnections()
        guard case .changes(let merged)? = try await updates.next() else {
            Issue.record("no change set")
            return
        }
        #expect(merged.version == theirs.version)
        try mirror.apply(merged)
        #expect(mirror == (try f.app.snapshot()))
        #expect(mirror.version == (try f.app.snapshot()).version)
    }

    // MARK: Taps

    @Test func aTapSelectsTheRowDrawnAfterAnotherProcessInsertedAboveIt() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        let tapped = try #require(mirror[Self.path(0, 2)])
        try f.other.insertRow("new", intoSection: 0, at: 0)

        var fromMirror = ListSelection()
        try fromMirror.toggle(drawnAt: Self.path(0, 2), in: mirror)
        #expect(fromMirror.ids == [tapped.id])
        var byVersion = ListSelection()
        byVersion.toggle(try f.app.row(at: Self.path(0, 2), asOf: mirror.version).id)
        #expect(byVersion.ids == [tapped.id])
        // What resolving the drawn path against the file now does: the row above the one tapped.
        var now = ListSelection()
        now.toggle(try f.app.row(at: Self.path(0, 2)).id)
        #expect(now.ids != [tapped.id])
    }

    @Test func aTapOnARowDeletedSinceIsRefusedByVersion() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        let tapped = try #require(mirror[Self.path(1, 3)])
        try f.other.deleteRows(at: [Self.path(1, 3)])
        var selection = ListSelection()
        #expect(throws: ListStoreError.drawnRowDeleted(Self.path(1, 3), id: tapped.id, asOf: mirror.version)) {
            selection.toggle(try f.app.row(at: Self.path(1, 3), asOf: mirror.version).id)
        }
        #expect(throws: ListStoreError.rowIndexOutOfRange(Self.path(1, 9), rowCount: 4)) {
            try selection.toggle(drawnAt: Self.path(1, 9), in: mirror)
        }
    }

    // MARK: Swipes

    @Test func aSwipeDeletesTheRowDrawnAfterAnotherProcessInsertedAboveIt() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.insertRows(["n1", "n2"], intoSection: 0, at: 1)
        try f.app.deleteRows(at: [Self.path(0, 2)], asOf: mirror.version)
        #expect(try f.titles() == ["a: a0 n1 n2 a1 a3 a4", "b: b0 b1 b2 b3", "c: c0 c1"])
    }

    @Test func aSwipeOnARowDeletedSinceIsRefusedAndChangesNothing() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        let swiped = try #require(mirror[Self.path(0, 3)])
        try f.other.deleteRows(at: [Self.path(0, 3)])
        let before = f.bytes()
        #expect(throws: ListStoreError.drawnRowDeleted(Self.path(0, 3), id: swiped.id, asOf: mirror.version)) {
            try f.app.deleteRows(at: [Self.path(0, 1), Self.path(0, 3)], asOf: mirror.version)
        }
        #expect(f.bytes() == before)
        #expect(try f.titles() == ["a: a0 a1 a2 a4", "b: b0 b1 b2 b3", "c: c0 c1"])
        let message = ListStoreError.drawnRowDeleted(Self.path(2, 3), id: RowID(rawValue: 7), asOf: ListVersion(rawValue: 4)).description
        #expect(message.hasPrefix("the row you saw at 2:3 (row #7) was deleted after version 4"))
    }

    @Test func aSwipeInASectionDeletedSinceNamesTheSection() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.deleteSections(at: [1])
        let before = f.bytes()
        #expect(throws: ListStoreError.drawnSectionDeleted(index: 1, id: mirror.sections[1].id, asOf: mirror.version)) {
            try f.app.deleteRows(at: [Self.path(1, 2)], asOf: mirror.version)
        }
        #expect(f.bytes() == before)
    }

    @Test func aSwipeFindsARowThatMovedToAnotherSection() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.moveRow(from: Self.path(0, 4), to: Self.path(2, 0))
        try f.other.moveSection(from: 2, to: 0)
        try f.app.updateRow(at: Self.path(0, 4), asOf: mirror.version, title: "seen")
        #expect(try f.titles() == ["c: seen c0 c1", "a: a0 a1 a2 a3", "b: b0 b1 b2 b3"])
    }

    // MARK: Drags

    @Test func aDragWithinASectionLandsBetweenTheNeighboursItWasDroppedBetween() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        // Drawn a0 a1 a2 a3 a4: a0 dropped at 3 goes between a3 and a4.
        try f.other.deleteRows(at: [Self.path(0, 1)])
        try f.other.insertRow("n", intoSection: 0, at: 0)
        try f.app.moveRow(from: Self.path(0, 0), to: Self.path(0, 3), asOf: mirror.version)
        #expect(try f.titles().first == "a: n a2 a3 a0 a4")
    }

    @Test func aDragUpwardsAfterRowsMovedAroundIt() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        // Drawn a0 … a4: a4 dropped at 1 goes between a0 and a1; meanwhile a0 went to the end.
        try f.other.moveRow(from: Self.path(0, 0), to: Self.path(0, 4))
        try f.app.moveRow(from: Self.path(0, 4), to: Self.path(0, 1), asOf: mirror.version)
        #expect(try f.titles().first == "a: a4 a1 a2 a3 a0")
    }

    @Test func aDragAcrossSectionsAfterTheSectionsMoved() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.moveSection(from: 0, to: 2)
        try f.other.insertRow("n", intoSection: 0, at: 0)  // section b, now first
        // Drawn: a1 dropped into b between b1 and b2.
        try f.app.moveRow(from: Self.path(0, 1), to: Self.path(1, 2), asOf: mirror.version)
        #expect(try f.titles() == ["b: n b0 b1 a1 b2 b3", "c: c0 c1", "a: a0 a2 a3 a4"])
    }

    @Test func aDragOntoARowDeletedSinceStillLandsBetweenTheSurvivors() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.deleteRows(at: [Self.path(1, 2)])  // b2, which a0 was dropped before
        try f.app.moveRow(from: Self.path(0, 0), to: Self.path(1, 2), asOf: mirror.version)
        #expect(try f.titles() == ["a: a1 a2 a3 a4", "b: b0 b1 a0 b3", "c: c0 c1"])
    }

    @Test func aDraggedRowDeletedSinceIsRefused() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.deleteRows(at: [Self.path(2, 1)])
        let before = f.bytes()
        #expect(throws: ListStoreError.drawnRowDeleted(Self.path(2, 1), id: mirror.sections[2].rows[1].id, asOf: mirror.version)) {
            try f.app.moveRow(from: Self.path(2, 1), to: Self.path(0, 0), asOf: mirror.version)
        }
        #expect(f.bytes() == before)
    }

    // MARK: Inserts

    @Test func anInsertLandsBetweenTheSameNeighbours() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        // Drawn gap 2 of b: between b1 and b2. Others insert at that very place, and above it.
        try f.other.insertRow("x", intoSection: 1, at: 2)
        try f.other.insertRow("y", intoSection: 1, at: 0)
        try f.other.moveSection(from: 1, to: 0)
        try f.app.insertRow("mine", intoSection: 1, at: 2, asOf: mirror.version)
        #expect(try f.titles().first == "b: y b0 b1 x mine b2 b3")
    }

    @Test func insertsAtTheEndOfADrawnSectionFollowItsLastRow() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.insertRow("x", intoSection: 2)
        try f.app.write(asOf: mirror.version) { tx in
            try tx.insertRow("m1", intoSection: 2, at: 2)
            try tx.insertRow("m2", intoSection: 2, at: 2)
        }
        #expect(try f.titles().last == "c: c0 c1 x m1 m2")
        #expect(throws: ListStoreError.drawnRowDestinationOutOfRange(Self.path(2, 3), maxRow: 2, asOf: mirror.version)) {
            try f.app.insertRow("too far", intoSection: 2, at: 3, asOf: mirror.version)
        }
    }

    // MARK: Sections

    @Test func aSectionMoveAndASectionDeleteAsDrawn() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.insertSection(title: "new", at: 0)
        // Drawn a b c: c dropped at 0 goes before a.
        try f.app.moveSection(from: 2, to: 0, asOf: mirror.version)
        #expect(try f.app.sections().map(\.title) == ["new", "c", "a", "b"])
        try f.other.moveSection(from: 3, to: 0)  // b first
        try f.app.deleteSections(at: [1], asOf: mirror.version)  // b, as drawn
        #expect(try f.app.sections().map(\.title) == ["new", "c", "a"])
        try f.app.renameSection(at: 0, to: "A", asOf: mirror.version)
        try f.app.insertSection(title: "after a", at: 1, asOf: mirror.version)
        #expect(try f.app.sections().map(\.title) == ["new", "c", "A", "after a"])
        let before = f.bytes()
        #expect(throws: ListStoreError.drawnSectionDeleted(index: 1, id: mirror.sections[1].id, asOf: mirror.version)) {
            try f.app.moveSection(from: 1, to: 0, asOf: mirror.version)
        }
        #expect(f.bytes() == before)
    }

    // MARK: Several edits in one write

    @Test func everyEditOfOneWriteIsAddressedAsDrawn() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.insertRow("n", intoSection: 0, at: 0)
        let changes = try f.app.write(asOf: mirror.version) { tx in
            try tx.deleteRows(at: [Self.path(0, 1)])
            try tx.deleteRows(at: [Self.path(0, 3)])  // a3 as drawn, although a1 is gone by now
            try tx.moveRow(from: Self.path(0, 4), to: Self.path(0, 0))  // a4 before a0
            try tx.updateRow(at: Self.path(0, 0), title: "A0")
            #expect(try tx.row(at: Self.path(0, 2)).title == "a2")
            #expect(try tx.current.row(at: Self.path(0, 0)).title == "n")
        }
        #expect(try f.titles().first == "a: n a4 A0 a2")
        #expect(throws: ListStoreError.drawnRowDeleted(Self.path(0, 1), id: mirror.sections[0].rows[1].id, asOf: mirror.version)) {
            try f.app.write(asOf: mirror.version) { tx in
                try tx.deleteRows(at: [Self.path(0, 2)])
                try tx.deleteRows(at: [Self.path(0, 1)])
            }
        }
        #expect(changes.version == (try f.app.version()))
    }

    @Test func aRowThatMovedIntoASectionDeletedSinceIsReportedAsDeleted() throws {
        let f = try Fixture()
        let mirror = try f.app.snapshot()
        try f.other.moveRow(from: Self.path(0, 1), to: Self.path(2, 0))
        try f.other.deleteSections(at: [2])
        #expect(throws: ListStoreError.drawnRowDeleted(Self.path(0, 1), id: mirror.sections[0].rows[1].id, asOf: mirror.version)) {
            try f.app.deleteRows(at: [Self.path(0, 1)], asOf: mirror.version)
        }
    }

    /// A drag's destination past a drawn section's last row is refused in the caller's terms: the path
    /// it gave and the section's last row index, as the same move on the current list says it.
    @Test func aMoveDestinationOutOfRangeNamesThePathGiven() throws {
        let f = try Fixture()
        let version = try f.app.version()
        let before = f.bytes()
        #expect(throws: ListStoreError.drawnRowDestinationOutOfRange(Self.path(0, 5), maxRow: 4, asOf: version)) {
            try f.app.moveRow(from: Self.path(0, 0), to: Self.path(0, 5), asOf: version)
        }
        #expect(throws: ListStoreError.rowDestinationOutOfRange(Self.path(0, 5), maxRow: 4)) {
            try f.app.write { try $0.moveRow(from: Self.path(0, 0), to: Self.path(0, 5)) }
        }
        #expect(f.bytes() == before)
    }

    /// A drawn path past what was drawn is refused in the drawn coordinates, saying so: the counts are those
    /// of the version named, not of the store now (which another connection grew meanwhile).
    @Test func aPathPastWhatWasDrawnIsRefusedWithTheDrawnCounts() throws {
        let f = try Fixture()
        let version = try f.app.version()
        try f.other.insertRow("new", intoSection: 0)
        try f.other.insertSection(title: "d")
        let before = f.bytes()
        let cases: [(ListStoreError, () throws -> Void)] = [
            (.drawnRowIndexOutOfRange(Self.path(0, 5), rowCount: 5, asOf: version), { try f.app.deleteRows(at: [Self.path(0, 5)], asOf: version) }),
            (.drawnRowDestinationOutOfRange(Self.path(1, 6), maxRow: 4, asOf: version), { try f.app.insertRow("x", intoSection: 1, at: 6, asOf: version) }),
            (.drawnSectionIndexOutOfRange(index: 3, sectionCount: 3, asOf: version), { try f.app.deleteSections(at: [3], asOf: version) }),
            (.drawnSectionIndexOutOfRange(index: 3, sectionCount: 3, asOf: version), { try f.app.moveSection(from: 0, to: 3, asOf: version) }),
        ]
        for (expected, call) in cases {
            #expect(throws: expected) { try call() }
        }
        #expect(
            ListStoreError.drawnRowIndexOutOfRange(Self.path(0, 5), rowCount: 5, asOf: version).description
                == "row 0:5 was not drawn at \(version): section 0 had 5 rows (0…4) then; give an index path of what was drawn at that version")
        #expect(f.bytes() == before)
    }

    /// Indexes no store can have are refused as out of range, never followed (no overflow), file unchanged.
    @Test func hugeAndNegativeIndexesAreOutOfRange() throws {
        let f = try Fixture()
        let version = try f.app.version()
        let before = f.bytes()
        #expect(throws: ListStoreError.rowIndexOutOfRange(Self.path(0, Int.max), rowCount: 5)) {
            try f.app.deleteRows(at: [Self.path(0, Int.max)], asOf: version)
        }
        #expect(throws: ListStoreError.sectionIndexOutOfRange(index: Int.max, sectionCount: 3)) {
            try f.app.deleteRows(at: [Self.path(Int.max, 0)], asOf: version)
        }
        #expect(throws: ListStoreError.rowDestinationOutOfRange(Self.path(1, Int.max), maxRow: 4)) {
            try f.app.moveRow(from: Self.path(0, 0), to: Self.path(1, Int.max), asOf: version)
        }
        #expect(throws: ListStoreError.rowDestinationOutOfRange(Self.path(1, Int.max), maxRow: 4)) {
            try f.app.insertRow("x", intoSection: 1, at: Int.max, asOf: version)
        }
        #expect(throws: ListStoreError.sectionIndexOutOfRange(index: Int.max, sectionCount: 3)) {
            try f.app.moveSection(from: 0, to: Int.max, asOf: version)
        }
        #expect(throws: ListStoreError.sectionInsertionIndexOutOfRange(index: Int.min, sectionCount: 3)) {
            try f.app.insertSection(title: "x", at: Int.min, asOf: version)
        }
        #expect(throws: ListStoreError.rowIndexOutOfRange(Self.path(0, -1), rowCount: 5)) {
            try f.app.updateRow(at: Self.path(0, -1), asOf: version, title: "x")
        }
        #expect(f.bytes() == before)
        // Drawn counts, not current ones: two rows were added to section 0 since.
        try f.other.insertRows(["n1", "n2"], intoSection: 0, at: 0)
        #expect(throws: ListStoreError.drawnRowIndexOutOfRange(Self.path(0, 5), rowCount: 5, asOf: version)) {
            try f.app.deleteRows(at: [Self.path(0, 5)], asOf: version)
        }
    }

    // MARK: Versions the log cannot translate

    @Test func aVersionTheLogCannotTranslateIsRefused() throws {
        let f = try Fixture()
        let drawn = try f.app.version()
        func refused(_ version: ListVersion, _ reason: String) throws {
            let before = f.bytes()
            do {
                try f.app.deleteRows(at: [Self.path(0, 0)], asOf: version)
                Issue.record("\(version) was not refused")
            } catch let error as ListStoreError {
                guard case .versionNotTranslatable(let refusedVersion, let why) = error.reason else { throw error }
                #expect(refusedVersion == version)
                #expect(why.contains(reason), "\(why)")
            }
            #expect(f.bytes() == before)
        }
        try refused(.unversioned, "names no state")
        try refused(ListVersion(rawValue: drawn.rawValue + 5), "not one of its states")
        // An untracked write (as an import or a repair) is logged as a change no change set describes.
        try f.other.write(tracksChanges: false) { try $0.insertRow("u", intoSection: 0, at: 0) }
        try refused(drawn, "does not describe")
        // A hand insert, logged by the triggers as a structure change.
        let afterUntracked = try f.app.version()
        let db = try Connection(path: f.path, mode: .readWrite)
        try db.run("INSERT INTO rows (section_id, position, title) SELECT id, 1000, 'hand' FROM sections WHERE title = 'c'")
        try refused(afterUntracked, "does not describe")
        // More commits than the log keeps.
        let old = try f.app.version()
        for i in 0..<1_001 { try f.other.renameSection(at: 0, to: "a\(i)") }
        try refused(old, "keeps the last 1000")
        // A hand edit of a title is logged as content only: it translates.
        let recent = try f.app.version()
        try db.run("UPDATE rows SET title = 'titled by hand' WHERE title = 'b0'")
        try f.app.deleteRows(at: [Self.path(1, 0)], asOf: recent)
        #expect(try f.app.rows(inSection: 1).map(\.title) == ["b1", "b2", "b3"])
    }

    @Test func aDamagedLogEntryIsRefused() throws {
        let f = try Fixture()
        let drawn = try f.app.version()
        try f.other.insertRow("x", intoSection: 0)
        let db = try Connection(path: f.path, mode: .readWrite)
        try db.run("DELETE FROM liststore_log WHERE seq = (SELECT max(seq) FROM liststore_log)")
        #expect(throws: ListStoreError.self) { try f.app.deleteRows(at: [Self.path(0, 0)], asOf: drawn) }
        #expect(try f.app.rowCount(inSection: 0) == 6)
    }
}
