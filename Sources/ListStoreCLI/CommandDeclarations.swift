import ListStore

// The typed keys a command declares its arguments with, once: the parser fills them, the usage line,
// `--help` and Docs/CLI.md's command table are written from them, and handlers read them back by key
// (`command[Self.payload]`) instead of by a string.

/// How many words a positional argument takes.
enum Arity: Sendable {
    case one, optional, oneOrMore
}

/// What the parser and the help need to know of a positional argument, whatever its key's type.
struct PositionalInfo: Sendable {
    /// Its name in the usage line, e.g. `S:R|id:N`.
    let label: String
    let arity: Arity

    /// `LABEL`, `[LABEL]` or `LABEL...`.
    var usage: String {
        switch arity {
        case .one: label
        case .optional: "[\(label)]"
        case .oneOrMore: "\(label)..."
        }
    }

    var count: ClosedRange<Int> {
        switch arity {
        case .one: 1...1
        case .optional: 0...1
        case .oneOrMore: 1...Int.max
        }
    }
}

/// A positional argument's declaration.
protocol PositionalDeclaration: Sendable {
    var info: PositionalInfo { get }
}

/// A required positional argument: one word.
struct Argument: PositionalDeclaration {
    let info: PositionalInfo
    init(_ label: String) { info = PositionalInfo(label: label, arity: .one) }
}

/// An optional positional argument: at most one word.
struct OptionalArgument: PositionalDeclaration {
    let info: PositionalInfo
    init(_ label: String) { info = PositionalInfo(label: label, arity: .optional) }
}

/// One or more words (the last positional of a command).
struct Arguments: PositionalDeclaration {
    let info: PositionalInfo
    init(_ label: String) { info = PositionalInfo(label: label, arity: .oneOrMore) }
}

/// What the parser and the help need to know of an option, whatever its key's type.
struct OptionInfo: Sendable {
    let name: String
    /// The value's name in help (`INDEX`); nil for a flag, which takes none.
    let valueName: String?
    let help: String

    /// `--at INDEX` or `--replace`.
    var label: String { name + (valueName.map { " " + $0 } ?? "") }
}

/// An option's declaration.
protocol OptionDeclaration: Sendable {
    var info: OptionInfo { get }
}

/// An option that takes a value (`--name VALUE` or `--name=VALUE`), read as `Value`; the conversion
/// runs when the handler reads it, so its errors come in the order the handler reads its arguments.
struct Option<Value>: OptionDeclaration {
    let info: OptionInfo
    let convert: @Sendable (_ text: String, _ command: ParsedCommand) throws -> Value

    init(
        _ name: String, value valueName: String, help: String,
        convert: @escaping @Sendable (_ text: String, _ command: ParsedCommand) throws -> Value
    ) {
        info = OptionInfo(name: name, valueName: valueName, help: help)
        self.convert = convert
    }
}

extension Option where Value == String {
    /// An option whose value is taken as it is.
    init(_ name: String, value valueName: String, help: String) {
        self.init(name, value: valueName, help: help) { text, _ in text }
    }
}

extension Option where Value == Int {
    /// An option whose value is a non-negative whole number (an index or a count).
    static func index(_ name: String, value valueName: String, help: String) -> Option<Int> {
        Option(name, value: valueName, help: help) { text, command in try command.parseIndex(text, "\(name) value") }
    }
}

/// An option without a value (`--replace`): given or not.
struct Flag: OptionDeclaration {
    let info: OptionInfo
    init(_ name: String, help: String) { info = OptionInfo(name: name, valueName: nil, help: help) }
}

/// A second way to call a command, selected by a flag: `add --every-section TITLE`.
struct AlternativeForm: Sendable {
    let flag: Flag
    let positionals: [any PositionalDeclaration]

    /// `--every-section TITLE`.
    var usage: String { ([flag.info.name] + positionals.map(\.info.usage)).joined(separator: " ") }
}

extension ParsedCommand {
    /// A required argument's word.
    subscript(_ argument: Argument) -> String { arguments[argument.info.label]?.first ?? "" }

    /// An optional argument's word, nil when it is not given.
    subscript(_ argument: OptionalArgument) -> String? { arguments[argument.info.label]?.first }

    /// The words of an argument that takes one or more.
    subscript(_ argument: Arguments) -> [String] { arguments[argument.info.label] ?? [] }

    /// An option's value, converted; nil when it is not given.
    subscript<Value>(_ option: Option<Value>) -> Value? {
        get throws { try values[option.info.name].map { try option.convert($0, self) } }
    }

    /// Whether a flag is given.
    subscript(_ flag: Flag) -> Bool { flags.contains(flag.info.name) }
}

/// Options every edit command takes.
enum EditOptions {
    /// `--as-of VERSION`: the command's index paths and indexes name what was shown at VERSION (the
    /// `"version"` of `show --json`, `watch --json` or an edit's `--json`), translated through every
    /// commit since.
    static let asOf = Option<ListVersion>(
        "--as-of", value: "VERSION",
        help: "index paths and indexes as shown at VERSION (\"version\" of show --json): they name what was shown then, wherever it is now"
    ) { text, command in
        guard let value = Int64(text), value >= 0, String(value) == text else {
            throw command.usageError("--as-of value must be a version (a non-negative whole number, as show --json prints it), not \(quoted(text))")
        }
        return ListVersion(rawValue: value)
    }
}
