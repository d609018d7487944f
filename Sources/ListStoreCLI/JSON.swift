import ListStore

/// A JSON value with ordered object keys and numbers kept as written, so documents print in a stable,
/// readable order and payloads survive an import/export round trip exactly.
package indirect enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its JSON text.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object whose members keep their order.
    case object([(String, JSONValue)])
    /// Already-serialised JSON text (e.g. a stored payload), embedded without the whitespace between
    /// its tokens; text that is not one JSON value (a payload damaged by hand) is written as a JSON
    /// string instead, so the output is always valid JSON.
    case raw(String)

    /// An integer number.
    package static func int<I: BinaryInteger>(_ value: I) -> JSONValue { .number(String(value)) }

    /// The member `key` of an object, or nil.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }
    package func hash(into hasher: inout Hasher) { hasher.combine(serialized()) }

    /// Compact JSON text on one line.
    package func serialized() -> String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): Self.writeString(text, to: &out)
        case .raw(let text):
            if let compact = JSONText.compacted(text) { out += compact } else { Self.writeString(text, to: &out) }
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Writes `text` as a JSON string. Runs of characters written as they are (printable ASCII but `"`
    /// and `\`, and every scalar beyond ASCII that does not break lines, ``ConfusingScalars/breaksLines(_:)``) are copied at once, not scalar by
    /// scalar: a store's state can hold a gigabyte of titles.
    private static func writeString(_ text: String, to out: inout String) {
        out += "\""
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                let (scalar, length) = scalarAt(index, in: bytes)
                if byte >= 0x80 && !ConfusingScalars.breaksLines(scalar) {  // invisible ones stay as they are
                    index += length
                    continue
                }
                out += String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:  // a scalar that breaks lines: valid JSON either way; escaped, nothing reorders a terminal
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                index += length
                start = index
            }
            out += String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]), as: UTF8.self)
        }
        out += "\""
    }

    /// The scalar whose UTF-8 starts at `index` of `bytes` (valid UTF-8: a `String`'s) and its length.
    private static func scalarAt(_ index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (Unicode.Scalar, Int) {
        let lead = bytes[index]
        let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        var value = UInt32(length == 1 ? lead : lead & (0xFF >> (length + 1)))
        for offset in 1..<length where index + offset < bytes.count { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }
}

/// Why a JSON document could not be read, with the byte offset where reading stopped.
package struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong.
    package let reason: String
    /// The byte offset into the document.
    package let offset: Int
    package var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A strict RFC 8259 reader. Nesting is limited so hostile input cannot exhaust the stack.
///
/// Besides parsing a whole document into a ``JSONValue``, it can walk one member or element at a
/// time (`forEachMember`, `forEachElement`, `skipValue`), so a large document is read without
/// building it in memory.
package struct JSONParser {
    /// The deepest nesting accepted.
    package static let maximumDepth = 256
    private let bytes: [UInt8]
    /// The byte offset the parser is at; set it to read a part of the document again.
    var position = 0

    /// Parses one JSON document (surrounding whitespace allowed).
    package static func parse(_ text: String) throws -> JSONValue {
        var parser = JSONParser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        try parser.expectEnd()
        return value
    }

    /// A parser at the start of `bytes`.
    init(bytes: [UInt8]) { self.bytes = bytes }

    func failure(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(reason: reason, offset: position) }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    /// Whether an object starts here.
    var atObject: Bool { current == UInt8(ascii: "{") }
    /// Whether an array starts here.
    var atArray: Bool { current == UInt8(ascii: "[") }
    /// Whether `null` (or something else starting with n) starts here.
    var atNull: Bool { current == UInt8(ascii: "n") }

    mutating func skipWhitespace() {
        while let byte = current, JSONText.isWhitespace(byte) { position += 1 }
    }

    /// Runs one of ``JSONText``'s token scanners at `position`, moving past the token; returns where it began.
    private mutating func scanToken(_ scanner: (UnsafeBufferPointer<UInt8>, inout Int, inout [UInt8], Bool) -> JSONText.Scanned?) throws -> Int {
        let start = position
        var end = position
        var unused: [UInt8] = []
        if case .failure(let reason, let offset)? = bytes.withUnsafeBufferPointer({ scanner($0, &end, &unused, false) }) {
            position = offset
            throw failure(reason)
        }
        position = end
        return start
    }

    /// Throws unless only whitespace is left.
    mutating func expectEnd() throws {
        skipWhitespace()
        guard position == bytes.count else { throw failure("unexpected text after the document") }
    }

    /// Reads the value that starts here (at nesting `depth`).
    mutating func value(depth: Int) throws -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        guard let byte = current else { throw failure("unexpected end of the document") }
        switch byte {
        case UInt8(ascii: "{"):
            var members: [(String, JSONValue)] = []
            try forEachMember(depth: depth) { key, parser in members.append((key, try parser.value(depth: depth + 1))) }
            return .object(members)
        case UInt8(ascii: "["):
            var items: [JSONValue] = []
            try forEachElement(depth: depth) { parser in items.append(try parser.value(depth: depth + 1)) }
            return .array(items)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            _ = try scanToken(JSONText.literal)
            return byte == UInt8(ascii: "n") ? .null : .bool(byte == UInt8(ascii: "t"))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = try scanToken(JSONText.number)
            return .number(String(decoding: bytes[start..<position], as: UTF8.self))
        default: throw failure("unexpected character")
        }
    }

    /// Checks the value that starts here and moves past it, without keeping it.
    mutating func skipValue(depth: Int) throws {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        switch current {
        case UInt8(ascii: "{")?: try forEachMember(depth: depth) { _, parser in try parser.skipValue(depth: depth + 1) }
        case UInt8(ascii: "[")?: try forEachElement(depth: depth) { parser in try parser.skipValue(depth: depth + 1) }
        default: _ = try value(depth: depth)
        }
    }

    /// Checks the value that starts here and moves past it, without keeping it, as payloads are read:
    /// nested to any depth, lone surrogate escapes allowed (see ``JSONText``). For parts of a document
    /// that hold payloads.
    mutating func skipValueAsPayloads() throws {
        _ = try scanValue(keeping: false)
    }

    /// Reads the value that starts here as compact JSON text (see ``JSONText``): numbers, escapes and
    /// lone surrogates exactly as written, nested to any depth. Payloads are read this way.
    mutating func compactValue() throws -> String {
        String(decoding: try scanValue(keeping: true), as: UTF8.self)
    }

    private mutating func scanValue(keeping: Bool) throws -> [UInt8] {
        let start = position
        switch bytes.withUnsafeBufferPointer({ JSONText.scan($0, from: start, keeping: keeping) }) {
        case .success(let compact, let end):
            position = end
            return compact
        case .failure(let reason, let offset):
            position = offset
            throw failure(reason)
        }
    }

    /// Reads the object that starts here, calling `body` with each member's name; `body` must read
    /// (or skip) the member's value, at `depth + 1`.
    mutating func forEachMember(depth: Int, _ body: (String, inout JSONParser) throws -> Void) throws {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        guard current == UInt8(ascii: "{") else { throw failure("expected an object") }
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name in quotes") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':' after a member name") }
            position += 1
            skipWhitespace()
            try body(key, &self)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return
            default: throw failure("expected ',' or '}' in an object")
            }
        }
    }

    /// Reads the array that starts here, calling `body` for each element; `body` must read (or skip)
    /// the element, at `depth + 1`.
    mutating func forEachElement(depth: Int, _ body: (inout JSONParser) throws -> Void) throws {
        guard depth < Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        guard current == UInt8(ascii: "[") else { throw failure("expected an array") }
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try body(&self)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return
            default: throw failure("expected ',' or ']' in an array")
            }
        }
    }

    /// The string that starts here, decoded: scanned by ``JSONText`` first, then its escapes decoded,
    /// strictly (a lone surrogate is an error here, unlike in payloads).
    private mutating func string() throws -> String {
        let opening = try scanToken(JSONText.string)
        let end = position
        let start = opening + 1
        // Most strings have no escapes (the scan found the closing quote): decode them straight from the document's bytes.
        guard let firstEscape = ByteSearch.firstIndex(of: UInt8(ascii: "\\"), in: bytes[start..<end - 1]) else {
            return try decode(bytes[start..<end - 1])
        }
        position = firstEscape
        var buffer = Array(bytes[start..<position])
        while true {
            guard let byte = current else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try decode(buffer[...])
            case UInt8(ascii: "\\"):
                position += 1
                buffer.append(contentsOf: String(try escape()).utf8)
            case 0..<0x20:
                throw failure("control character in a string (escape it)")
            default:
                buffer.append(byte)
                position += 1
            }
        }
    }

    private func decode(_ utf8: ArraySlice<UInt8>) throws -> String {
        guard let text = String(strictUTF8: utf8) else { throw failure("invalid UTF-8 in a string") }
        return text
    }

    private mutating func escape() throws -> Unicode.Scalar {
        guard let byte = current else { throw failure("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4()
            if (0xD800..<0xDC00).contains(high) {
                guard current == UInt8(ascii: "\\") else { throw failure("lone high surrogate") }
                position += 1
                guard current == UInt8(ascii: "u") else { throw failure("lone high surrogate") }
                position += 1
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                else { throw failure("invalid surrogate pair") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(high) else { throw failure("lone low surrogate") }
            return scalar
        default: throw failure("unknown escape")
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = current, let nibble = UInt32(String(UnicodeScalar(digit)), radix: 16) else { throw failure("bad \\u escape") }
            value = value * 16 + nibble
            position += 1
        }
        return value
    }
}
