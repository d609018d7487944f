import Foundation
import SQLiteLayer
import TestSupport
import Testing

@testable import ListStore

/// Merging copies of one list (Docs/Merging.md; rows and sections, in copies whose lists are the same):
/// copies that edited offline and merged from each other in any order end identical — every row once, in
/// one order, with the newest title and payload; nothing inserted and not deleted lost; a row deleted on
/// one copy deleted on all — and each merge's change set turns the state before it into the state after.
@Suite struct MergeTests {
    /// A list of three sections and a few rows, copied to `count` files that become replicas of their own.
    static func copies(_ count: Int, in directory: TemporaryDirectory) throws -> [String] {
        let base = directory.path("base.sqlite")
        do {
            let store = try ListStore.open(at: base)
            try store.write { tx in
                for (index, title) in ["Today", "Later", "Someday"].enumerated() {
                    try tx.insertSection(title: title)
                    _ = try tx.insertRows((0..<3).map { "\(title) \($0)" }, intoSection: index)
                }
            }
            try store.addList(named: "Work").write { tx in
                try tx.insertSection(title: "Desk")
                _ = try tx.insertRows(["pen"], intoSection: 0)
            }
        }
        return try (0..<count).map { index in
            let path = directory.path("replica\(index).sqlite")
            try FileManager.default.copyItem(atPath: base, toPath: path)
            return path
        }
    }

    /// What every copy must agree on: the lists in order, with their sections and rows (ids, titles, payloads), in order.
    static func content(_ store: ListStore) throws -> [[String]] {
        try store.lists().flatMap { summary in
            [["list \(summary.name)"]]
                + (try store.list(named: summary.name).snapshot().sections.map { section in
                    ["\(section.id.rawValue) \(section.title)"] + section.rows.map { "\($0.id.rawValue) \($0.title) \($0.payload ?? "-")" }
                })
        }
    }

    /// Every list of `store`, by name, the default one first.
    static func everyList(_ store: ListStore) throws -> [ListStore] {
        try store.lists().map { try store.list(named: $0.name) }
    }

    /// Merges `peer` into `store`, checking that the change set turns the snapshot before into the one after.
    static func merge(_ store: ListStore, from peer: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChangeSet {
        var before = try store.snapshot()
        let changes = try store.merge(from: URL(fileURLWithPath: peer))
        let after = try store.snapshot()
        try before.apply(changes)
        #expect(before.sections == after.sections, "the merge's change set does not lead to the state after it", sourceLocation: sourceLocation)
        // What the merge read of the peer (only what changed since this file last merged from it, after the
        // first time) was all it had to: reading both files whole finds nothing more.
        let registers = try Self.registers(store.path)
        let again = try store.merge(fromPath: peer, whole: true)
        let nothingMore = again.changes.values.allSatisfy(\.isEmpty)
        #expect(nothingMore, "a merge of the whole files changed more: \(again.changes)", sourceLocation: sourceLocation)
        let afterWhole = try Self.registers(store.path)
        #expect(
            afterWhole == registers, "a merge of the whole files changed registers: \(Set(registers).symmetricDifference(afterWhole).sorted())",
            sourceLocation: sourceLocation)
        return changes
    }

    /// Every merge register of the file at `path` but the stamps of the last change, one line per element.
    static func registers(_ path: String) throws -> [String] {
        let db = try Connection(path: path, mode: .readOnly)
        return try db.cached(
            """
            SELECT 'row ' || id || ' ' || hex(order_key) || ' ' || title_stamp || ' ' || payload_stamp || ' ' || revived_stamp FROM rows
            UNION ALL SELECT 'section ' || id || ' ' || hex(order_key) || ' ' || title_stamp || ' ' || revived_stamp FROM sections
            UNION ALL SELECT kind || ' ' || id || ' deleted ' || stamp FROM liststore_tombstones ORDER BY 1
            """
        ).bind([]).map { $0.text(0) }
    }

    /// With `undoing`, the copies also undo and redo their own edits: then what was inserted or deleted is no
    /// longer known to the test, which checks that the copies end alike only.
    @Test(arguments: [(34_001, false), (34_002, false), (34_003, false), (34_004, true), (34_005, true)] as [(UInt64, Bool)])
    func copiesThatEditAndMergeInAnyOrderEndIdentical(seed: UInt64, undoing: Bool) throws {
        try Self.randomRun(seed: seed, undoing: undoing, copies: 3, steps: 400)
    }

    /// The issue's size: 5 copies, 13,000 steps — about 10,000 edits and undos, the rest merges and restarts.
    @Test(.tags(.slow)) func fiveCopiesThatMakeTenThousandEditsAndMergeInAnyOrderEndIdentical() throws {
        try Self.randomRun(seed: 34_010, undoing: true, copies: 5, steps: 13_000)
    }

    /// Random edits on `copies` copies, merges between random pairs (sometimes twice over, as a delivery
    /// repeated), a copy now and then closed and opened again, then merges around a ring until every copy
    /// has everything: the copies end identical, and (without `undoing`) nothing inserted and not deleted is lost.
    /// With `carrier`, the copies merge through segment files in a shared folder that it carries between
    /// them (late, out of order, repeated, half-written first) instead of from each other's files.
    static func randomRun(seed: UInt64, undoing: Bool, copies: Int, steps: Int, carrier: SegmentCarrier? = nil) throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(copies, in: directory)
        var stores = try paths.map { try ListStore.open(at: $0) }
        var random = SeededGenerator(seed: seed)
        carrier?.start(devices: copies, in: directory)
        var inserted: Set<Int64> = []
        var deleted: Set<Int64> = []
        var deletedSections: Set<Int64> = []
        var shownWhenDeleted: Set<Int64> = []
        for step in 0..<steps {
            let which = Int.random(in: 0..<stores.count, using: &random)
            let store = stores[which]
            let sections = try store.snapshot().sections
            let rows = sections.flatMap(\.rows)
            if sections.isEmpty {  // every section went to the other list
                _ = try store.write { tx in try tx.insertSection(title: "s\(step)@\(which)") }
                continue
            }
            switch Int.random(in: 0..<21, using: &random) {
            case 0, 1:
                let section = Int.random(in: 0..<sections.count, using: &random)
                let titles = (0..<Int.random(in: 1...3, using: &random)).map { "r\(step).\($0)@\(which)" }
                let ids = try store.write { tx in
                    try tx.insertRows(titles, intoSection: section, at: Int.random(in: 0...sections[section].rows.count, using: &random))
                }.value
                inserted.formUnion(ids.map(\.rawValue))
            case 2, 3:
                guard let row = rows.randomElement(using: &random) else { continue }
                let section = Int.random(in: 0..<sections.count, using: &random)
                let room = sections[section].rows.count - (sections[section].rows.contains { $0.id == row.id } ? 1 : 0)
                try store.write { tx in try tx.moveRow(id: row.id, to: ListIndexPath(section: section, row: Int.random(in: 0...room, using: &random))) }
            case 4:
                guard let row = rows.randomElement(using: &random) else { continue }
                try store.write { tx in try tx.updateRow(id: row.id, title: "t\(step)@\(which)") }
            case 5:
                guard let row = rows.randomElement(using: &random) else { continue }
                try store.write { tx in try tx.updateRow(id: row.id, payload: .set(#"{"step":\#(step)}"#)) }
            case 6:
                guard let row = rows.randomElement(using: &random) else { continue }
                try store.write { tx in try tx.deleteRows(ids: [row.id]) }
                deleted.insert(row.id.rawValue)
            case 7:
                _ = try store.write { tx in try tx.insertSection(title: "s\(step)@\(which)", at: Int.random(in: 0...sections.count, using: &random)) }
            case 8:
                guard sections.count > 1 else { continue }
                try store.write { tx in
                    try tx.moveSection(from: Int.random(in: 0..<sections.count, using: &random), to: Int.random(in: 0..<sections.count, using: &random))
                }
            case 9:
                guard let section = sections.randomElement(using: &random) else { continue }
                try store.write { tx in try tx.renameSection(id: section.id, to: "n\(step)@\(which)") }
            case 10:
                // Rarely, and never the last: a section deleted with the rows this copy shows in it.
                guard sections.count > 2, Int.random(in: 0..<3, using: &random) == 0, let section = sections.randomElement(using: &random) else { continue }
                try store.write { tx in try tx.deleteSections(ids: [section.id]) }
                deletedSections.insert(section.id.rawValue)
                shownWhenDeleted.formUnion(section.rows.map(\.id.rawValue))
            case 11:
                // A row or a section to the other list, and back later (the merge moves them between lists too).
                let work = try store.list(named: "Work")
                guard try !work.snapshot().sections.isEmpty else { continue }
                if Bool.random(using: &random), let row = rows.randomElement(using: &random) {
                    _ = try store.transferRow(id: row.id, toList: "Work", section: 0, at: 0)
                } else if let row = try work.snapshot().sections.first?.rows.randomElement(using: &random) {
                    _ = try work.transferRow(id: row.id, toList: ListStore.defaultListName, section: 0, at: 0)
                }
            case 12:
                let work = try store.list(named: "Work")
                let theirs = try work.snapshot().sections
                guard !theirs.isEmpty else { continue }
                if Bool.random(using: &random), sections.count > 2, let section = sections.randomElement(using: &random) {
                    _ = try store.transferSection(id: section.id, toList: "Work", at: Int.random(in: 0...theirs.count, using: &random))
                } else if theirs.count > 1, let section = theirs.randomElement(using: &random) {
                    _ = try work.transferSection(id: section.id, toList: ListStore.defaultListName, at: 0)
                }
            case 13:
                // An undo or redo of this copy's last edit: nothing to take back, or refused, is a step without an edit.
                guard undoing else { continue }
                _ = try? Bool.random(using: &random) ? store.undo() : store.redo()
            case 15:
                // A list added — a few names only, so that two copies add one name at once — or renamed to one.
                let name = "L\(Int.random(in: 0..<4, using: &random))"
                let others = try store.lists().map(\.name).filter { $0 != ListStore.defaultListName && $0 != "Work" }
                if try store.lists().contains(where: { $0.name == name }) { continue }
                if Bool.random(using: &random), let renamed = others.randomElement(using: &random) {
                    try store.renameList(named: renamed, to: name)
                } else {
                    let list = try store.addList(named: name, at: Int.random(in: 0...(try store.lists().count), using: &random))
                    let ids = try list.write { tx in
                        try tx.insertSection(title: "s\(step)@\(which)")
                        return try tx.insertRows(["r\(step)@\(which)"], intoSection: 0)
                    }.value
                    inserted.formUnion(ids.map(\.rawValue))
                }
            case 16:
                // A list moved, or (rarely) deleted with what this copy shows in it; a section moved into one.
                let others = try store.lists().map(\.name).filter { $0 != ListStore.defaultListName && $0 != "Work" }
                guard let name = others.randomElement(using: &random) else { continue }
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    let list = try store.list(named: name)
                    for section in try list.snapshot().sections {
                        deletedSections.insert(section.id.rawValue)
                        shownWhenDeleted.formUnion(section.rows.map(\.id.rawValue))
                    }
                    _ = try store.deleteList(named: name)
                case 1:
                    guard sections.count > 2, let section = sections.randomElement(using: &random) else { continue }
                    _ = try store.transferSection(id: section.id, toList: name, at: 0)
                default:
                    try store.moveList(named: name, to: Int.random(in: 0..<(try store.lists().count), using: &random))
                }
            case 14:
                // The app relaunched: the copy's file opened again.
                guard Int.random(in: 0..<4, using: &random) == 0 else { continue }
                stores[which] = try ListStore.open(at: paths[which])
            default:
                if let carrier {
                    carrier.deliver(to: which, using: &random)
                    try carrier.sync(store, device: which)
                    continue
                }
                let peer = (which + Int.random(in: 1..<stores.count, using: &random)) % stores.count
                _ = try Self.merge(store, from: paths[peer])
                if Int.random(in: 0..<8, using: &random) == 0 { #expect(try Self.merge(store, from: paths[peer]).isEmpty, "a repeated delivery changed something") }
            }
        }
        if let carrier {
            // Everything delivered whole, round after round, until what the last round's merges wrote arrived too.
            for _ in 0...copies {
                for (which, store) in stores.enumerated() {
                    carrier.deliverEverything(to: which)
                    try carrier.sync(store, device: which)
                }
            }
        } else {
            // Around a ring only (each copy from the next), so what one copy did reaches another only through a third.
            for _ in 0..<copies {
                for (which, store) in stores.enumerated() { _ = try Self.merge(store, from: paths[(which + 1) % paths.count]) }
            }
        }
        let contents = try stores.map(Self.content)
        #expect(contents.allSatisfy { $0 == contents[0] }, "seed \(seed)")
        let live = try Self.everyList(stores[0]).flatMap { try $0.snapshot().sections.flatMap(\.rows).map(\.id.rawValue) }
        #expect(Set(live).count == live.count, "a row twice")
        if !undoing {
            // A row inserted and never deleted — by itself, or with the section a copy showed it in — is there.
            #expect(inserted.subtracting(deleted).subtracting(shownWhenDeleted).isSubset(of: Set(live)), "a row inserted and never deleted is missing")
            #expect(shownWhenDeleted.isDisjoint(with: Set(live)), "a row a copy deleted with its section is back")
            #expect(deleted.isDisjoint(with: Set(live)), "a deleted row is back")
        }
        for (which, store) in stores.enumerated() {
            if let carrier {
                carrier.deliverEverything(to: which)
                let again = try store.sync(throughFolder: carrier.folder(of: which))
                #expect(again.copies.allSatisfy { $0.changes?.isEmpty == true && $0.problem == nil }, "syncing again changed something: \(again.copies)")
                #expect(again.written == nil, "syncing again wrote a segment")
                continue
            }
            for peer in paths.indices where peer != which { #expect(try Self.merge(store, from: paths[peer]).isEmpty, "merging again changed something") }
        }
        for path in paths { #expect(try MergeRegistersTests.expectKeysFollowPositions(path) > 0) }
    }

    @Test func aMoveAndATitleEditOfOneRowOnTwoCopiesBothSurvive() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        let row = try phone.snapshot().sections[0].rows[0].id
        try phone.write { tx in try tx.moveRow(id: row, to: ListIndexPath(section: 2, row: 3)) }
        try laptop.write { tx in try tx.updateRow(id: row, title: "renamed on the laptop") }
        _ = try Self.merge(phone, from: paths[1])
        _ = try Self.merge(laptop, from: paths[0])
        for store in [phone, laptop] {
            let moved = try store.snapshot().sections[2].rows.last
            #expect(moved?.id == row && moved?.title == "renamed on the laptop")
        }
    }

    @Test func aRowDeletedOnOneCopyWhileEditedOnAnotherStaysDeleted() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        let row = try phone.snapshot().sections[1].rows[1].id
        try phone.write { tx in try tx.deleteRows(ids: [row]) }
        try laptop.write { tx in
            try tx.updateRow(id: row, title: "edited")
            try tx.moveRow(id: row, to: ListIndexPath(section: 0, row: 0))
        }
        _ = try Self.merge(laptop, from: paths[0])
        _ = try Self.merge(phone, from: paths[1])
        for store in [phone, laptop] { #expect(!(try store.snapshot().sections.flatMap(\.rows).contains { $0.id == row })) }
        #expect(try Self.content(phone) == Self.content(laptop))
    }

    @Test func aDeleteReachesACopyThatNeverSawTheRowAndKeepsItAway() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(3, in: directory)
        let (phone, laptop, tablet) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]), try ListStore.open(at: paths[2]))
        let row = try phone.write { tx in try tx.insertRow("only on the phone", intoSection: 0) }.value
        _ = try Self.merge(laptop, from: paths[0])
        try laptop.write { tx in try tx.deleteRows(ids: [row]) }
        _ = try Self.merge(tablet, from: paths[1])  // the tablet learns of the delete of a row it never had
        _ = try Self.merge(tablet, from: paths[0])  // the phone still has the row: it stays away
        #expect(!(try tablet.snapshot().sections.flatMap(\.rows).contains { $0.id == row }))
        _ = try Self.merge(phone, from: paths[2])
        #expect(!(try phone.snapshot().sections.flatMap(\.rows).contains { $0.id == row }))
    }

    @Test func aMergeReadsOnlyWhatThePeerChangedSinceItLastMergedFromIt() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        _ = try laptop.write { tx in try tx.insertRows(["before"], intoSection: 0) }
        _ = try Self.merge(phone, from: paths[1])  // the first merge from the laptop reads it whole
        let rows = try laptop.snapshot().sections.map(\.rows)
        let inserted = try laptop.write { tx in try tx.insertRows(["new 1", "new 2"], intoSection: 1) }.value
        try laptop.write { tx in try tx.updateRow(id: rows[0][1].id, title: "retitled") }
        try laptop.write { tx in try tx.moveRow(id: rows[2][0].id, to: ListIndexPath(section: 0, row: 0)) }
        try laptop.write { tx in try tx.deleteRows(ids: [rows[1][2].id]) }
        let someday = try laptop.snapshot().sections[2].id
        try laptop.write { tx in try tx.renameSection(id: someday, to: "Never") }
        let laptopNumber = try ReplicaIdentityTests.replica(paths[1]).number
        let cursor = try #require(try Connection(path: paths[0], mode: .readOnly).scalarInt("SELECT clock FROM liststore_merged WHERE replica = ?1", [.integer(laptopNumber)]))
        let db = try Connection(path: paths[1], mode: .readOnly)
        let read = try db.readTransaction {
            try MergeSource.read(db, path: paths[1], rows: .changedAfter(clock: Int64(cursor), also: []), sections: .changedAfter(clock: Int64(cursor), also: []))
        }
        #expect(Set(read.rows.keys) == Set((inserted + [rows[0][1].id, rows[2][0].id]).map(\.rawValue)))
        #expect(Set(read.tombstones.keys) == [rows[1][2].id.rawValue] && read.sectionTombstones.isEmpty)
        // The renamed section, and the sections the rows read are in (a deleted one would come back for them).
        #expect(Set(read.sections.values.map(\.title)) == ["Never", "Today", "Later"])
        _ = try Self.merge(phone, from: paths[1])
        #expect(try Self.content(phone) == Self.content(laptop))
        let noted = try Connection(path: paths[0], mode: .readOnly).scalarInt("SELECT clock FROM liststore_merged WHERE replica = ?1", [.integer(laptopNumber)])
        let laptopClock = try MergeSource.clock(db)
        #expect(noted.map(Int64.init) == laptopClock)
        // Nothing changed there since: nothing is read, nothing written.
        let unchanged = try db.readTransaction {
            try MergeSource.read(db, path: paths[1], rows: .changedAfter(clock: Int64(noted ?? 0), also: []), sections: .changedAfter(clock: Int64(noted ?? 0), also: []))
        }
        #expect(unchanged.rows.isEmpty && unchanged.sections.isEmpty && unchanged.tombstones.isEmpty)
        let before = fileBytes(paths[0])
        #expect(try Self.merge(phone, from: paths[1]).isEmpty)
        #expect(fileBytes(paths[0]) == before)
    }

    @Test func aNewerStampOnAValueBothCopiesHoldReachesACopyMergingIncrementally() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(3, in: directory)
        let (phone, laptop, tablet) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]), try ListStore.open(at: paths[2]))
        let row = try phone.snapshot().sections[0].rows[0].id
        try phone.write { tx in try tx.updateRow(id: row, title: "same") }
        _ = try Self.merge(tablet, from: paths[0])
        // The laptop's clock is a minute ahead: its stamp is the newer.
        try Connection(path: paths[1], mode: .readWrite).run("UPDATE sqlite_sequence SET seq = seq + 240000 WHERE name = 'liststore_clock'")
        try laptop.write { tx in try tx.updateRow(id: row, title: "same") }
        _ = try Self.merge(phone, from: paths[1])  // the same title, the laptop's newer stamp
        _ = try Self.merge(tablet, from: paths[0])  // only what the phone changed since: the stamp
        let stamp = "SELECT title_stamp FROM rows WHERE id = \(row.rawValue)"
        let stamps = try paths.map { try MergeRegistersTests.scalar($0, stamp) }
        #expect(Set(stamps).count == 1, "\(stamps)")
    }

    @Test func anUndoOfAChangeAnotherCopyOverwroteSinceChangesNothingAndSaysSo() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        let sidebar = try ListStore.open(at: URL(fileURLWithPath: paths[1]), author: "sidebar")
        let rows = try laptop.snapshot().sections[0].rows
        try laptop.write { tx in try tx.moveRow(id: rows[0].id, to: ListIndexPath(section: 0, row: 2)) }
        try sidebar.write { tx in try tx.updateRow(id: rows[1].id, title: "the laptop's") }
        try laptop.write { tx in try tx.moveRow(id: rows[2].id, to: ListIndexPath(section: 1, row: 0)) }
        // The phone's clock is a minute ahead: its changes are the newer.
        try Connection(path: paths[0], mode: .readWrite).run("UPDATE sqlite_sequence SET seq = seq + 240000 WHERE name = 'liststore_clock'")
        try phone.write { tx in try tx.moveRow(id: rows[0].id, to: ListIndexPath(section: 2, row: 0)) }
        try phone.write { tx in try tx.updateRow(id: rows[1].id, title: "the phone's") }
        try phone.write { tx in try tx.updateRow(id: rows[2].id, title: "retitled on the phone") }
        _ = try Self.merge(laptop, from: paths[0])
        let merged = try laptop.snapshot().sections
        #expect(merged[2].rows.first?.id == rows[0].id && merged[0].rows.first { $0.id == rows[1].id }?.title == "the phone's")
        // Last first: the laptop's move of the third row, which the phone only retitled, goes back; the retitle stays.
        _ = try laptop.undo()
        #expect(try laptop.snapshot().sections[0].rows.contains { $0.id == rows[2].id && $0.title == "retitled on the phone" })
        // The move of the first row and the retitle of the second were overwritten on the phone since: refused, nothing changed.
        for (store, expected) in [
            (laptop, "row #\(rows[0].id.rawValue) was moved on another copy of the list since"),
            (sidebar, "row #\(rows[1].id.rawValue) was changed on another copy of the list since"),
        ] {
            let before = fileBytes(paths[1])
            do {
                _ = try store.undo()
                Issue.record("an undo of a change overwritten on another copy went through")
            } catch let error as ListStoreError {
                #expect("\(error)".contains(expected) && "\(error)".contains("nothing was changed"), "\(error)")
            }
            #expect(fileBytes(paths[1]) == before)
        }
    }

    @Test func theValueAMergeOverwroteStaysReadableOnTheCopyThatHadIt() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        let row = try phone.snapshot().sections[0].rows[0].id
        let section = try phone.snapshot().sections[1].id
        try phone.write { tx in try tx.updateRow(id: row, title: "the phone's", payload: .set(#"{"by":"phone"}"#)) }
        try phone.write { tx in try tx.renameSection(id: section, to: "named on the phone") }
        // The laptop's clock is a minute ahead: its changes are the newer.
        try Connection(path: paths[1], mode: .readWrite).run("UPDATE sqlite_sequence SET seq = seq + 240000 WHERE name = 'liststore_clock'")
        try laptop.write { tx in try tx.updateRow(id: row, title: "the laptop's") }
        try laptop.write { tx in try tx.renameSection(id: section, to: "named on the laptop") }
        let laptopEdit = Date()
        _ = try Self.merge(phone, from: paths[1])
        _ = try Self.merge(laptop, from: paths[0])
        #expect(try Self.content(phone) == Self.content(laptop))
        // The phone keeps what it had where the laptop's won: the title (not the payload, which the laptop did not change).
        let kept = try phone.overwrittenValues(ofRow: row)
        #expect(kept.map(\.field) == [.title] && kept.first?.value == "the phone's", "\(kept)")
        #expect(kept.first.map { abs($0.replacedAt.timeIntervalSince(laptopEdit) - 60) < 30 } == true, "\(kept)")
        #expect(try phone.overwrittenValues(ofSection: section).map(\.value) == ["named on the phone"])
        // The laptop's title and section title won; its payload (none) gave way to the phone's.
        let laptopKept = try laptop.overwrittenValues(ofRow: row)
        #expect(laptopKept.map(\.field) == [.payload] && laptopKept.first?.value == nil, "\(laptopKept)")
        #expect(try laptop.overwrittenValues(ofSection: section).isEmpty)
        // Gone with the row; with a section another program deleted, too.
        try phone.write { tx in try tx.deleteRows(ids: [row]) }
        #expect(try phone.overwrittenValues(ofRow: row).isEmpty)
        try Connection(path: paths[0], mode: .readWrite).run("DELETE FROM sections WHERE id = ?1", [.integer(section.rawValue)])
        #expect(try Connection(path: paths[0], mode: .readOnly).scalarInt("SELECT count(*) FROM liststore_overwritten WHERE kind = 'section'") == 0)
    }

    @Test func aRowMovedWithTheSqlite3ShellIsRefusedForMergingUntilRepairThenArrivesAsAMove() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        _ = try laptop.write { tx in try tx.insertRows(["x"], intoSection: 2) }
        _ = try Self.merge(phone, from: paths[1])
        let rows = try laptop.snapshot().sections[0].rows
        // The first row of "Today" moved by hand after its last.
        try Connection(path: paths[1], mode: .readWrite).run(
            "UPDATE rows SET position = (SELECT max(position) FROM rows WHERE section_id = ?2) + 1 WHERE id = ?1",
            [.integer(rows[0].id.rawValue), .integer(try laptop.snapshot().sections[0].id.rawValue)])
        #expect(try Connection(path: paths[1], mode: .readOnly).scalarInt("SELECT count(*) FROM rows WHERE order_key IS NULL") == 1)
        let before = fileBytes(paths[0])
        do {
            _ = try phone.merge(from: URL(fileURLWithPath: paths[1]))
            Issue.record("a copy with a row moved by hand was merged")
        } catch let error as ListStoreError {
            #expect("\(error)".contains("1 of its rows were inserted or moved by another program") && "\(error)".contains("run repair"), "\(error)")
        }
        #expect(fileBytes(paths[0]) == before)
        _ = try laptop.repair()
        _ = try Self.merge(phone, from: paths[1])
        #expect(try phone.snapshot().sections[0].rows.map(\.id) == Array(rows.dropFirst().map(\.id)) + [rows[0].id])
        #expect(try Self.content(phone) == Self.content(laptop))
    }

    @Test func theOriginalFileTakesANumberAtItsFirstMergeSoItsNextIdsAreItsOwn() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let copy = try Self.copies(1, in: directory)[0]
        let original = directory.path("base.sqlite")
        let laptop = try ListStore.open(at: copy)
        let theirs = try laptop.write { tx in try tx.insertRows(["from the laptop"], intoSection: 0) }.value
        let phone = try ListStore.open(at: original)
        #expect(try ReplicaIdentityTests.replica(original).number == 0)
        _ = try Self.merge(phone, from: copy)
        let number = try ReplicaIdentityTests.replica(original).number
        let copyNumber = try ReplicaIdentityTests.replica(copy).number
        #expect(number > 0 && number != copyNumber)
        let mine = try phone.write { tx in try tx.insertRows(["from the phone"], intoSection: 0) }.value
        #expect(ReplicaIdentity.range(of: number).contains(mine[0].rawValue), "\(mine) after \(theirs)")
    }

    @Test func listsAddedMovedRenamedAndDeletedOnTwoCopiesMergeLikeSections() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(3, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        let home = try laptop.addList(named: "Home", at: 0)
        try home.write { tx in
            try tx.insertSection(title: "Chores")
            _ = try tx.insertRows(["dishes"], intoSection: 0)
        }
        try phone.renameList(named: "Work", to: "Office")
        try phone.addList(named: "Errands")
        _ = try Self.merge(phone, from: paths[1])
        _ = try Self.merge(laptop, from: paths[0])
        #expect(try phone.lists().map(\.name) == ["Home", ListStore.defaultListName, "Office", "Errands"])
        #expect(try Self.content(phone) == Self.content(laptop))
        // Deleted on one copy while the other added a section to it: it stays, holding only that section.
        _ = try phone.deleteList(named: "Home")
        try laptop.list(named: "Home").write { tx in try tx.insertSection(title: "Garden", at: 1) }
        try laptop.moveList(named: "Errands", to: 0)
        _ = try Self.merge(phone, from: paths[1])
        _ = try Self.merge(laptop, from: paths[0])
        #expect(try phone.list(named: "Home").snapshot().sections.map(\.title) == ["Garden"])
        #expect(try phone.lists().map(\.name) == ["Errands", "Home", ListStore.defaultListName, "Office"])
        #expect(try Self.content(phone) == Self.content(laptop))
        // Deleted where nothing was added: gone on both, and on a third copy that merges either.
        _ = try laptop.deleteList(named: "Errands")
        _ = try Self.merge(phone, from: paths[1])
        let third = try ListStore.open(at: paths[2])
        _ = try Self.merge(third, from: paths[0])
        for store in [phone, third] { #expect(try !store.lists().map(\.name).contains("Errands")) }
        #expect(try Self.content(third) == Self.content(phone))
    }

    @Test func twoCopiesAddingAListOfOneNameEndWithOneListHoldingBothSections() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(3, in: directory)
        let stores = try paths.map { try ListStore.open(at: $0) }
        for (store, title) in zip(stores.prefix(2), ["Packing", "Tickets"]) {
            try store.addList(named: "Trip").write { tx in
                try tx.insertSection(title: title)
                _ = try tx.insertRows(["\(title) 1", "\(title) 2"], intoSection: 0)
            }
        }
        // The third copy renames Work to Trip meanwhile: three lists of one name, one list after the merges. A
        // fold is a move of the folded list's sections by the copy that folds (the newest such move wins): it
        // takes two more rounds around the ring to reach every copy.
        try stores[2].renameList(named: "Work", to: "Trip")
        for _ in 0..<4 {
            for (which, store) in stores.enumerated() { _ = try Self.merge(store, from: paths[(which + 1) % paths.count]) }
        }
        for store in stores {
            #expect(try store.lists().map(\.name) == [ListStore.defaultListName, "Trip"])
            #expect(try Self.content(store) == Self.content(stores[0]))
            #expect(Set(try store.list(named: "Trip").snapshot().sections.map(\.title)) == ["Desk", "Packing", "Tickets"])
        }
    }

    @Test func aSectionDeletedWhileAnotherCopyAddedARowToItComesBackHoldingOnlyThatRow() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        let section = try phone.snapshot().sections[1]
        try phone.write { tx in try tx.deleteSections(ids: [section.id]) }
        let added = try laptop.write { tx in try tx.insertRows(["added on the laptop"], intoSection: 1) }.value
        try laptop.write { tx in try tx.renameSection(at: 2, to: "Someday, renamed") }
        for _ in 0..<2 {
            _ = try Self.merge(phone, from: paths[1])
            _ = try Self.merge(laptop, from: paths[0])
        }
        for store in [phone, laptop] {
            let sections = try store.snapshot().sections
            #expect(sections.map(\.id) == [try phone.snapshot().sections[0].id, section.id, sections[2].id])
            #expect(sections[1].rows.map(\.id) == added && sections[2].title == "Someday, renamed")
        }
        #expect(try Self.content(phone) == Self.content(laptop))
    }

    @Test func deletesAndValueChangesMadeWithTheSqlite3ShellAreMergedLikeTheCopysOwn() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let (phone, laptop) = (try ListStore.open(at: paths[0]), try ListStore.open(at: paths[1]))
        let rows = try laptop.snapshot().sections[0].rows
        _ = try laptop.write { tx in try tx.insertRows(["a later edit"], intoSection: 1) }
        let clockBefore = try #require(try Connection(path: paths[1], mode: .readOnly).scalarInt("SELECT seq FROM sqlite_sequence WHERE name = 'liststore_clock'"))
        try Connection(path: paths[1], mode: .readWrite).executeScript(
            """
            DELETE FROM rows WHERE id = \(rows[0].id.rawValue);
            UPDATE rows SET title = 'retitled by hand' WHERE id = \(rows[1].id.rawValue);
            UPDATE rows SET payload = '{"by":"hand"}' WHERE id = \(rows[2].id.rawValue);
            """)
        let db = try Connection(path: paths[1], mode: .readOnly)
        let stamp = try #require(try db.scalarInt("SELECT stamp FROM liststore_tombstones WHERE kind = 'row' AND id = ?1", [.integer(rows[0].id.rawValue)]))
        let clock = try #require(try db.scalarInt("SELECT seq FROM sqlite_sequence WHERE name = 'liststore_clock'"))
        let number = try ReplicaIdentityTests.replica(paths[1]).number
        // The hand delete's stamp is newer than the copy's last write, and the clock has moved past it.
        #expect(clockBefore < stamp >> 20 && stamp >> 20 <= clock && Int64(stamp) & (ReplicaIdentity.numberLimit - 1) == number)
        #expect(try db.scalarInt("SELECT title_stamp >> 20 FROM rows WHERE id = ?1", [.integer(rows[1].id.rawValue)]) ?? 0 > 0)
        _ = try Self.merge(phone, from: paths[1])
        let merged = try phone.snapshot().sections[0].rows
        #expect(merged.map(\.id) == [rows[1].id, rows[2].id])
        #expect(merged.map(\.title) == ["retitled by hand", rows[2].title] && merged[1].payload == #"{"by":"hand"}"#)
        // ListStore's own delete leaves one tombstone, of its own stamp, not the trigger's.
        try phone.write { tx in try tx.deleteRows(ids: [rows[1].id]) }
        let changes = try Self.merge(laptop, from: paths[0])
        #expect(changes.deletedRows.count == 1)
        #expect(try Self.content(phone) == Self.content(laptop))
    }

    @Test func copiesMadeBeforeSchema15AndMigratedEachOnItsOwnAreRefused() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let old = directory.path("v14.sqlite")
        try MergeRegistersTests.makeSchema14File(
            old,
            """
            INSERT INTO sections (position, title) VALUES (0, 'S');
            INSERT INTO rows (section_id, position, title) VALUES (1, 0, 'a'), (1, 1048576, 'b');
            """)
        let phone = directory.path("phone.sqlite")
        let laptop = directory.path("laptop.sqlite")
        try FileManager.default.copyItem(atPath: old, toPath: phone)
        try FileManager.default.copyItem(atPath: old, toPath: laptop)
        // Edited by hand before either migrated: 'a' retitled on the laptop (no stamps yet in schema 14).
        try Connection(path: laptop, mode: .readWrite).run("UPDATE rows SET title = 'a on the laptop' WHERE title = 'a'")
        let (onPhone, onLaptop) = (try ListStore.open(at: phone), try ListStore.open(at: laptop))
        _ = try onPhone.write { tx in try tx.insertRows(["c"], intoSection: 0) }
        _ = try onLaptop.write { tx in try tx.insertRows(["d"], intoSection: 0) }
        do {
            _ = try onPhone.merge(from: URL(fileURLWithPath: laptop))
            Issue.record("copies migrated each on its own were merged")
        } catch let error as ListStoreError {
            #expect("\(error)".contains("has another title there with the same stamp"), "\(error)")
        }
    }

    @Test func aFileOfAnotherListOrWithHandEditsIsRefusedAndNothingChanges() throws {
        let directory = try TemporaryDirectory(prefix: "merge")
        let paths = try Self.copies(2, in: directory)
        let store = try ListStore.open(at: paths[0])
        let stranger = directory.path("stranger.sqlite")
        try ListStore.open(at: stranger).write { tx in try tx.insertSection(title: "Other") }
        #expect(throws: ListStoreError.self) { try store.merge(from: URL(fileURLWithPath: stranger)) }
        #expect(throws: ListStoreError.self) { try store.merge(from: URL(fileURLWithPath: directory.path("missing.sqlite"))) }
        // Each says what the file is, once a cursor exists too (the first merge from a copy notes one).
        _ = try store.merge(from: URL(fileURLWithPath: paths[1]))
        let other = directory.path("other.sqlite")
        try Connection(path: other, mode: .readWriteCreate).run("CREATE TABLE t (x)")
        for (path, reason) in [(other, "it is not a ListStore file"), (directory.url.path, "it is a folder")] {
            do {
                _ = try store.merge(from: URL(fileURLWithPath: path))
                Issue.record("\(path) was merged")
            } catch let error as ListStoreError {
                #expect("\(error)".contains(reason), "\(error)")
            }
        }
        let merged = fileBytes(paths[0])
        try Connection(path: paths[1], mode: .readWrite).run("INSERT INTO rows (section_id, position, title) VALUES (1, 77777777, 'by hand')")
        do {
            _ = try store.merge(from: URL(fileURLWithPath: paths[1]))
            Issue.record("a copy with a row inserted by hand was merged")
        } catch let error as ListStoreError {
            #expect(error.family == .refused && "\(error)".contains("run repair on it first"), "\(error)")
        }
        #expect(fileBytes(paths[0]) == merged)
    }
}
