import Foundation
import Testing

@testable import ListStoreCLI

/// Random and mutated command lines and import documents: no crash, no hang, only exit codes 0, 1, 2,
/// and never a damaged store.
@Suite struct FuzzTests {
    static let words = [
        "init", "demo", "show", "section", "add", "rename", "move", "delete", "edit", "export", "import", "watch",
        "check", "repair", "backup", "--json", "--db", "--at", "--payload", "--title", "--every-section", "--replace",
        "--count", "--help", "--version", "-", "--", "0", "1", "2", "9", "-1", "0:0", "1:2", "2:7", "0:x", ":1", "1:",
        "99999999999999999999", "{\"a\":1}", "{bad", "null", "", "'; DROP TABLE rows; --", "長い", "\u{7}", "a\tb",
    ]

    /// Words that make a command write a file named by another argument (`export`, `backup`, `--db`),
    /// or wait forever (`watch`); the binary-based fuzz, which runs in a temporary directory, keeps them.
    static let writesFilesOrWaits: Set<String> = ["export", "backup", "--db", "watch"]

    static func randomArguments(_ random: inout SeededGenerator) -> [String] {
        (0..<Int.random(in: 0...6, using: &random)).map { _ in
            var word = words.randomElement(using: &random)!
            if Int.random(in: 0..<8, using: &random) == 0 {  // mutate a character
                var scalars = Array(word.unicodeScalars)
                let replacement = Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &random))
                if scalars.isEmpty { scalars.append(replacement) } else { scalars[Int.random(in: 0..<scalars.count, using: &random)] = replacement }
                word = String(String.UnicodeScalarView(scalars))
            }
            return word
        }
    }

    static func randomDocument(_ random: inout SeededGenerator) -> Data {
        let valid = #"{"sections":[{"id":3,"title":"A","rows":[{"title":"x","payload":{"k":[1,2.5e3,null,true]}},{"id":9,"title":"y"}]},{"title":"B"}]}"#
        var bytes = Array(valid.utf8)
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            guard !bytes.isEmpty else { break }
            let index = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: bytes.remove(at: index)
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
            case 2: bytes[index] = "{}[],:\"0a-".utf8.randomElement(using: &random)!
            default: bytes = Array(bytes[..<index])
            }
        }
        return Data(bytes)
    }

    @Test func randomCommandLinesInProcess() throws {
        let cli = try CLIHarness()
        var random = SeededGenerator(seed: 31_337)
        // A fixed number of attempts, not a time budget: the same commands run on a fast or a loaded
        // machine, so a failure replays from the seed and the attempt number.
        let attempts = 1_500
        var runs = 0
        for attempt in 0..<attempts {
            let words = Self.randomArguments(&random)
            let document = Self.randomDocument(&random)
            let environment = CLIEnvironment(
                variables: [:], readStandardInput: { document }, standardErrorIsTerminal: false,
                writeProgress: { _ in })
            // In process, relative paths are the test runner's working directory (the package): leave out
            // everything that names a file to write there, and `watch`, which runs until interrupted.
            if words.contains(where: { Self.writesFilesOrWaits.contains($0) || $0.hasPrefix("--db=") }) { continue }
            let arguments = ["--db", cli.database] + words
            let result = CLI.run(arguments, environment: environment)
            try #require([0, 1, 2].contains(result.status), "seed \(random.seed), attempt \(attempt): \(arguments) → \(result.status)")
            if result.status != 0 {
                #expect(
                    result.error.hasPrefix("error: ") && result.error.filter { $0 == "\n" }.count == 1,
                    "seed \(random.seed), attempt \(attempt): \(arguments): \(result.error)")
            }
            runs += 1
        }
        #expect(runs > attempts / 2, "most generated command lines must run (not be left out): \(runs) of \(attempts)")
        let check = CLI.run(
            ["--db", cli.database, "check"],
            environment: CLIEnvironment(
                variables: [:], readStandardInput: { Data() },
                standardErrorIsTerminal: false, writeProgress: { _ in }))
        #expect(check.status == 0 || !FileManager.default.fileExists(atPath: cli.database), "\(check.output)")
    }

    @Test func randomImportDocumentsThroughTheBinary() throws {
        let cli = try CLIHarness()
        var random = SeededGenerator(seed: 4_711)
        var statuses = Set<Int32>()
        for step in 0..<60 {
            let run = try cli.run(["import", "-", "--replace"], stdin: Self.randomDocument(&random), process: true)
            try #require([0, 1].contains(run.status), "seed \(random.seed), import \(step): status \(run.status): \(run.stderr)")
            statuses.insert(run.status)
        }
        for step in 0..<60 {
            let arguments = Self.randomArguments(&random).filter { $0 != "watch" }
            let run = try cli.run(arguments, stdin: Self.randomDocument(&random), process: true)
            try #require([0, 1, 2].contains(run.status), "seed \(random.seed), command \(step): \(arguments) → \(run.status): \(run.stderr)")
        }
        #expect(statuses == [0, 1])
        // Some import succeeded (status 0 above), so the database exists: it must still pass check.
        #expect(FileManager.default.fileExists(atPath: cli.database))
        let check = try cli.run(["check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }
}
