import SQLiteLayer

/// What a section's neighbours and size were, read before an edit moves or deletes it: what undoing
/// the edit needs to put it back next to the same sections.
extension Connection {
    /// The title, row count and neighbouring sections' ids of section `id` (nil neighbour: none), or an
    /// `unknownSection` error.
    func sectionSurroundings(id: Int64) throws -> (title: String, rowCount: Int64, previous: Int64?, next: Int64?) {
        let read = try cached(
            """
            SELECT s.title, s.row_count,
                   (SELECT id FROM sections WHERE list_id = s.list_id AND position = s.position - 1),
                   (SELECT id FROM sections WHERE list_id = s.list_id AND position = s.position + 1)
            FROM sections AS s WHERE s.id = ?1
            """)
        guard
            let found = try read.bind([.integer(id)]).first({
                (title: $0.text(0), rowCount: $0.int64(1), previous: $0.isNull(2) ? nil : $0.int64(2), next: $0.isNull(3) ? nil : $0.int64(3))
            })
        else { throw ListStoreError.unknownSection(SectionID(rawValue: id)) }
        return found
    }
}
