/// Characters that must never reach a terminal raw when ListStore shows text a file holds: controls
/// (C0, DEL, C1 including NEL U+0085), line and paragraph separators (U+2028, U+2029), and the
/// bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069), which reorder or break what is printed after them ("Trojan Source"). One rule for
/// every place that shows stored text: the command line's listings and `ui` (as `\u{202e}`), JSON output
/// (as `\u202e`) and the library's error messages.
package enum ConfusingScalars {
    /// True when `scalar` is shown as an escape rather than printed.
    package static func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // controls: C0, DEL, C1
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional controls
        default: return false
        }
    }

    /// `scalar` as a Swift-style escape, e.g. `\u{202e}`.
    package static func escaped(_ scalar: Unicode.Scalar) -> String { "\\u{\(String(scalar.value, radix: 16))}" }
}
