/// The one rule that turns stored positions into index paths, shared by every read and every edit.
///
/// A section's index is its `sections.position`; a row's index is `rows.position - sections.row_base`.
/// Reads compute indexes with this rule and edits resolve indexes with it, never by counting, so the
/// index path a read shows is the one an edit given that path acts on, whatever a hand edit did to the
/// positions. Edits additionally refuse sections whose damage the cheap checks can see.
enum Addressing {
    /// The index of the row stored at `position` in a section whose base is `base`. Values from a
    /// damaged file that do not fit saturate to `Int.min`/`Int.max`, indexes no edit can name.
    static func rowIndex(position: Int, base: Int) -> Int {
        let (index, overflow) = position.subtractingReportingOverflow(base)
        guard overflow else { return index }
        return position < base ? Int.min : Int.max
    }

    /// The position of the row at `index` in a section whose base is `base`, or nil when no position
    /// can hold it (a damaged base near the ends of the integer range).
    static func position(ofRow index: Int, base: Int) -> Int? {
        let (position, overflow) = base.addingReportingOverflow(index)
        return overflow ? nil : position
    }
}
