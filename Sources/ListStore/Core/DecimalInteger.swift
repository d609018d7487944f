/// The one rule for numbers typed as text (indexes, index paths, `id:N`): 1 to 18 ASCII decimal digits,
/// nothing else (no sign, no spaces, no other scripts' digits). Eighteen digits always fit an `Int` on a
/// 64-bit platform, so no typed number overflows.
package enum DecimalInteger {
    /// The most digits a number may have.
    package static let maximumDigits = 18

    /// The value of `text`, or nil when it is not 1 to 18 ASCII digits.
    package static func parse(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= maximumDigits, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }
}
