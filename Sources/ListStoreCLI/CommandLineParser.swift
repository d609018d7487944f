/// Options that apply to every command, accepted before or after the command.
struct GlobalOptions: Sendable, Equatable {
    var databasePath: String?
    /// `--list NAME`: the list every command acts on (the default list when nil, or `$LISTSTORE_LIST`).
    var listName: String?
    var json = false
    var help = false
    var version = false
}

/// What a command line asks for.
enum Invocation: Sendable {
    /// Run a command.
    case command(ParsedCommand)
    /// Show help: for one command, or for the program when nil.
    case help(CommandSpec?)
    /// Show help for the commands whose first word is this (`liststore index --help`).
    case groupHelp(String)
    case version
}

/// Parses `liststore [--db PATH] [--json] COMMAND [ARGS...]` against the command table's declarations.
/// Global options may appear anywhere; command options after the command words; `--` ends options.
/// Returns what the line asks for and the global options it gave (once: a `batch` line refuses them
/// whatever it asks for).
struct CommandLineParser {
    let commands: [CommandSpec]

    func parse(_ arguments: [String]) throws -> (Invocation, GlobalOptions) {
        var globals = GlobalOptions()
        var words: [String] = []  // positional tokens, command words first
        var pending: [(name: String, inlineValue: String?)] = []
        var optionValues: [Int: String] = [:]  // index into `pending` → value taken from the next token
        var spec: CommandSpec?
        var index = 0
        var optionsEnded = false

        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || !isOption(token) {
                words.append(token)
                if spec == nil { spec = match(words) }
                continue
            }
            if token == "--" {
                optionsEnded = true
                continue
            }
            let (name, inlineValue) = split(token)
            switch name {
            case "--db":
                guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil) else {
                    throw UsageError("--db needs a PATH")
                }
                if inlineValue == nil { index += 1 }
                guard !value.isEmpty else { throw UsageError("--db needs a non-empty PATH") }
                globals.databasePath = value
            case "--list":
                guard let value = inlineValue ?? (index < arguments.count ? arguments[index] : nil) else {
                    throw UsageError("--list needs a NAME")
                }
                if inlineValue == nil { index += 1 }
                guard !value.isEmpty else { throw UsageError("--list needs a non-empty NAME") }
                globals.listName = value
            case "--json":
                try noValue(name, inlineValue)
                globals.json = true
            case "--help", "-h":
                try noValue(name, inlineValue)
                globals.help = true
            case "--version", "-V":
                try noValue(name, inlineValue)
                globals.version = true
            default:
                guard let command = spec ?? match(words) else {
                    if globals.help { continue }
                    throw UsageError("unknown option \(quoted(name)) before a command")
                }
                spec = command
                guard let option = command.option(named: name) else {
                    throw UsageError("\(command.name) has no option \(quoted(name))", usage: command.usage)
                }
                if option.valueName != nil {
                    if inlineValue == nil {
                        guard index < arguments.count else { throw UsageError("\(name) needs a value", usage: command.usage) }
                        optionValues[pending.count] = arguments[index]
                        index += 1
                    }
                } else if inlineValue != nil {
                    throw UsageError("\(name) takes no value", usage: command.usage)
                }
                pending.append((name, inlineValue))
            }
        }

        if globals.version && !globals.help { return (.version, globals) }
        guard let command = spec else {
            if globals.help || words.isEmpty {
                if words.isEmpty && !globals.help { throw UsageError("no command given") }
                if let group = words.first, !commands.contains(where: { $0.words.first == group }) {
                    throw UsageError("unknown command \(quoted(group))")
                }
                return (words.first.map { .groupHelp($0) } ?? .help(nil), globals)
            }
            throw unknownCommand(words)
        }
        if globals.help { return (.help(command), globals) }

        var values: [String: String] = [:]
        var flags = Set<String>()
        for (offset, option) in pending.enumerated() {
            if let value = option.inlineValue ?? optionValues[offset] {
                guard values[option.name] == nil else { throw UsageError("\(option.name) is given twice", usage: command.usage) }
                values[option.name] = value
            } else {
                flags.insert(option.name)
            }
        }
        let positionals = Array(words.dropFirst(command.words.count))
        guard command.positionalCount.contains(positionals.count) else {
            let message =
                positionals.count < command.positionalCount.lowerBound
                ? "\(command.name) is missing an argument" : "\(command.name) got too many arguments: \(quoted(positionals.joined(separator: " ")))"
            throw UsageError(message, usage: command.usage)
        }
        return (.command(ParsedCommand(spec: command, values: values, flags: flags, positionals: positionals)), globals)
    }

    /// The command whose words start `words`, preferring the longest.
    private func match(_ words: [String]) -> CommandSpec? {
        commands.filter { $0.words.count <= words.count && Array(words.prefix($0.words.count)) == $0.words }
            .max { $0.words.count < $1.words.count }
    }

    private func unknownCommand(_ words: [String]) -> UsageError {
        let group = commands.filter { $0.words.count > 1 && $0.words.first == words.first }
        if !group.isEmpty {
            let choices = group.map { $0.words[1] }.joined(separator: ", ")
            return words.count == 1
                ? UsageError("\(words[0]) needs a subcommand: \(choices)")
                : UsageError("unknown subcommand \(quoted(words[1])) of \(words[0]); choose one of: \(choices)")
        }
        return UsageError("unknown command \(quoted(words[0]))")
    }

    /// `--name`, `--name=value` and `-h`-style tokens are options; `-`, and negative numbers such as
    /// `-1` or `-1:0`, are arguments (so they get a precise error instead of "unknown option").
    private func isOption(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token != "-" else { return false }
        if let second = token.dropFirst().first, second.isNumber { return false }
        return true
    }

    private func split(_ token: String) -> (String, String?) {
        guard token.hasPrefix("--"), let equals = token.firstIndex(of: "=") else { return (token, nil) }
        return (String(token[..<equals]), String(token[token.index(after: equals)...]))
    }

    private func noValue(_ name: String, _ value: String?) throws {
        if value != nil { throw UsageError("\(name) takes no value") }
    }
}
