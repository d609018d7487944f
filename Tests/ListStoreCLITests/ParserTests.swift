import Testing

@testable import ListStoreCLI

@Suite struct ParserTests {
    let parser = CommandLineParser(commands: Commands.all)

    func command(_ arguments: [String]) throws -> (ParsedCommand, GlobalOptions) {
        let (invocation, globals) = try parser.parse(arguments)
        guard case .command(let command) = invocation else {
            Issue.record("expected a command for \(arguments)")
            throw UsageError("not a command")
        }
        return (command, globals)
    }

    func usageError(_ arguments: [String]) -> UsageError? {
        do {
            _ = try parser.parse(arguments)
            return nil
        } catch { return error as? UsageError }
    }

    @Test func globalOptionsBeforeOrAfterTheCommand() throws {
        for arguments in [
            ["--db", "x.sqlite", "--json", "delete", "0:1"], ["delete", "0:1", "--json", "--db", "x.sqlite"],
            ["delete", "--db=x.sqlite", "0:1", "--json"],
        ] {
            let (command, globals) = try command(arguments)
            #expect(command.spec.name == "delete")
            #expect(command.positionals == ["0:1"])
            #expect(globals == GlobalOptions(databasePath: "x.sqlite", json: true))
        }
    }

    @Test func twoWordCommandsAndTheirOptions() throws {
        let (command, _) = try command(["section", "add", "Weapons", "--at", "1"])
        #expect(command.spec.name == "section add")
        #expect(command.positionals == ["Weapons"])
        #expect(try command[SectionCommands.Add.at] == 1)
        let (flagged, _) = try self.command(["import", "-", "--replace"])
        #expect(flagged[TransferCommands.replace])
        #expect(flagged.positionals == ["-"])
    }

    @Test func doubleDashEndsOptionsAndNegativeNumbersAreArguments() throws {
        let (command, globals) = try command(["add", "0", "--", "--json", "-x"])
        #expect(command.positionals == ["0", "--json", "-x"])
        #expect(globals.json == false)
        let (negative, _) = try self.command(["delete", "-1:0"])
        #expect(negative.positionals == ["-1:0"])
        #expect(throws: UsageError.self) { try negative.indexPath(negative.positionals[0]) }
    }

    @Test func usageErrors() {
        #expect(usageError(["frobnicate"])?.message == "unknown command \"frobnicate\"")
        #expect(usageError(["section"])?.message == "section needs a subcommand: add, rename, move, delete")
        #expect(usageError(["add", "0", "x", "--at", "1", "--at", "2"])?.message == "--at is given twice")
        #expect(usageError(["import", "a", "--replace=yes"])?.message == "--replace takes no value")
        #expect(usageError(["move", "0:0", "0:1", "0:2"])?.message.hasPrefix("move got too many arguments") == true)
        #expect(usageError(["--json=1", "show"])?.message == "--json takes no value")
        #expect(usageError(["--db"])?.message == "--db needs a PATH")
        #expect(usageError(["--db", "", "show"])?.message == "--db needs a non-empty PATH")
        #expect(usageError(["delete", "0:1", "--at", "1"])?.usage == "liststore delete S:R|id:N... [--as-of VERSION]")
    }

    @Test func helpAndVersionRouting() throws {
        guard case .help(nil) = try parser.parse(["--help"]).0 else {
            Issue.record("program help")
            return
        }
        guard case .help(let spec?) = try parser.parse(["section", "move", "-h"]).0 else {
            Issue.record("command help")
            return
        }
        #expect(spec.name == "section move")
        // A command group's word alone: its commands, not the whole program's.
        guard case .groupHelp("index") = try parser.parse(["index", "--help"]).0 else {
            Issue.record("group help")
            return
        }
        #expect(Commands.groupHelp("index").contains("index add") && !Commands.groupHelp("index").contains("section add"))
        guard case .version = try parser.parse(["--version"]).0 else {
            Issue.record("version")
            return
        }
    }

    @Test func everyCommandHasHelpWithAnExample() {
        for spec in Commands.all {
            #expect(spec.help.hasPrefix("usage: liststore \(spec.name)"))
            #expect(spec.example.hasPrefix("liststore "), "\(spec.name)")
            #expect(Commands.programHelp.contains("  \(spec.name) "), "\(spec.name) is listed in --help")
        }
    }

    @Test func indexArgumentsAreStrict() throws {
        let (command, _) = try command(["section", "move", "+1", "2"])
        #expect(throws: UsageError.self) { try command.parseIndex(command.positionals[0], "FROM") }
        #expect(try command.parseIndex(command.positionals[1], "TO") == 2)
        for text in ["1:", "1:2:3", " 1:2", "1 :2", "١:٢", "99999999999999999999:0"] {
            #expect(throws: UsageError.self) { try ListIndexPathText.parse(text, usage: "") }
        }
        #expect(try ListIndexPathText.parse("12:034", usage: "").row == 34)
    }
}

@Suite struct JSONTests {
    @Test func parsesAndSerialisesExactly() throws {
        let text = #"{"b":[1,-0.5e+3,true,false,null],"a":"x\"\\\n\u00e9\ud83d\ude00"}"#
        let value = try JSONParser.parse(" \(text) ")
        #expect(value.serialized() == #"{"b":[1,-0.5e+3,true,false,null],"a":"x\"\\\né😀"}"#)
        #expect(try JSONParser.parse(value.serialized()) == value)
    }

    @Test func refusesInvalidDocuments() {
        for text in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"\u{1}\"", "\"\\ud800\"", "nul", "[1] x", "{'a':1}", "\"\\x\""] {
            #expect(throws: JSONSyntaxError.self, "\(text)") { try JSONParser.parse(text) }
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(String(repeating: "[", count: 100_000)) }
    }

    @Test func controlCharactersAreEscapedOnOutput() {
        #expect(JSONValue.string("a\u{0}b\u{1f}\t").serialized() == #""a\u0000b\u001f\t""#)
    }
}

@Suite struct DisplayWidthTests {
    @Test func wideAndZeroWidthCharacters() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("野蠻人") == 6)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("ｱ") == 1)  // half-width katakana
        #expect(DisplayWidth.truncate("長長長長", to: 5) == "長長…")
        #expect(visible("a\nb\t\u{1b}") == "a\\nb\\t\\u{1b}")
    }
}
