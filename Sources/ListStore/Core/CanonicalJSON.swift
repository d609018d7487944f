import Foundation

/// The canonical form of a JSON text, so that equal values give equal payload text (typed payloads,
/// ``ListStore/canonicalPayload(_:)``).
///
/// The rule, whatever the platform's `JSONEncoder` wrote:
/// - No whitespace between tokens.
/// - Object members sorted by key, comparing keys' Unicode scalars (UTF-8 byte order); a key that
///   appears twice is refused.
/// - Strings (keys and values) in Unicode Normalization Form C, written as UTF-8 with only `"` as `\"`,
///   `\` as `\\`, and the control characters U+0000…U+001F escaped (`\b`, `\t`, `\n`, `\f`, `\r`, the
///   others as `\u00xx`, lower-case hex); everything else (`/`, U+007F, every scalar beyond ASCII) as it is.
/// - A number without a fraction or an exponent is written as its digits, exactly (`-0` as `0`); any
///   other number is read as a `Double` and written as an integer when it is integral and less than 2^53
///   in magnitude (`38.0` and `3.8e1` as `38`), else in the shortest form that reads back as the same
///   `Double` (Swift's `description`: `0.1`, `1e-05`, `1e+20`). A number beyond `Double`'s range is refused.
/// - `true`, `false`, `null` as they are.
enum CanonicalJSON {
    /// Why a text could not be put in canonical form.
    struct Failure: Error {
        let reason: String
    }

    /// `text` in canonical form. `text` must be nested no deeper than ``PayloadDepth/maximum`` (checked
    /// first by the caller), which bounds the recursion.
    static func canonical(_ text: String) throws -> String {
        var reader = Reader(bytes: Array(text.utf8))
        reader.skipWhitespace()
        var out = ""
        try reader.value(into: &out)
        reader.skipWhitespace()
        guard reader.atEnd else { throw reader.failure("text after the value") }
        return out
    }

    /// Writes `text` as a JSON string by the canonical rule (for other records written by hand); `escapingSolidus`: `/` as `\/` too, as `JSONEncoder` writes it (the change-log record).
    static func writeString(_ text: String, to out: inout String, escapingSolidus: Bool = false) {
        Reader.writeString(text, to: &out, escapingSolidus: escapingSolidus)
    }

    /// ``writeString(_:to:escapingSolidus:)`` onto JSON text being built as bytes (``JSONBytes``).
    static func writeString(_ text: String, to out: inout JSONBytes, escapingSolidus: Bool = false) {
        guard needsNoEscape(text, escapingSolidus: escapingSolidus) else {
            var escaped = ""
            Reader.writeString(text, to: &escaped, escapingSolidus: escapingSolidus)
            return out.append(utf8: escaped)
        }
        out.append("\"")
        out.append(utf8: text)
        out.append("\"")
    }

    /// Whether `text` is written between its quotes as it is: no byte the canonical rule escapes.
    static func needsNoEscape(_ text: String, escapingSolidus: Bool) -> Bool {
        let solidus: UInt8 = escapingSolidus ? UInt8(ascii: "/") : UInt8(ascii: "\"")
        return text.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 != solidus }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index >= bytes.count }

        func failure(_ reason: String) -> Failure { Failure(reason: "\(reason) at byte \(index)") }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(into out: inout String) throws {
            guard index < bytes.count else { throw failure("the text ends where a value should be") }
            switch bytes[index] {
            case UInt8(ascii: "{"): try object(into: &out)
            case UInt8(ascii: "["): try array(into: &out)
            case UInt8(ascii: "\""): Self.writeString(try string(), to: &out)
            case UInt8(ascii: "t"): try literal("true", into: &out)
            case UInt8(ascii: "f"): try literal("false", into: &out)
            case UInt8(ascii: "n"): try literal("null", into: &out)
            default: out += try number()
            }
        }

        private mutating func literal(_ word: String, into out: inout String) throws {
            let word = Array(word.utf8)
            guard bytes.count - index >= word.count, Array(bytes[index..<index + word.count]) == word else { throw failure("not a JSON value") }
            index += word.count
            out += String(decoding: word, as: UTF8.self)
        }

        private mutating func object(into out: inout String) throws {
            index += 1
            var members: [(key: String, value: String)] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("an object key must be a string") }
                    let key = try string()
                    skipWhitespace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
                    index += 1
                    skipWhitespace()
                    var value = ""
                    try self.value(into: &value)
                    members.append((key, value))
                    skipWhitespace()
                    guard index < bytes.count else { throw failure("the text ends inside an object") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
                    index += 1
                    break
                }
            }
            members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (offset, member) in members.enumerated() where offset > 0 && Array(members[offset - 1].key.utf8) == Array(member.key.utf8) {
                throw Failure(reason: "the key \"\(member.key)\" appears twice")
            }
            out += "{"
            for (offset, member) in members.enumerated() {
                if offset > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                out += member.value
            }
            out += "}"
        }

        private mutating func array(into out: inout String) throws {
            index += 1
            out += "["
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                out += "]"
                return
            }
            var first = true
            while true {
                skipWhitespace()
                if !first { out += "," }
                first = false
                try value(into: &out)
                skipWhitespace()
                guard index < bytes.count else { throw failure("the text ends inside an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
                index += 1
                out += "]"
                return
            }
        }

        /// A string's value (the reader is at its opening quote), in Normalization Form C.
        private mutating func string() throws -> String {
            index += 1
            var scalars = String.UnicodeScalarView()
            var runStart = index
            func flush(_ end: Int) {
                scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
            while true {
                guard index < bytes.count else { throw failure("the text ends inside a string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flush(index)
                    index += 1
                    break
                }
                if byte < 0x20 { throw failure("a control character inside a string") }
                guard byte == UInt8(ascii: "\\") else {
                    index += 1
                    continue
                }
                flush(index)
                index += 1
                guard index < bytes.count else { throw failure("the text ends inside an escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let unit = try hexUnit()
                    if (0xD800...0xDBFF).contains(unit) {
                        guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("a lone surrogate escape")
                        }
                        index += 2
                        let low = try hexUnit()
                        guard (0xDC00...0xDFFF).contains(low), let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) else {
                            throw failure("a lone surrogate escape")
                        }
                        scalars.append(scalar)
                    } else {
                        guard let scalar = Unicode.Scalar(unit) else { throw failure("a lone surrogate escape") }
                        scalars.append(scalar)
                    }
                default: throw failure("an unknown escape")
                }
                runStart = index
            }
            return String(scalars).precomposedStringWithCanonicalMapping
        }

        private mutating func hexUnit() throws -> UInt32 {
            guard bytes.count - index >= 4 else { throw failure("a short \\u escape") }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = Self.hexDigit(byte) else { throw failure("a bad \\u escape") }
                value = value << 4 | digit
            }
            index += 4
            return value
        }

        private static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        /// A number's canonical text (the reader is at its first character).
        private mutating func number() throws -> String {
            let start = index
            func digits() -> Int {
                let from = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - from
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let integerStart = index
            guard digits() > 0 else { throw failure("not a JSON value") }
            if index - integerStart > 1, bytes[integerStart] == UInt8(ascii: "0") { throw failure("a number with a leading zero") }
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                isInteger = false
                guard digits() > 0 else { throw failure("a number without digits after its point") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                isInteger = false
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { throw failure("a number without digits in its exponent") }
            }
            let lexeme = String(decoding: bytes[start..<index], as: UTF8.self)
            if isInteger { return lexeme == "-0" ? "0" : lexeme }
            guard let value = Double(lexeme), value.isFinite else { throw Failure(reason: "the number \(lexeme) is beyond the range of a Double") }
            if value == value.rounded(), value.magnitude < 9_007_199_254_740_992 { return String(Int64(value)) }
            return value.description
        }

        /// Writes `text` as a JSON string by the canonical rule; `escapingSolidus`: `/` as `\/` too, as
        /// `JSONEncoder` writes it (the change-log record). A text that needs no escape is written whole.
        static func writeString(_ text: String, to out: inout String, escapingSolidus: Bool = false) {
            out += "\""
            if CanonicalJSON.needsNoEscape(text, escapingSolidus: escapingSolidus) {
                out += text
                out += "\""
                return
            }
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "/" where escapingSolidus: out += "\\/"
                case "\u{08}": out += "\\b"
                case "\t": out += "\\t"
                case "\n": out += "\\n"
                case "\u{0C}": out += "\\f"
                case "\r": out += "\\r"
                case "\u{00}"..."\u{1F}":
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: out.unicodeScalars.append(scalar)
                }
            }
            out += "\""
        }
    }
}
