import Foundation
import TestSupport

/// The files a crash can leave, built from a ``RecordedRun``, with the commits each must hold.
///
/// - A process crash (`kill -9`, a jetsam kill) leaves the files exactly as written up to some call: the
///   kernel keeps every write that returned. The `-shm` is not kept: the next connection to open the file
///   is its first, and SQLite then rebuilds the index from the `-wal` whatever the `-shm` held.
/// - A power loss keeps each file as it stood at its last sync, plus any subset of the writes made since,
///   in 512-byte sectors, each sector kept whole, lost, or torn (only its first bytes written), and any
///   truncation or deletion since either done or not.
struct CrashState {
    /// The files, by name within the folder.
    var files: [String: [UInt8]]
    /// How many of the workload's transactions the state may hold: at least every one whose commit had
    /// returned before a process crash (or whose frames a sync of the `-wal` had made durable before a
    /// power loss), at most one more than had returned (the one whose commit was under way). Never half of one.
    var committed: ClosedRange<Int>
    /// Where the state comes from, for a failure's message: the cut and, for a power loss, the seed.
    var origin: String
}

extension RecordedRun {
    /// How many calls on files the run recorded: the number of cuts after the first.
    var fileCallCount: Int { operations.count { if case .committed = $0 { false } else { true } } }

    /// The states a process crash can leave after each of `cuts` file calls (0: before the first).
    func processCrashStates(atCuts cuts: Set<Int>) -> [CrashState] {
        var states: [CrashState] = []
        var files = initialFiles
        var calls = 0
        var returned = 0
        func take() {
            if cuts.contains(calls) {
                states.append(CrashState(files: files, committed: returned...(returned + 1), origin: "process crash after file call \(calls)"))
            }
        }
        take()
        for operation in operations {
            if case .committed(let count) = operation {
                returned = count
                continue
            }
            Self.apply(operation, to: &files)
            calls += 1
            take()
        }
        return states
    }

    /// The states a power loss can leave after each of `cuts` file calls: for each, `variants` random
    /// choices of which writes since each file's last sync reached it, from `generator`.
    func powerLossStates(atCuts cuts: Set<Int>, variants: Int, generator: inout SeededGenerator) -> [CrashState] {
        var states: [CrashState] = []
        var durable = initialFiles
        var pending: [String: [Operation]] = [:]
        var calls = 0
        var returned = 0
        var durableCommits = 0
        for operation in operations {
            switch operation {
            case .committed(let count):
                returned = count
                continue
            case .sync(let file):
                for pendingOperation in pending[file] ?? [] { Self.apply(pendingOperation, to: &durable) }
                pending[file] = nil
                // A sync of the -wal makes every frame written before it durable; a commit's frames are
                // written before it returns.
                if file.hasSuffix("-wal") { durableCommits = returned }
            case .write(let file, _, _), .truncate(let file, _), .delete(let file):
                pending[file, default: []].append(operation)
            }
            calls += 1
            guard cuts.contains(calls) else { continue }
            for variant in 0..<variants {
                var files = durable
                for (_, operations) in pending.sorted(by: { $0.key < $1.key }) {
                    for pendingOperation in operations { Self.applyPartly(pendingOperation, to: &files, generator: &generator) }
                }
                states.append(
                    CrashState(
                        files: files, committed: durableCommits...(returned + 1),
                        origin: "power loss after file call \(calls), variant \(variant) (seed \(generator.seed))"))
            }
        }
        return states
    }

    private static func apply(_ operation: Operation, to files: inout [String: [UInt8]]) {
        switch operation {
        case .write(let file, let offset, let bytes):
            var contents = files[file] ?? []
            if contents.count < offset + bytes.count { contents.append(contentsOf: repeatElement(0, count: offset + bytes.count - contents.count)) }
            contents.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
            files[file] = contents
        case .truncate(let file, let size):
            var contents = files[file] ?? []
            if contents.count > size { contents.removeSubrange(size...) } else { contents.append(contentsOf: repeatElement(0, count: size - contents.count)) }
            files[file] = contents
        case .delete(let file):
            files[file] = nil
        case .sync, .committed:
            break
        }
    }

    /// Applies what of `operation` reached the disk before the power went: a truncation or deletion, or
    /// not; each 512-byte sector of a write whole, not at all, or torn (a prefix of it).
    private static func applyPartly(_ operation: Operation, to files: inout [String: [UInt8]], generator: inout SeededGenerator) {
        guard case .write(let file, let offset, let bytes) = operation else {
            if Bool.random(using: &generator) { apply(operation, to: &files) }
            return
        }
        let sector = 512
        var start = offset
        while start < offset + bytes.count {
            let end = min((start / sector + 1) * sector, offset + bytes.count)
            let piece = Array(bytes[(start - offset)..<(end - offset)])
            switch Int.random(in: 0..<5, using: &generator) {
            case 0, 1: apply(.write(file: file, offset: start, bytes: piece), to: &files)
            case 2: apply(.write(file: file, offset: start, bytes: Array(piece.prefix(Int.random(in: 0..<piece.count, using: &generator)))), to: &files)
            default: break
            }
            start = end
        }
    }

    /// Which cuts to check, out of `0...fileCallCount`: every one when there are at most `budget`; else
    /// the first `window` after each returned commit and after the last call (where a commit's last
    /// writes land), and a seeded sample of the rest up to `budget`.
    func cuts(budget: Int, window: Int = 4, generator: inout SeededGenerator) -> Set<Int> {
        let total = fileCallCount
        guard total + 1 > budget else { return Set(0...total) }
        var chosen = Set<Int>()
        var calls = 0
        for operation in operations {
            if case .committed = operation {
                for cut in calls...min(total, calls + window) { chosen.insert(cut) }
            } else {
                calls += 1
            }
        }
        for cut in max(0, total - window)...total { chosen.insert(cut) }
        while chosen.count < budget { chosen.insert(Int.random(in: 0...total, using: &generator)) }
        return chosen
    }
}
