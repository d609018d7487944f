/// One command of the table that drives parsing, help and dispatch.
struct CommandSpec: Sendable {
    /// A command option: `--name VALUE` (or `--name=VALUE`), or a flag `--name`.
    struct Option: Sendable {
        let name: String
        let valueName: String?
        let help: String
    }

    /// The command words, e.g. `["section", "add"]`.
    let words: [String]
    /// The arguments after the words, for the usage line, e.g. `TITLE [--at INDEX]`.
    let arguments: String
    let summary: String
    /// Longer help: what the arguments mean.
    let details: String
    let example: String
    let options: [Option]
    /// How many positional arguments it takes.
    let positionalCount: ClosedRange<Int>
    let run: @Sendable (ParsedCommand, CommandContext) throws -> CommandOutput
    /// For a command that edits the store: how its arguments become the edit (see ``PreparedEdit``).
    /// Only these commands may appear in a `batch`.
    var prepare: EditPreparer? = nil

    /// A command that edits the store: run on its own, it applies its edit and reads the new counts in one
    /// write transaction (``Mutation/run(_:_:_:)``); in a `batch`, its edit joins the batch's transaction.
    static func mutation(words: [String], arguments: String, summary: String, details: String, example: String,
                         options: [Option] = [], positionalCount: ClosedRange<Int>, prepare: @escaping EditPreparer) -> CommandSpec {
        CommandSpec(words: words, arguments: arguments, summary: summary, details: details, example: example, options: options,
                    positionalCount: positionalCount, run: { try Mutation.run($0, $1, prepare) }, prepare: prepare)
    }

    var name: String { words.joined(separator: " ") }
    var usage: String { "liststore \(name)\(arguments.isEmpty ? "" : " " + arguments)" }

    func option(named name: String) -> Option? { options.first { $0.name == name } }

    var help: String {
        var lines = ["usage: \(usage)", "", summary]
        if !details.isEmpty { lines += ["", details] }
        if !options.isEmpty {
            lines += ["", "options:"]
            let labels = options.map { $0.name + ($0.valueName.map { " " + $0 } ?? "") }
            let width = labels.map(\.count).max() ?? 0
            for (label, option) in zip(labels, options) { lines.append("  \(DisplayWidth.pad(label, to: width))  \(option.help)") }
        }
        lines += ["", "global options: --db PATH, --json (before or after the command)", "", "example:", "  \(example)"]
        return lines.joined(separator: "\n")
    }
}

/// A parsed command line: the command, its options and its positional arguments.
struct ParsedCommand: Sendable {
    let spec: CommandSpec
    /// Values of options that take one, by option name (`--at` → "3").
    let values: [String: String]
    /// Flags that were given (`--replace`).
    let flags: Set<String>
    let positionals: [String]

    func usageError(_ message: String) -> UsageError { UsageError(message, usage: spec.usage) }

    /// Positional `index` as a non-negative integer (a section or row index).
    func index(_ index: Int, _ what: String) throws -> Int {
        try parseIndex(positionals[index], what)
    }

    /// The value of option `name` as a non-negative integer, or nil when it is absent.
    func indexOption(_ name: String) throws -> Int? {
        try values[name].map { try parseIndex($0, "\(name) value") }
    }

    /// Positional `index` as an `S:R` index path.
    func indexPath(_ index: Int) throws -> ListIndexPath {
        try ListIndexPathText.parse(positionals[index], usage: spec.usage)
    }

    func parseIndex(_ text: String, _ what: String) throws -> Int {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text) else {
            throw usageError("\(what) must be a non-negative whole number, not \(quoted(text))")
        }
        return value
    }
}

import ListStore

/// Parsing of `S:R` arguments with a usage error that shows the expected form.
enum ListIndexPathText {
    static func parse(_ text: String, usage: String) throws -> ListIndexPath {
        guard let path = ListIndexPath(text) else {
            throw UsageError("\(quoted(text)) is not an index path: write SECTION:ROW with zero-based numbers, e.g. 0:1", usage: usage)
        }
        return path
    }
}

/// `text` in double quotes, control characters escaped and long text cut, for one-line messages.
func quoted(_ text: String) -> String {
    "\"\(DisplayWidth.truncate(visible(text), to: 60))\""
}
