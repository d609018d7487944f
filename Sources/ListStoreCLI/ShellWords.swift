/// Splits one line of a batch into words the way a POSIX shell splits a simple command, without any
/// expansion. The rules, exactly:
///
/// - Words are separated by unquoted spaces and tabs.
/// - `'…'`: everything up to the next `'` is literal (no escapes inside).
/// - `"…"`: literal, except that a backslash before `"`, `\`, `$` or `` ` `` stands for that character;
///   before anything else the backslash is kept.
/// - Outside quotes, a backslash makes the next character literal (`\ `, `\'`, `\"`, `\#`, `\\`).
/// - Quoted and unquoted parts next to each other form one word (`'a'"b"c` is `abc`); `''` is an empty word.
/// - An unquoted `#` at the start of a word begins a comment, to the end of the line.
/// - Nothing else is special: `$`, `~`, `*`, `;`, `|`, `&`, `<`, `>` and `` ` `` are ordinary characters.
/// - A quote left open, or a backslash at the end of the line, is an error: a command is one line.
enum ShellWords {
    /// Why a line cannot be split.
    struct Failure: Error {
        let message: String
    }

    /// Works on the line's UTF-8 bytes: every character with a meaning here is ASCII, so the bytes of
    /// other characters (all 0x80 or above) are ordinary, and runs of ordinary bytes are copied at once.
    static func split(_ line: String) throws -> [String] {
        let bytes = Array(line.utf8)
        return try bytes.withUnsafeBufferPointer { try split(bytes: $0) }
    }

    private static func split(bytes: UnsafeBufferPointer<UInt8>) throws -> [String] {
        let (space, tab, backslash, singleQuote, doubleQuote) = (UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\\"), UInt8(ascii: "'"), UInt8(ascii: "\""))
        var words: [String] = []
        var word: [UInt8] = []
        var inWord = false  // true once the current word has begun (even as an empty '')
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case space, tab:
                if inWord { words.append(String(decoding: word, as: UTF8.self)) }
                word.removeAll(keepingCapacity: true)
                inWord = false
                index += 1
            case UInt8(ascii: "#") where !inWord:
                return words
            case backslash:
                guard index + 1 < bytes.count else {
                    throw Failure(message: "the line ends with a backslash; a command is one line (write \\\\ for a backslash)")
                }
                word.append(bytes[index + 1])
                inWord = true
                index += 2
            case singleQuote:
                inWord = true
                index += 1
                let start = index
                while index < bytes.count, bytes[index] != singleQuote { index += 1 }
                guard index < bytes.count else { throw Failure(message: "a single quote (') is not closed on this line") }
                word.append(contentsOf: bytes[start..<index])
                index += 1
            case doubleQuote:
                inWord = true
                index += 1
                var closed = false
                while index < bytes.count {
                    let quoted = bytes[index]
                    if quoted == doubleQuote {
                        closed = true
                        index += 1
                        break
                    }
                    if quoted == backslash {
                        guard index + 1 < bytes.count else { break }
                        let escaped = bytes[index + 1]
                        if escaped != doubleQuote, escaped != backslash, escaped != UInt8(ascii: "$"), escaped != UInt8(ascii: "`") { word.append(backslash) }
                        word.append(escaped)
                        index += 2
                        continue
                    }
                    word.append(quoted)
                    index += 1
                }
                guard closed else { throw Failure(message: "a double quote (\") is not closed on this line") }
            default:
                let start = index
                index += 1
                while index < bytes.count {
                    let next = bytes[index]
                    if next == space || next == tab || next == backslash || next == singleQuote || next == doubleQuote { break }
                    index += 1
                }
                word.append(contentsOf: bytes[start..<index])
                inWord = true
            }
        }
        if inWord { words.append(String(decoding: word, as: UTF8.self)) }
        return words
    }
}
