/// The names in a piece of SQL text, read the way SQLite's tokenizer reads them.
enum SQLNames {
    /// Every bare word and every quoted token of `sql` (`"x"`, `[x]`, `` `x` `` and `'x'`, unquoted,
    /// since SQLite accepts a string literal as a table name in some places), in order; comments
    /// and punctuation are skipped. Used to find out conservatively whether SQL mentions a table.
    static func tokens(in sql: String) -> [String] {
        let scalars = Array(sql.unicodeScalars)
        var tokens: [String] = []
        var index = 0
        func quoted(until close: Unicode.Scalar, doubling: Bool) {
            var text = String.UnicodeScalarView()
            index += 1
            while index < scalars.count {
                if scalars[index] == close {
                    if doubling, index + 1 < scalars.count, scalars[index + 1] == close {
                        text.append(close)
                        index += 2
                        continue
                    }
                    index += 1
                    break
                }
                text.append(scalars[index])
                index += 1
            }
            tokens.append(String(text))
        }
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "-" where index + 1 < scalars.count && scalars[index + 1] == "-":
                while index < scalars.count && scalars[index] != "\n" { index += 1 }
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*":
                index += 2
                while index < scalars.count && !(scalars[index] == "*" && index + 1 < scalars.count && scalars[index + 1] == "/") { index += 1 }
                index += 2
            case "\"", "'", "`":
                quoted(until: scalar, doubling: true)
            case "[":
                quoted(until: "]", doubling: false)
            default:
                if isWordCharacter(scalar) {
                    var word = String.UnicodeScalarView()
                    while index < scalars.count && isWordCharacter(scalars[index]) {
                        word.append(scalars[index])
                        index += 1
                    }
                    tokens.append(String(word))
                } else {
                    index += 1
                }
            }
        }
        return tokens
    }

    /// Letters, digits, `_`, `$` and every non-ASCII character continue a bare word in SQLite.
    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x80 || scalar == "_" || scalar == "$" || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }
}
