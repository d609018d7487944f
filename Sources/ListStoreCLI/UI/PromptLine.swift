/// The text being typed at a prompt, with a cursor: any Unicode text (what an input method composes
/// arrives as finished characters), edited with Backspace, Delete and the arrow keys.
struct PromptLine: Equatable, Sendable {
    /// What the prompt asks, e.g. "Insert before 0:3: ".
    let label: String
    /// The text so far, one element per character (grapheme cluster).
    private(set) var characters: [Character]
    /// Where typing goes: 0 is before the first character, `characters.count` after the last.
    private(set) var cursor: Int

    init(label: String, text: String = "") {
        self.label = label
        characters = Array(text)
        cursor = characters.count
    }

    var text: String { String(characters) }

    /// Types `scalar` at the cursor. A combining mark (or another scalar that joins the character before
    /// it, such as a variation selector or an emoji joiner sequence) joins that character.
    mutating func type(_ scalar: Unicode.Scalar) {
        if cursor > 0 {
            var joined = String(characters[cursor - 1])
            joined.unicodeScalars.append(scalar)
            if joined.count == 1, let character = joined.first {
                characters[cursor - 1] = character
                return
            }
        }
        characters.insert(Character(scalar), at: cursor)
        cursor += 1
    }

    /// Deletes the character before the cursor.
    mutating func backspace() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    /// Deletes the character under the cursor.
    mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    mutating func left() { cursor = max(0, cursor - 1) }
    mutating func right() { cursor = min(characters.count, cursor + 1) }
    mutating func home() { cursor = 0 }
    mutating func end() { cursor = characters.count }
    /// Clears the text (Ctrl-U).
    mutating func clear() {
        characters = []
        cursor = 0
    }

    /// The label and as much of the text as fits in `columns`, and the column of the cursor in it. When
    /// the text is too long, it scrolls so that the cursor stays in view.
    func visibleText(columns: Int) -> (text: String, cursorColumn: Int) {
        let labelText = DisplayWidth.truncate(label, to: max(1, columns / 2))
        let labelWidth = DisplayWidth.of(labelText)
        let room = max(1, columns - labelWidth - 1)
        let shown = characters.map { visible(String($0)) }
        let widths = shown.map { DisplayWidth.of($0) }
        // Start far enough right that the text up to the cursor fits.
        var start = cursor
        var used = 0
        while start > 0, used + widths[start - 1] <= room - 1 {
            used += widths[start - 1]
            start -= 1
        }
        var text = labelText
        var cursorColumn = labelWidth
        var width = 0
        for index in start..<characters.count {
            if width + widths[index] > room { break }
            if index < cursor { cursorColumn += widths[index] }
            text += shown[index]
            width += widths[index]
        }
        return (text, cursorColumn)
    }
}
