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

    static func split(_ line: String) throws -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false  // true once the current word has begun (even as an empty '')
        var characters = line.unicodeScalars.makeIterator()
        func finishWord() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        while let character = characters.next() {
            switch character {
            case " ", "\t":
                finishWord()
            case "#" where !inWord:
                return words
            case "\\":
                guard let next = characters.next() else {
                    throw Failure(message: "the line ends with a backslash; a command is one line (write \\\\ for a backslash)")
                }
                word.unicodeScalars.append(next)
                inWord = true
            case "'":
                inWord = true
                var closed = false
                while let quoted = characters.next() {
                    if quoted == "'" {
                        closed = true
                        break
                    }
                    word.unicodeScalars.append(quoted)
                }
                guard closed else { throw Failure(message: "a single quote (') is not closed on this line") }
            case "\"":
                inWord = true
                var closed = false
                while let quoted = characters.next() {
                    if quoted == "\"" {
                        closed = true
                        break
                    }
                    if quoted == "\\" {
                        guard let escaped = characters.next() else { break }
                        if !"\"\\$`".unicodeScalars.contains(escaped) { word.unicodeScalars.append("\\") }
                        word.unicodeScalars.append(escaped)
                        continue
                    }
                    word.unicodeScalars.append(quoted)
                }
                guard closed else { throw Failure(message: "a double quote (\") is not closed on this line") }
            default:
                word.unicodeScalars.append(character)
                inWord = true
            }
        }
        finishWord()
        return words
    }
}
