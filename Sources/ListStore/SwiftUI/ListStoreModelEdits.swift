import Foundation

/// SwiftUI `List`'s edits, each one transaction on what the model drew: the offsets and section index
/// SwiftUI passes name rows as drawn at `version` (the ``ListStoreModel/snapshot``'s version when nil — pass
/// the version the view drew from, captured in its body, to be exact even when a new state arrived
/// between the draw and the gesture), translated through every commit since by
/// ``ListStore/writeInBackground(asOf:isolation:_:)``: another process's insert above the rows cannot make a drag
/// move, or a swipe delete, another row. The write runs on a background thread, so the caller's actor
/// never waits for another process's write lock; the model shows the result when its change set arrives
/// (at once: it is this store's own commit).
///
/// Refusals are thrown, and nothing changes: ``ListStoreError/drawnRowDeleted(_:id:asOf:)`` when a row
/// drawn was deleted since, ``ListStoreError/drawnSectionDeleted(index:id:asOf:)``,
/// ``ListStoreError/versionNotTranslatable(_:reason:)`` (also before the model's first state), and the
/// out-of-range errors, counted as drawn.
extension ListStoreModel {
    /// SwiftUI's `onMove(perform:)` in the section drawn at `section`: the rows at `offsets` go to
    /// `destination`, the offset *before* the move, exactly as `Array.move(fromOffsets:toOffset:)`
    /// rearranges the drawn rows.
    @discardableResult
    public func moveRows(
        fromOffsets offsets: IndexSet, toOffset destination: Int, inSection section: Int, asOf version: ListVersion? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> ChangeSet {
        try await moveRows(at: Self.paths(offsets, in: section), toSection: section, atOffset: destination, asOf: version)
    }

    /// A drag across sections: the rows at `offsets` of the section drawn at `section` dropped into the
    /// section drawn at `target` at its drawn offset `destination` (before the move), in their drawn order.
    @discardableResult
    public func moveRows(
        fromOffsets offsets: IndexSet, inSection section: Int, toSection target: Int, atOffset destination: Int, asOf version: ListVersion? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> ChangeSet {
        try await moveRows(at: Self.paths(offsets, in: section), toSection: target, atOffset: destination, asOf: version)
    }

    /// The rows drawn at `indexPaths` (a multi-selection, any sections) dropped into the section drawn at
    /// `target` at its drawn offset `destination`, in their drawn order.
    @discardableResult
    public func moveRows(
        at indexPaths: [ListIndexPath], toSection target: Int, atOffset destination: Int, asOf version: ListVersion? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> ChangeSet {
        let drawn = version ?? snapshot.version
        return try await store.writeInBackground { tx in
            try tx.asOf(drawn).moveRows(at: indexPaths, toSection: target, atOffset: destination)
        }.changes
    }

    /// SwiftUI's `onDelete(perform:)` in the section drawn at `section`: deletes the rows drawn at `offsets`.
    @discardableResult
    public func deleteRows(
        atOffsets offsets: IndexSet, inSection section: Int, asOf version: ListVersion? = nil, isolation: isolated (any Actor)? = #isolation
    ) async throws -> ChangeSet {
        let paths = Self.paths(offsets, in: section)
        let drawn = version ?? snapshot.version
        return try await store.writeInBackground { tx in try tx.asOf(drawn).deleteRows(at: paths) }.changes
    }

    private static func paths(_ offsets: IndexSet, in section: Int) -> [ListIndexPath] {
        offsets.map { ListIndexPath(section: section, row: $0) }
    }
}
