/// UIKit's rules for sections in one batch update, written once: where each section ends up, and when
/// a section must be deleted and inserted whole.
extension ChangeSet {
    /// Where each section is after the change, by UIKit's rule: deleted sections and move sources leave
    /// their slots, insertions and move targets take theirs, and the other sections fill the remaining
    /// slots in their old order. `sources[new]` is the old index of the section at `new`, nil where a
    /// section is inserted; `problem` says what does not fit when the change set does not fit
    /// `oldCount` sections (the slots are then filled as far as they can be).
    struct SectionSlots {
        var sources: [Int?]
        var problem: String?
    }

    func sectionSlots(oldCount: Int) -> SectionSlots {
        let newCount = oldCount - deletedSections.count + insertedSections.count
        guard newCount >= 0 else { return SectionSlots(sources: [], problem: "more sections deleted than there are") }
        var slots = SectionSlots(sources: Array(repeating: nil, count: newCount))
        var filled = [Bool](repeating: false, count: newCount)
        func report(_ problem: String) { if slots.problem == nil { slots.problem = problem } }
        for insertion in insertedSections {
            guard filled.indices.contains(insertion.index), !filled[insertion.index] else {
                report("inserted section \(insertion.index) does not fit")
                continue
            }
            filled[insertion.index] = true
        }
        for move in movedSections {
            guard (0..<oldCount).contains(move.from), filled.indices.contains(move.to), !filled[move.to] else {
                report("section move \(move.from) → \(move.to) does not fit")
                continue
            }
            filled[move.to] = true
            slots.sources[move.to] = move.from
        }
        let removed = Set(deletedSections.map(\.index)).union(movedSections.map(\.from))
        var survivors = (0..<oldCount).filter { !removed.contains($0) }.makeIterator()
        for index in filled.indices where !filled[index] {
            guard let survivor = survivors.next() else {
                report("section counts do not add up")
                break
            }
            slots.sources[index] = survivor
        }
        if survivors.next() != nil { report("section counts do not add up") }
        return slots
    }

    /// UIKit cannot move or reload a section and change its rows in one batch: a section that moved and
    /// was renamed or had rows change, or was renamed and had rows change, is deleted and inserted whole.
    static func mustReplaceSection(moved: Bool, renamed: Bool, rowsChanged: Bool) -> Bool {
        (moved && (renamed || rowsChanged)) || (renamed && rowsChanged)
    }
}
