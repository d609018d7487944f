import Foundation
import Testing

/// The harness's own bounds: a process that hangs fails its test instead of hanging the suite.
@Suite struct HarnessTests {
    @Test func aProcessThatOutlivesItsTimeoutIsKilledAndReported() throws {
        let cli = try CLIHarness()
        let started = Date()
        let error = try #require(throws: CLIHarness.TimedOut.self) {
            try CLIHarness.process("/bin/sleep", ["600"], in: cli.directory, timeout: 0.5)
        }
        #expect(error.description.hasPrefix("/bin/sleep 600 still ran after"))
        // Killed, not waited for: far less than the 600 s it asked for, however loaded the machine.
        #expect(Date().timeIntervalSince(started) < 300)
    }

    @Test func aProcessThatEndsInTimeGivesItsStatusAndOutput() throws {
        let cli = try CLIHarness()
        let run = try CLIHarness.process("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"], in: cli.directory, timeout: 120)
        #expect(run.status == 3)
        #expect(run.stdout == "out\n")
        #expect(run.stderr == "err\n")
    }
}
