import ListStore

/// Terminal display width, so columns stay aligned with wide (CJK, emoji) and zero-width characters.
enum DisplayWidth {
    /// Columns `text` takes in a terminal: wide characters count 2, combining marks 0.
    static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + width(of: $1) }
    }

    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        let properties = scalar.properties
        if value == 0x200D || (0xFE00...0xFE0F).contains(value) { return 0 }  // joiner, variation selectors
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if isWide(value) || (properties.isEmojiPresentation && value > 0xFF) { return 2 }
        return 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `columns` display columns, with "…" when it was cut. It reads only as far as
    /// the cut, so a title of many megabytes costs no more than a short one.
    static func truncate(_ text: String, to columns: Int) -> String {
        var used = 0
        var cut = text.startIndex  // the end of the longest prefix that leaves a column for "…"
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            used += text[index].unicodeScalars.reduce(0) { $0 + width(of: $1) }
            if used > columns { return String(text[..<cut]) + "…" }
            if used <= columns - 1 { cut = next }
            index = next
        }
        return text
    }

    /// `text` followed by spaces up to `columns` display columns.
    static func pad(_ text: String, to columns: Int) -> String {
        text + String(repeating: " ", count: max(0, columns - of(text)))
    }
}

/// Control characters, line separators and bidirectional controls (``ConfusingScalars``) shown as escapes
/// (`\n`, `\t`, `\u{1b}`, `\u{202e}`), so one row stays one line on screen and nothing a title holds
/// reorders what is printed after it.
/// Only the first `limit` Unicode scalars are read (then "…"): every caller cuts the result to a few dozen
/// columns, and a title of many megabytes must not cost seconds to show.
func visible(_ text: String, limit: Int = 1_024) -> String {
    var out = ""
    var count = 0
    var previous: Unicode.Scalar?
    for scalar in text.unicodeScalars {
        count += 1
        if count > limit { return out + "…" }
        switch scalar {
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case _ where ConfusingScalars.contains(scalar, after: previous):
            out += ConfusingScalars.escaped(scalar)
        default: out.unicodeScalars.append(scalar)
        }
        previous = scalar
    }
    return out
}
