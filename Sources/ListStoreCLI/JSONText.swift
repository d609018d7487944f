/// The one JSON scanner: checks and compacts JSON text without building it — for payloads, which are
/// stored, exported and imported as text — and scans the tokens (numbers, literals, strings) that
/// ``JSONParser`` builds values and walks documents from.
///
/// It accepts exactly what SQLite's `json_valid` accepts as RFC 8259 text — including `\u` escapes of
/// lone surrogates (`"\ud800"`), numbers of any length, and nesting of any depth (it keeps no call
/// stack) — so every payload `liststore check` accepts is exported as JSON. (Payloads that are written
/// are also limited to ``ListStore/maximumPayloadDepth``, by the store's own check.) Compacting removes only the whitespace between tokens: strings, escapes and
/// numbers stay exactly as written (a number never goes through `Double`).
enum JSONText {
    /// `text` without insignificant whitespace, or nil when it is not exactly one JSON value.
    static func compacted(_ text: String) -> String? {
        guard case .success(let compact, _) = check(text) else { return nil }
        return String(decoding: compact, as: UTF8.self)
    }

    /// `text` as exactly one JSON value: compacted, or why and where it is not JSON.
    static func check(_ text: String) -> Scanned {
        var text = text
        return text.withUTF8 { buffer in
            let scanned = scan(buffer, from: 0, keeping: true)
            guard case .success(_, let end) = scanned else { return scanned }
            var rest = end
            while rest < buffer.count, isWhitespace(buffer[rest]) { rest += 1 }
            return rest == buffer.count ? scanned : .failure("unexpected text after the value", offset: rest)
        }
    }

    /// The outcome of ``scan(_:from:)``.
    enum Scanned {
        /// The value without whitespace between its tokens, and the offset just past it.
        case success([UInt8], end: Int)
        /// Why the text is not JSON, and the byte offset where that was found.
        case failure(String, offset: Int)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

    private enum Expecting { case value, valueOrEnd, member, memberOrEnd, colon, separatorOrEnd }

    /// Reads the one JSON value that starts at `start` (after optional whitespace), iteratively; with
    /// `keeping` false it only checks it (the result's bytes are empty).
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, keeping: Bool) -> Scanned {
        var out: [UInt8] = []
        var open: [UInt8] = []  // the brackets of the containers we are in: "{" or "["
        var expecting = Expecting.value
        var index = start
        func byte(_ ascii: Unicode.Scalar) -> UInt8 { UInt8(ascii: ascii) }
        while true {
            while index < bytes.count, isWhitespace(bytes[index]) { index += 1 }
            guard index < bytes.count else { return .failure("unexpected end of the value", offset: index) }
            let current = bytes[index]
            switch expecting {
            case .colon:
                guard current == byte(":") else { return .failure("expected ':' after a member name", offset: index) }
                if keeping { out.append(current) }
                index += 1
                expecting = .value
                continue
            case .separatorOrEnd:
                let top = open.last
                if current == byte(",") {
                    if keeping { out.append(current) }
                    index += 1
                    expecting = top == byte("{") ? .member : .value
                } else if (current == byte("}") && top == byte("{")) || (current == byte("]") && top == byte("[")) {
                    if keeping { out.append(current) }
                    index += 1
                    open.removeLast()
                    if open.isEmpty { return .success(out, end: index) }
                } else {
                    return .failure(top == byte("{") ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array", offset: index)
                }
                continue
            case .member, .memberOrEnd:
                if expecting == .memberOrEnd && current == byte("}") {
                    if keeping { out.append(current) }
                    index += 1
                    open.removeLast()
                    if open.isEmpty { return .success(out, end: index) }
                    expecting = .separatorOrEnd
                    continue
                }
                guard current == byte("\"") else { return .failure("expected a member name in quotes", offset: index) }
                if let failure = string(bytes, &index, &out, keeping) { return failure }
                expecting = .colon
                continue
            case .value, .valueOrEnd:
                if expecting == .valueOrEnd && current == byte("]") {
                    if keeping { out.append(current) }
                    index += 1
                    open.removeLast()
                    if open.isEmpty { return .success(out, end: index) }
                    expecting = .separatorOrEnd
                    continue
                }
            }
            // A value starts here.
            switch current {
            case byte("{"), byte("["):
                if keeping { out.append(current) }
                index += 1
                open.append(current)
                expecting = current == byte("{") ? .memberOrEnd : .valueOrEnd
                continue
            case byte("\""):
                if let failure = string(bytes, &index, &out, keeping) { return failure }
            case byte("t"), byte("f"), byte("n"):
                if let failure = literal(bytes, &index, &out, keeping) { return failure }
            case byte("-"), byte("0")...byte("9"):
                if let failure = number(bytes, &index, &out, keeping) { return failure }
            default:
                return .failure("unexpected character", offset: index)
            }
            if open.isEmpty { return .success(out, end: index) }
            expecting = .separatorOrEnd
        }
    }

    /// Copies the literal (`true`, `false`, `null`) at `index` to `out`; nil when it is one.
    static func literal(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ out: inout [UInt8], _ keeping: Bool) -> Scanned? {
        let literal: [UInt8] = bytes[index] == UInt8(ascii: "t") ? Array("true".utf8) : bytes[index] == UInt8(ascii: "f") ? Array("false".utf8) : Array("null".utf8)
        guard bytes.count - index >= literal.count, (0..<literal.count).allSatisfy({ bytes[index + $0] == literal[$0] }) else {
            return .failure("expected \(String(decoding: literal, as: UTF8.self))", offset: index)
        }
        if keeping { out += literal }
        index += literal.count
        return nil
    }

    /// Copies the string at `index` (its opening quote) to `out`; nil when it is well formed.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ out: inout [UInt8], _ keeping: Bool) -> Scanned? {
        let start = index
        index += 1
        while index < bytes.count {
            let current = bytes[index]
            if current == UInt8(ascii: "\"") {
                index += 1
                if keeping { out += bytes[start..<index] }
                return nil
            }
            if current < 0x20 { return .failure("control character in a string (escape it)", offset: index) }
            if current == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { break }
                switch bytes[index] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    // Four hex digits; like json_valid, surrogates are not required to pair up.
                    guard bytes.count - index > 4, (1...4).allSatisfy({ isHexDigit(bytes[index + $0]) }) else {
                        return .failure("bad \\u escape", offset: index)
                    }
                    index += 5
                default:
                    return .failure("unknown escape", offset: index)
                }
                continue
            }
            index += 1
        }
        return .failure("unterminated string", offset: index)
    }

    /// Copies the number at `index` to `out`, exactly as written; nil when it is well formed.
    static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ out: inout [UInt8], _ keeping: Bool) -> Scanned? {
        let start = index
        func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9") }
        func digits() { while isDigit(index) { index += 1 } }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { return .failure("expected a digit", offset: index) }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { digits() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { return .failure("expected a digit after '.'", offset: index) }
            digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { return .failure("expected a digit in the exponent", offset: index) }
            digits()
        }
        if keeping { out += bytes[start..<index] }
        return nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
