import TestSupport
import Testing

/// The merge semantics chosen for issue 34, pinned on the in-memory model (``MergeReplica``) before the file
/// format depends on them: each test is one promise of Docs/Merging.md.
@Suite struct MergeModelTests {
    /// Three replicas that saw one list with one section holding rows 10, 11, 12.
    static func replicas(_ count: Int = 3) -> [MergeReplica] {
        var origin = MergeReplica(replica: 0)
        origin.insert([(1, "Groceries")], kind: .list, into: 0, at: 0)
        origin.insert([(2, "Today")], kind: .section, into: 1, at: 0)
        origin.insert([(3, "Later")], kind: .section, into: 1, at: 1)
        origin.insert([(10, "milk"), (11, "eggs"), (12, "bread")], kind: .row, into: 2, at: 0)
        return (1...count).map {
            var replica = MergeReplica(replica: $0)
            replica.merge(origin.log.values)
            return replica
        }
    }

    static func syncAll(_ replicas: inout [MergeReplica]) {
        let everything = replicas.flatMap { $0.log.values }
        for index in replicas.indices { replicas[index].merge(everything) }
    }

    static func rows(_ replica: MergeReplica, in section: Int) -> [Int] {
        replica.occupants(of: section).filter { replica.isShown($0) }
    }

    @Test func runsInsertedAtOnePlaceOnTwoDevicesNeverInterleave() {
        var replicas = Self.replicas(2)
        replicas[0].insert((20...24).map { ($0, "a\($0)") }, kind: .row, into: 2, at: 1)
        replicas[1].insert((30...34).map { ($0, "b\($0)") }, kind: .row, into: 2, at: 1)
        Self.syncAll(&replicas)
        let order = Self.rows(replicas[0], in: 2)
        #expect(order == Self.rows(replicas[1], in: 2))
        #expect(order.first == 10 && order.last == 12)
        let a = order.indices.filter { (20...24).contains(order[$0]) }
        let b = order.indices.filter { (30...34).contains(order[$0]) }
        #expect(a == Array(a[0]...a[4]) && b == Array(b[0]...b[4]), "\(order)")
        #expect(order.filter { (20...24).contains($0) } == Array(20...24))
    }

    /// Automerge #352: a row moved concurrently to three places is in one of them, once, on every replica.
    @Test func aRowMovedConcurrentlyToThreePlacesIsOnceAtTheNewestMovesDestination() throws {
        var replicas = Self.replicas(3)
        replicas[0].move(10, to: 2, at: 2)
        replicas[1].move(10, to: 3, at: 0)
        replicas[2].move(10, to: 2, at: 1)
        let newest = try #require(replicas.max { ($0.placeStamp(of: 10)?.counter ?? 0, $0.replica) < ($1.placeStamp(of: 10)?.counter ?? 0, $1.replica) })
        let section = try #require(newest.container(of: 10))
        let index = Self.rows(newest, in: section).firstIndex(of: 10)
        Self.syncAll(&replicas)
        for replica in replicas {
            #expect(replica.visible() == replicas[0].visible())
            #expect(replica.visible().filter { $0.hasPrefix("    row 10 ") }.count == 1)
            #expect(replica.container(of: 10) == section)
            #expect(Self.rows(replica, in: section).firstIndex(of: 10) == index)
        }
    }

    /// Yorkie #1948 and #1423: concurrent moves of neighbouring rows on three replicas, delivered pairwise in
    /// different orders, end in one order everywhere with every row once.
    @Test func concurrentMovesOnThreeReplicasConvergeWhateverTheDeliveryOrder() {
        var replicas = Self.replicas(3)
        let a = replicas[0].move(12, to: 2, at: 0)
        let b = replicas[1].move(11, to: 2, at: 0)
        let c = replicas[2].move(10, to: 2, at: 2)
        replicas[0].merge(b)
        replicas[0].merge(c)
        replicas[1].merge(c)
        replicas[1].merge(a)
        replicas[2].merge(a + b)
        #expect(replicas[0].visible() == replicas[1].visible() && replicas[1].visible() == replicas[2].visible())
        #expect(Set(Self.rows(replicas[0], in: 2)) == [10, 11, 12] && Self.rows(replicas[0], in: 2).count == 3)
    }

    @Test func aTitleEditSurvivesAConcurrentMoveAndTheNewestTitleWins() {
        var replicas = Self.replicas(3)
        replicas[0].move(11, to: 3, at: 0)
        replicas[1].set(11, to: "free-range eggs")
        replicas[2].set(11, to: "eggs (6)")
        // The two title edits have equal counters: the tie goes to the greater replica number (3).
        Self.syncAll(&replicas)
        #expect(replicas.allSatisfy { $0.container(of: 11) == 3 && $0.title(of: 11) == "eggs (6)" })
    }

    @Test func aRowDeletedWhileEditedOrMovedElsewhereStaysDeleted() {
        var replicas = Self.replicas(3)
        replicas[0].delete(12)
        replicas[1].set(12, to: "rye bread")
        replicas[2].move(12, to: 3, at: 0)
        replicas[1].set(12, to: "sourdough")
        Self.syncAll(&replicas)
        #expect(replicas.allSatisfy { !$0.visible().contains { $0.contains("row 12 ") } && $0.visible() == replicas[0].visible() })
    }

    /// The section comes back holding only the rows its deleter never saw; the rows it saw stay deleted.
    @Test func aSectionDeletedWhileAnotherDeviceInsertedIntoItComesBackHoldingOnlyThoseRows() {
        var replicas = Self.replicas(2)
        replicas[0].delete(2)
        replicas[1].insert([(40, "butter")], kind: .row, into: 2, at: 3)
        Self.syncAll(&replicas)
        for replica in replicas {
            #expect(replica.isShown(2))
            #expect(Self.rows(replica, in: 2) == [40])
            #expect([10, 11, 12].allSatisfy { replica.isDeleted($0) })
        }
        // Without a concurrent insert, a deleted section stays deleted.
        var quiet = Self.replicas(2)
        quiet[0].delete(3)
        Self.syncAll(&quiet)
        #expect(quiet.allSatisfy { !$0.isShown(3) })
    }

    @Test func undoingAMoveAnotherDeviceOverwroteSinceChangesNothing() throws {
        var replicas = Self.replicas(2)
        let before = try #require(replicas[0].currentPlace(of: 10))
        replicas[0].move(10, to: 3, at: 0)
        let mine = try #require(replicas[0].placeStamp(of: 10))
        Self.syncAll(&replicas)
        replicas[1].move(10, to: 2, at: 2)
        Self.syncAll(&replicas)
        #expect(replicas[0].undoMove(10, backTo: before, expected: mine).isEmpty)
        #expect(replicas[0].container(of: 10) == 2)
        // Not overwritten: the undo puts the row back where it was, between the same neighbours.
        var fresh = Self.replicas(2)
        let place = try #require(fresh[0].currentPlace(of: 11))
        fresh[0].move(11, to: 3, at: 0)
        let undo = fresh[0].undoMove(11, backTo: place, expected: try #require(fresh[0].placeStamp(of: 11)))
        fresh[1].merge(fresh[0].log.values)
        #expect(!undo.isEmpty && Self.rows(fresh[1], in: 2) == [10, 11, 12])
    }

    /// A move gives the row a new key among its new neighbours and leaves nothing at its old spot: a row
    /// inserted concurrently right after the moved row's old predecessor stays right after it everywhere.
    @Test func aRowMovedAwayLeavesNoTraceAndInsertsAtItsOldSpotStayThere() {
        var replicas = Self.replicas(3)
        let move = replicas[0].move(11, to: 2, at: 2)
        let insert = replicas[1].insert([(50, "cream")], kind: .row, into: 2, at: 1)
        #expect(move.count == 1, "one register write, no record of the spot it left")
        replicas[2].merge(insert)
        replicas[2].merge(move)
        Self.syncAll(&replicas)
        for replica in replicas {
            #expect(Self.rows(replica, in: 2) == [10, 50, 12, 11])
            #expect(replica.visible() == replicas[0].visible())
        }
    }

    /// Issue 34's distributed-system test on the model: 3 to 5 replicas, 10,000 edits a run, random partitions,
    /// deliveries of stale and repeated copies in any order, replicas restarted from their logs.
    @Test(.tags(.slow), arguments: [(seed: UInt64(34), replicas: 3), (seed: 35, replicas: 4), (seed: 36, replicas: 5)])
    func randomEditsOnPartitionedReplicasConverge(seed: UInt64, replicas count: Int) {
        let (replicas, snapshots) = Self.randomRun(seed: seed, replicas: count)
        let expected = replicas[0].visible()
        #expect(replicas.allSatisfy { $0.visible() == expected }, "seed \(seed)")
        let ids = expected.map { $0.split(separator: " ")[1] }
        #expect(Set(ids).count == ids.count, "each live id once (seed \(seed))")
        let shownRows = Set(expected.filter { $0.hasPrefix("    row ") }.compactMap { Int($0.split(separator: " ")[1]) })
        let created = Set(
            replicas[0].log.values.compactMap { op -> Int? in
                if case .assign(let element, .row, _, _) = op.change { return element } else { return nil }
            })
        #expect(created.filter { !replicas[0].isDeleted($0) } == shownRows, "nothing not deleted is lost (seed \(seed))")
        // Delivering everything again, or to a replica that merges it in another order, changes nothing.
        var again = replicas[1]
        again.merge(snapshots.joined())
        #expect(again.visible() == expected)
        var reversed = MergeReplica(replica: 99)
        for replica in replicas.reversed() { reversed.merge(replica.log.values) }
        #expect(reversed.visible() == expected)
    }

    /// Order keys stay short under the random run's edits (inserts and moves at random spots, runs of 1 to 4):
    /// measured over every key any edit made, and over the keys the elements stand at in the end.
    @Test(.tags(.slow)) func orderKeysStayShortInTheRandomRun() {
        let (replicas, _) = Self.randomRun(seed: 34, replicas: 3)
        var made: [Int] = []
        var elements: Set<Int> = []
        for case .assign(let element, _, _, let key) in replicas[0].log.values.map(\.change) {
            made.append(key.count)
            elements.insert(element)
        }
        let current = elements.compactMap { replicas[0].key(of: $0)?.count }
        func mean(_ lengths: [Int]) -> Double { (Double(lengths.reduce(0, +)) / Double(max(lengths.count, 1)) * 10).rounded() / 10 }
        let madeFigures = "\(made.count) keys made: longest \(made.max() ?? 0) bytes, mean \(mean(made))"
        let figures = "\(madeFigures); \(current.count) standing: longest \(current.max() ?? 0), mean \(mean(current))"
        print("MergeModel order keys (seed 34): \(figures)")
        #expect(!made.isEmpty && mean(made) < 40 && mean(current) < 40, "\(figures)")
    }

    /// The random run: `count` replicas (from ``replicas(_:)``), 10,000 random edits with random partitions,
    /// stale and repeated deliveries and restarts, then every replica synced; also the snapshots delivered.
    static func randomRun(seed: UInt64, replicas count: Int) -> (replicas: [MergeReplica], snapshots: [[MergeOperation]]) {
        var random = SeededGenerator(seed: seed)
        var replicas = Self.replicas(count)
        var snapshots: [[MergeOperation]] = []
        var nextID = 100
        var deletedEver: [Int] = []
        for _ in 0..<10_000 {
            let r = Int.random(in: 0..<count, using: &random)
            var replica = replicas[r]
            MergeModelEdits.randomEdit(on: &replica, nextID: &nextID, deletedEver: &deletedEver, using: &random)
            replicas[r] = replica
            switch Int.random(in: 0..<500, using: &random) {
            case 0..<20:
                let from = Int.random(in: 0..<count, using: &random)
                snapshots.append(Array(replicas[from].log.values))
                if snapshots.count > 16 { snapshots.removeFirst() }
                replicas[r].merge(replicas[from].log.values)
            case 20..<30 where !snapshots.isEmpty:
                replicas[r].merge(snapshots[Int.random(in: 0..<snapshots.count, using: &random)])
            case 30:
                replicas[r] = MergeReplica(restartedFrom: replicas[r])
            default: break
            }
        }
        Self.syncAll(&replicas)
        return (replicas, snapshots)
    }
}

/// Random edits of every kind the model knows, on the elements a replica shows.
enum MergeModelEdits {
    static func randomEdit(
        on replica: inout MergeReplica, nextID: inout Int, deletedEver: inout [Int], using random: inout SeededGenerator
    ) {
        func shown(in container: Int) -> [Int] { replica.occupants(of: container).filter { replica.isShown($0) } }
        func pick(_ from: [Int]) -> Int? { from.isEmpty ? nil : from[Int.random(in: 0..<from.count, using: &random)] }
        func count(in container: Int) -> Int { shown(in: container).count }
        let lists = shown(in: 0)
        let list = pick(lists)
        let sections = list.map(shown(in:)) ?? []
        let rows = pick(sections).map(shown(in:)) ?? []
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<30:
            guard let section = pick(sections) else { return }
            let run = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                nextID += 1
                return (nextID, "r\(nextID)")
            }
            replica.insert(run, kind: .row, into: section, at: Int.random(in: 0...count(in: section), using: &random))
        case 30..<50:
            let targetList = Bool.random(using: &random) ? list : pick(lists)
            guard let row = pick(rows), let section = pick(targetList.map(shown(in:)) ?? []) else { return }
            let others = count(in: section) - (replica.container(of: row) == section ? 1 : 0)
            replica.move(row, to: section, at: Int.random(in: 0...others, using: &random))
        case 50..<65:
            guard let row = pick(rows) else { return }
            replica.set(row, field: Bool.random(using: &random) ? "title" : "payload", to: "v\(Int.random(in: 0..<1000, using: &random))")
        case 65..<77:
            guard let row = pick(rows) else { return }
            replica.delete(row)
            deletedEver.append(row)
        case 77..<80:
            guard let element = pick(deletedEver), replica.isDeleted(element) else { return }
            replica.undelete(element)
        case 80..<86:
            guard let list else { return }
            nextID += 1
            replica.insert([(nextID, "s\(nextID)")], kind: .section, into: list, at: Int.random(in: 0...count(in: list), using: &random))
        case 86..<90:
            guard let section = pick(sections), let target = pick(lists) else { return }
            let others = count(in: target) - (replica.container(of: section) == target ? 1 : 0)
            replica.move(section, to: target, at: Int.random(in: 0...others, using: &random))
        case 90..<93:
            guard sections.count > 1, let section = pick(sections) else { return }
            replica.delete(section)
        case 93..<95:
            guard let section = pick(sections) else { return }
            replica.set(section, to: "t\(Int.random(in: 0..<1000, using: &random))")
        case 95..<97:
            nextID += 1
            replica.insert([(nextID, "l\(nextID)")], kind: .list, into: 0, at: Int.random(in: 0...lists.count, using: &random))
        case 97..<98:
            guard lists.count > 1, let list else { return }
            replica.delete(list)
        default:
            guard let list else { return }
            replica.move(list, to: 0, at: Int.random(in: 0..<lists.count, using: &random))
        }
    }
}
