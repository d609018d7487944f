import Foundation
import ListStore

/// One command: its words, its declared arguments and options (``CommandDeclarations``), its help and
/// its handler. Parsing, the usage line, `--help` and Docs/CLI.md's command table all come from this one value.
struct CommandSpec: Sendable {
    /// The command words, e.g. `["section", "add"]`.
    let words: [String]
    /// The positional arguments after the words, in order.
    var positionals: [any PositionalDeclaration] = []
    /// The options, in the order help lists them.
    var options: [any OptionDeclaration] = []
    /// A second form of the command, selected by a flag (its flag is one of `options`).
    var alternative: AlternativeForm? = nil
    /// What it does, in one sentence: the first line of `--help` and its row in Docs/CLI.md's command table.
    let summary: String
    /// Longer help: what the arguments mean, what `--json` prints.
    var details = ""
    let example: String
    let run: @Sendable (ParsedCommand, CommandContext) throws -> CommandOutput
    /// For a command that edits the store: how its arguments become the edit (see ``PreparedEdit``).
    /// Only these commands may appear in a `batch`.
    var prepare: EditPreparer? = nil

    /// A command that edits the store: run on its own, it applies its edit and reads the new counts in one
    /// write transaction (``Mutation/run(_:_:_:)``); in a `batch`, its edit joins the batch's transaction.
    /// Every one takes `--as-of VERSION` (``EditOptions/asOf``).
    static func mutation(
        words: [String], positionals: [any PositionalDeclaration], options: [any OptionDeclaration] = [],
        alternative: AlternativeForm? = nil, summary: String, details: String = "", example: String,
        prepare: @escaping EditPreparer
    ) -> CommandSpec {
        CommandSpec(
            words: words, positionals: positionals, options: options + [EditOptions.asOf], alternative: alternative, summary: summary,
            details: details, example: example,
            run: { try Mutation.run($0, $1, prepare) }, prepare: prepare)
    }

    var name: String { words.joined(separator: " ") }

    /// The arguments after the words, e.g. `TITLE [--at INDEX]`: the positionals, then the options in
    /// brackets, then the alternative form (whose flag is not repeated among the options).
    var arguments: String {
        let optional = options.map(\.info).filter { $0.name != alternative?.flag.info.name }.map { "[\($0.label)]" }
        let main = (positionals.map(\.info.usage) + optional).joined(separator: " ")
        return alternative.map { main + " | " + $0.usage } ?? main
    }

    var usage: String { "liststore \(name)\(arguments.isEmpty ? "" : " " + arguments)" }

    /// How many positional arguments it takes, in any of its forms.
    var positionalCount: ClosedRange<Int> {
        let ranges = [Self.count(positionals)] + (alternative.map { [Self.count($0.positionals)] } ?? [])
        return (ranges.map(\.lowerBound).min() ?? 0)...(ranges.map(\.upperBound).max() ?? 0)
    }

    private static func count(_ positionals: [any PositionalDeclaration]) -> ClosedRange<Int> {
        positionals.map(\.info.count).reduce(0...0) { total, next in
            (total.lowerBound + next.lowerBound)...(total.upperBound == .max || next.upperBound == .max ? .max : total.upperBound + next.upperBound)
        }
    }

    func option(named name: String) -> OptionInfo? { options.map(\.info).first { $0.name == name } }

    var help: String {
        var lines = ["usage: \(usage)", "", summary]
        if !details.isEmpty { lines += ["", details] }
        if !options.isEmpty {
            lines += ["", "options:"]
            let infos = options.map(\.info)
            let width = infos.map(\.label.count).max() ?? 0
            for option in infos { lines.append("  \(DisplayWidth.pad(option.label, to: width))  \(option.help)") }
        }
        lines += ["", "global options: --db PATH, --json (before or after the command)", "", "example:", "  \(example)"]
        return lines.joined(separator: "\n")
    }

    /// Its row of Docs/CLI.md's command table: `` | `section add TITLE [--at INDEX]` | Insert an empty section (at the end by default). | ``.
    var readmeRow: String {
        let usage = "\(name)\(arguments.isEmpty ? "" : " " + arguments)".replacingOccurrences(of: "|", with: "\\|")
        return "| `\(usage)` | \(summary.replacingOccurrences(of: "|", with: "\\|")) |"
    }
}

/// A parsed command line's command: the command, its options and its positional arguments.
struct ParsedCommand: Sendable {
    let spec: CommandSpec
    /// Values of options that take one, by option name (`--at` → "3"); read them by key (``Option``).
    let values: [String: String]
    /// Flags that were given (`--replace`); read them by key (``Flag``).
    let flags: Set<String>
    /// The positional words, in order.
    let positionals: [String]
    /// The positional words by the label of the argument they were given for.
    let arguments: [String: [String]]

    init(spec: CommandSpec, values: [String: String], flags: Set<String>, positionals: [String]) {
        self.spec = spec
        self.values = values
        self.flags = flags
        self.positionals = positionals
        let form = spec.alternative.flatMap { flags.contains($0.flag.info.name) ? $0.positionals : nil } ?? spec.positionals
        arguments = Self.assign(positionals, to: form)
    }

    /// Deals the words out to the declared arguments in order; one that takes one or more takes every
    /// word the arguments after it leave.
    private static func assign(_ words: [String], to declared: [any PositionalDeclaration]) -> [String: [String]] {
        var assigned: [String: [String]] = [:]
        var remaining = words[...]
        for (offset, declaration) in declared.enumerated() {
            let info = declaration.info
            let after = declared.dropFirst(offset + 1).map(\.info.count.lowerBound).reduce(0, +)
            let take = info.arity == .oneOrMore ? max(0, remaining.count - after) : min(1, remaining.count)
            assigned[info.label] = Array(remaining.prefix(take))
            remaining = remaining.dropFirst(take)
        }
        return assigned
    }

    func usageError(_ message: String) -> UsageError { UsageError(message, usage: spec.usage) }

    /// `text` as a non-negative integer (a section or row index); `what` names it in the error.
    func parseIndex(_ text: String, _ what: String) throws -> Int {
        guard let value = DecimalInteger.parse(text[...]) else {
            throw usageError("\(what) must be a non-negative whole number, not \(quoted(text))")
        }
        return value
    }

    /// `text` as an `S:R` index path.
    func indexPath(_ text: String) throws -> ListIndexPath {
        try ListIndexPathText.parse(text, usage: spec.usage)
    }
}
