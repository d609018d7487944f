import Foundation
import SQLiteLayer
import TestSupport

@testable import ListStore

/// What a store holds, list by list, for telling which of a workload's commits a crash state holds.
typealias StoreContents = [String: ListSnapshot]

extension ListStore {
    /// Every list's snapshot, by name (each with the version it was read at).
    func contents() throws -> StoreContents {
        var contents: StoreContents = [:]
        for summary in try lists() { contents[summary.name] = try list(named: summary.name).snapshot() }
        return contents
    }
}

/// How a crash state failed, counted by kind in a failure's message.
enum CrashStateFailure: String, CaseIterable {
    /// SQLite cannot read it, or `PRAGMA integrity_check` finds damage.
    case damaged = "damaged (integrity_check)"
    /// ListStore refuses to open it, or its check finds problems.
    case refused = "refused or failing ListStore's check"
    /// It lacks a transaction whose commit had returned (or was durable), or holds half of one.
    case lostCommit = "missing a committed transaction, or holding part of one"
}

enum CrashStateCheck {
    /// Checks each state in a folder of its own under `scratch`: it opens in SQLite with
    /// `integrity_check` ok, ListStore opens it and its check finds nothing, and it holds exactly the
    /// contents after one of the transactions its ``CrashState/committed`` range allows
    /// (`expected[k]`: the contents after the workload's `k`th commit). Returns the failures.
    ///
    /// The states are checked on two threads of their own, not on Dispatch's global queue or the test
    /// runner's threads, which other suites' background work needs meanwhile.
    static func failures(of states: [CrashState], expected: [StoreContents], scratch: URL) async -> [(CrashStateFailure, String)] {
        let next = Locked(0)
        let failures = Locked<[(CrashStateFailure, String)]>([])
        let workers = 2
        let finished = Locked(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for _ in 0..<workers {
                Thread.detachNewThread {
                    while true {
                        let index = next.withLock { index in
                            defer { index += 1 }
                            return index
                        }
                        guard index < states.count else { break }
                        let folder = scratch.appendingPathComponent("state-\(index)")
                        if let failure = check(states[index], expected: expected, in: folder) { failures.withLock { $0.append(failure) } }
                        try? FileManager.default.removeItem(at: folder)
                    }
                    if finished.withLock({ count in
                        count += 1
                        return count == workers
                    }) {
                        done.resume()
                    }
                }
            }
        }
        return failures.withLock { $0 }
    }

    private static func check(_ state: CrashState, expected: [StoreContents], in folder: URL) -> (CrashStateFailure, String)? {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, bytes) in state.files { try Data(bytes).write(to: folder.appendingPathComponent(name)) }
        } catch {
            return (.refused, "\(state.origin): could not lay out the files: \(error)")
        }
        guard let database = state.files.keys.first(where: { !$0.hasSuffix("-wal") && !$0.hasSuffix("-journal") }) else {
            // Nothing of the file reached the disk: only a state before the first commit may be that.
            return state.committed.lowerBound == 0 ? nil : (.lostCommit, "\(state.origin): no database file")
        }
        let path = folder.appendingPathComponent(database).path
        do {
            let connection = try Connection(path: path, mode: .readWrite)
            let verdict = try connection.scalarText("PRAGMA integrity_check")
            guard verdict == "ok" else { return (.damaged, "\(state.origin): integrity_check says \(verdict ?? "nothing")") }
        } catch {
            return (.damaged, "\(state.origin): \(error)")
        }
        let contents: StoreContents
        do {
            let store = try ListStore.open(at: path)
            let problems = try store.checkInvariants()
            guard problems.isEmpty else { return (.refused, "\(state.origin): check finds \(problems)") }
            contents = try store.contents()
        } catch {
            return (.refused, "\(state.origin): \(error)")
        }
        let allowed = state.committed.clamped(to: 0...(expected.count - 1))
        guard allowed.contains(where: { expected[$0] == contents }) else {
            let held = expected.firstIndex(of: contents).map { "the contents after commit \($0)" } ?? "contents after no commit"
            return (.lostCommit, "\(state.origin): holds \(held), not one of commits \(state.committed)")
        }
        return nil
    }

    /// A failure message: the count of each kind and the first few states.
    static func summary(_ failures: [(CrashStateFailure, String)], of total: Int) -> String {
        let counts = CrashStateFailure.allCases.compactMap { kind -> String? in
            let count = failures.count { $0.0 == kind }
            return count == 0 ? nil : "\(count) \(kind.rawValue)"
        }
        return "\(failures.count) of \(total) crash states fail: \(counts.joined(separator: ", ")); first: "
            + failures.prefix(3).map(\.1).joined(separator: " | ")
    }
}
