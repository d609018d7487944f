import Foundation
import Testing

@testable import ListStoreCLI

/// The command declarations are the one source of the usage lines, `--help` and the command table of
/// Docs/CLI.md, the command line's reference.
@Suite struct CommandDeclarationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func reference() throws -> String {
        try String(contentsOf: root.appendingPathComponent("Docs/CLI.md"), encoding: .utf8)
    }

    /// Docs/CLI.md's table between its header and the first line that is not a table row.
    static func referenceTable() throws -> String {
        let lines = try reference().components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "| Command | What it does |") else { return "" }
        return lines[start...].prefix { $0.hasPrefix("|") }.joined(separator: "\n")
    }

    @Test func referenceCommandTableIsWrittenFromTheDeclarations() throws {
        let expected = Commands.readmeTable
        #expect(try Self.referenceTable() == expected, "Docs/CLI.md's command table must read:\n\(expected)")
    }

    /// `--help` and the command table open with what a command does in one sentence; what its arguments
    /// mean and what `--json` prints follow in `--help` only.
    @Test func everyCommandSaysWhatItDoesInOneLine() {
        for command in Commands.all {
            #expect(!command.summary.contains("\n") && command.summary.count <= 120, "\(command.name): \(command.summary)")
            #expect(command.summary.hasSuffix("."), "\(command.name)'s summary is one sentence")
        }
    }

    /// README.md keeps only a few commands; it sends readers to the reference for the rest.
    @Test func readmeLinksTheReference() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("](Docs/CLI.md)"), "README.md must link the command line's reference, Docs/CLI.md")
    }

    @Test func usageLinesComeFromTheDeclaredArgumentsAndOptions() {
        let usage = Dictionary(uniqueKeysWithValues: Commands.all.map { ($0.name, $0.usage) })
        #expect(usage["add"] == "liststore add SECTION|id:N TITLE... [--at ROW] [--payload JSON] [--as-of VERSION] | --every-section TITLE")
        #expect(usage["section add"] == "liststore section add TITLE [--at INDEX] [--as-of VERSION]")
        #expect(usage["edit"] == "liststore edit S:R|id:N [--title TITLE] [--payload JSON] [--as-of VERSION]")
        #expect(usage["batch"] == "liststore batch [FILE|-] [--as-of VERSION]")
        // Every edit command takes --as-of, declared once.
        #expect(Commands.all.filter { $0.prepare != nil }.allSatisfy { $0.option(named: "--as-of") != nil })
        #expect(usage["import"] == "liststore import FILE|- [--replace] [--all]")
        #expect(usage["show"] == "liststore show [SECTION|id:N]")
        #expect(usage["watch"] == "liststore watch [--count N]")
        #expect(usage["init"] == "liststore init")
        #expect(Commands.all.first { $0.name == "add" }?.positionalCount == 1...Int.max)
        #expect(Commands.all.first { $0.name == "move" }?.positionalCount == 2...2)
    }

    @Test func typedKeysReadWhatTheParserFound() throws {
        let parser = CommandLineParser(commands: Commands.all)
        guard case .command(let add) = try parser.parse(["add", "id:4", "a", "b", "--at=2", "--payload", "{}"]).0 else {
            Issue.record("add")
            return
        }
        #expect(add[RowCommands.Add.section] == "id:4")
        #expect(add[RowCommands.Add.titles] == ["a", "b"])
        #expect(try add[RowCommands.Add.at] == 2)
        #expect(try add[RowCommands.Add.payload] == "{}")
        #expect(add[RowCommands.Add.everySection] == false)
        guard case .command(let every) = try parser.parse(["add", "--every-section", "x"]).0 else {
            Issue.record("every")
            return
        }
        #expect(every[RowCommands.Add.everySection])
        #expect(every[RowCommands.Add.titles] == ["x"])
        guard case .command(let watch) = try parser.parse(["watch", "--count", "x"]).0 else {
            Issue.record("watch")
            return
        }
        #expect(throws: UsageError.self) { try watch[WatchCommand.count] }
        guard case .command(let show) = try parser.parse(["show"]).0 else {
            Issue.record("show")
            return
        }
        #expect(show[StoreCommands.section] == nil)
    }
}
