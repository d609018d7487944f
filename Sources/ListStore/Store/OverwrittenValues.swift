import Foundation
import SQLiteLayer

/// A value of a row or section that a merge replaced with another copy's newer one
/// (``ListStore/merge(from:)``): what an app shows as "changed on another device".
public struct OverwrittenValue: Hashable, Sendable {
    /// Which value of the row or section.
    public enum Field: String, Hashable, Sendable {
        /// The title.
        case title
        /// The payload (rows only).
        case payload
    }

    /// Which value it was.
    public let field: Field
    /// The value this file had (nil: the row had no payload).
    public let value: String?
    /// When the value that replaced it was written, by the clock of the copy that wrote it.
    public let replacedAt: Date
}

extension ListStore {
    /// The values of row `id` that merges replaced with another copy's newer ones — the latest per field, as
    /// long as the row exists — for an app to show what this device had ("changed on another device").
    public func overwrittenValues(ofRow id: RowID) throws -> [OverwrittenValue] {
        try overwrittenValues(kind: .rows, id: id.rawValue)
    }

    /// The title of section `id` that a merge replaced with another copy's newer one, as
    /// ``overwrittenValues(ofRow:)`` gives a row's.
    public func overwrittenValues(ofSection id: SectionID) throws -> [OverwrittenValue] {
        try overwrittenValues(kind: .sections, id: id.rawValue)
    }

    private func overwrittenValues(kind: MergeRegisters.Table, id: Int64) throws -> [OverwrittenValue] {
        try withReadTransaction { db in
            try db.cached("SELECT field, value, by_stamp FROM liststore_overwritten WHERE kind = ?1 AND id = ?2 ORDER BY field DESC")
                .bind([.text(kind.kind), .integer(id)]).map { row -> OverwrittenValue? in
                    guard let field = OverwrittenValue.Field(rawValue: row.text(0)) else { return nil }
                    return OverwrittenValue(field: field, value: row.optionalText(1), replacedAt: MergeClock.date(of: row.int64(2)))
                }.compactMap { $0 }
        }
    }
}
