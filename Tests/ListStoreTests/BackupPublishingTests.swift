import Foundation
import Testing

@testable import ListStore

/// How ``ListStore/backup(to:)`` names its finished copy: never over a file that appeared at the
/// target after it was checked (the check and the naming are one hard link, which fails when the name
/// is taken), and never leaving its temporary file behind.
@Suite struct BackupPublishingTests {
    @Test func aFileThatAppearsAtTheTargetMeanwhileIsNeverReplaced() throws {
        let directory = try TemporaryDirectory(prefix: "backup-publish")
        let store = try ListStore.open(at: directory.path("lists.sqlite"))
        try store.write { tx in try tx.insertSection(title: "A") }
        let path = directory.path("copy.sqlite")
        let target = try BackupTarget(path, database: store.path)  // the name is free now
        let temporary = try target.createTemporary()
        try Data("copy".utf8).write(to: URL(fileURLWithPath: temporary))
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: path))  // another process is quicker
        #expect(throws: ListStoreError.backupTargetExists(path: path)) { try target.publish(temporary) }
        #expect(FileManager.default.contents(atPath: path) == Data("theirs".utf8))
        BackupTarget.remove(temporary)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted().filter { !$0.hasPrefix("lists.sqlite") } == ["copy.sqlite"])
    }

    @Test func aFreeNameGetsTheWholeCopyAndTheTemporaryGoes() throws {
        let directory = try TemporaryDirectory(prefix: "backup-publish")
        let store = try ListStore.open(at: directory.path("lists.sqlite"))
        try store.write { tx in
            try tx.insertSection(title: "A")
            _ = try tx.insertRows(["a", "b"], intoSection: 0)
        }
        try store.backup(to: directory.path("copy.sqlite"))
        #expect(try ListStore.open(at: directory.path("copy.sqlite"), mode: .readOnly).rows(inSection: 0).map(\.title) == ["a", "b"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted().filter { !$0.hasPrefix("lists.sqlite") } == ["copy.sqlite"])
    }
}
