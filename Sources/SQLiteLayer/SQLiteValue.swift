/// A value bound to a statement parameter or read from a column.
package enum SQLiteValue: Hashable, Sendable {
    /// A 64-bit integer.
    case integer(Int64)
    /// A floating-point number.
    case real(Double)
    /// UTF-8 text (NUL characters included).
    case text(String)
    /// Bytes.
    case blob([UInt8])
    /// SQL NULL.
    case null
}

extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral {
    package init(integerLiteral value: Int64) { self = .integer(value) }
    package init(stringLiteral value: String) { self = .text(value) }
    package init(nilLiteral: ()) { self = .null }
    package init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLiteValue {
    /// An integer value from a Swift `Int`.
    package static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }
    /// A text value, or NULL when `value` is nil.
    package static func optionalText(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
}
