/// Change sets as Swift `CollectionDifference`s, for UIs that apply changes to arrays of ids
/// (diffable data sources, SwiftUI lists) rather than to UIKit index paths.
extension ChangeSet {
    /// The changes to the rows of one section that exists both before and after the mutation.
    package struct SectionRowsDifference: Hashable, Sendable {
        /// The section's index before the mutation.
        package let sectionBefore: Int
        /// The section's index after the mutation.
        package let sectionAfter: Int
        /// Applied to the section's row ids before the mutation, gives its row ids after it.
        /// Moves within the section are associated removals and insertions.
        package let difference: CollectionDifference<RowID>
    }

    /// Applied to the section ids before the mutation, gives the section ids after it
    /// (moves are associated removals and insertions). Nil only for a hand-made, inconsistent change set.
    package var sectionDifference: CollectionDifference<SectionID>? {
        var changes: [CollectionDifference<SectionID>.Change] = []
        for section in deletedSections { changes.append(.remove(offset: section.index, element: section.id, associatedWith: nil)) }
        for section in insertedSections { changes.append(.insert(offset: section.index, element: section.id, associatedWith: nil)) }
        for move in movedSections {
            changes.append(.remove(offset: move.from, element: move.id, associatedWith: move.to))
            changes.append(.insert(offset: move.to, element: move.id, associatedWith: move.from))
        }
        return CollectionDifference(changes)
    }

    /// Where each section that survives the mutation ends up: old index → new index, by UIKit's rule
    /// (deleted and moved sections leave their slots, inserted and moved ones take theirs, and the
    /// others fill the remaining slots in their old order). `oldCount` is the number of sections before.
    package func sectionIndexMapping(oldCount: Int) -> [Int: Int] {
        var mapping: [Int: Int] = [:]
        for (new, old) in sectionSlots(oldCount: oldCount).sources.enumerated() {
            if let old { mapping[old] = new }
        }
        return mapping
    }

    /// The row changes of every surviving section that has any, as `CollectionDifference`s over row ids.
    /// Rows moved between two sections are a removal in one and an insertion in the other.
    /// Nil only for a hand-made, inconsistent change set.
    package func rowDifferences(oldSectionCount: Int) -> [SectionRowsDifference]? {
        let mapping = sectionIndexMapping(oldCount: oldSectionCount)
        let newToOld = Dictionary(mapping.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        var changesBySection: [Int: [CollectionDifference<RowID>.Change]] = [:]
        for row in deletedRows {
            changesBySection[row.indexPath.section, default: []].append(.remove(offset: row.indexPath.row, element: row.id, associatedWith: nil))
        }
        for row in insertedRows {
            guard let old = newToOld[row.indexPath.section] else { continue }
            changesBySection[old, default: []].append(.insert(offset: row.indexPath.row, element: row.id, associatedWith: nil))
        }
        for move in movedRows {
            let targetOld = newToOld[move.to.section]
            let sameSection = targetOld == move.from.section
            changesBySection[move.from.section, default: []].append(
                .remove(offset: move.from.row, element: move.id, associatedWith: sameSection ? move.to.row : nil))
            if let targetOld {
                changesBySection[targetOld, default: []].append(
                    .insert(offset: move.to.row, element: move.id, associatedWith: sameSection ? move.from.row : nil))
            }
        }
        var differences: [SectionRowsDifference] = []
        for old in changesBySection.keys.sorted() {
            guard let new = mapping[old], let difference = CollectionDifference(changesBySection[old] ?? []) else { return nil }
            differences.append(SectionRowsDifference(sectionBefore: old, sectionAfter: new, difference: difference))
        }
        return differences
    }
}
