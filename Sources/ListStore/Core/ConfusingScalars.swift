/// Characters that must never reach a terminal raw when ListStore shows text a file holds. Two kinds:
///
/// - those that break or reorder what is printed after them (``breaksLines(_:)``): controls (C0, DEL,
///   C1 including NEL U+0085), line and paragraph separators (U+2028, U+2029), and the bidirectional
///   marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)
///   ("Trojan Source");
/// - the invisible format characters (``isInvisible(_:)``), which print as nothing, so that two names
///   that look the same on screen differ: the zero-width space, non-joiner and joiner (U+200B–U+200D),
///   the word joiner and invisible operators (U+2060–U+2064), the deprecated format controls
///   (U+206A–U+206F), the zero-width no-break space or byte-order mark (U+FEFF), the soft hyphen
///   (U+00AD), the Mongolian vowel separator (U+180E), the interlinear annotation marks (U+FFF9–U+FFFB)
///   and the tag characters (U+E0000–U+E007F, which can carry hidden ASCII).
///
/// One rule for every place that shows stored text: the command line's listings and `ui` (as
/// `\u{feff}`) and the library's error messages escape both kinds (``contains(_:)``); JSON output, whose
/// text programs read, escapes only the first (as `\u202e`, JSON's own escape) and keeps invisible
/// characters as they are. A zero-width joiner or tag character that continues an emoji sequence (the
/// family 👨‍👩‍👧, the flag of Scotland) draws as part of that emoji, so it is printed as it is.
package enum ConfusingScalars {
    /// True when `scalar` is shown as an escape rather than printed, `previous` being the scalar printed
    /// or escaped before it (nil at the start): it breaks lines, or it is invisible and does not continue
    /// an emoji sequence.
    package static func contains(_ scalar: Unicode.Scalar, after previous: Unicode.Scalar?) -> Bool {
        if breaksLines(scalar) { return true }
        guard isInvisible(scalar) else { return false }
        guard continuesEmoji(scalar), let previous else { return true }
        return !(isEmoji(previous) || continuesEmoji(previous) || previous == "\u{FE0F}")
    }

    /// The joiner (U+200D) and the tag characters (U+E0020–U+E007F), which emoji sequences are made with.
    private static func continuesEmoji(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200D || (0xE0020...0xE007F).contains(scalar.value)
    }

    /// An emoji outside ASCII (the digits, `#` and `*` count as emoji for keycaps).
    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool { scalar.value > 0x7F && scalar.properties.isEmoji }

    /// True when `scalar` breaks or reorders what a terminal prints after it: escaped even in JSON.
    package static func breaksLines(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // controls: C0, DEL, C1
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional controls
        default: return false
        }
    }

    /// True when `scalar` is an invisible format character: printed, it shows as nothing.
    package static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD, 0x180E, 0x200B...0x200D, 0x2060...0x2064, 0x206A...0x206F, 0xFEFF, 0xFFF9...0xFFFB: return true
        case 0xE0000...0xE007F: return true  // tag characters
        default: return false
        }
    }

    /// `scalar` as a Swift-style escape, e.g. `\u{202e}`.
    package static func escaped(_ scalar: Unicode.Scalar) -> String { "\\u{\(String(scalar.value, radix: 16))}" }
}
