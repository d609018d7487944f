/// A value bound to a statement parameter or read from a column.
public enum SQLiteValue: Hashable, Sendable {
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
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLiteValue {
    /// An integer value from a Swift `Int`.
    public static func int(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }
    /// A text value, or NULL when `value` is nil.
    public static func optionalText(_ value: String?) -> SQLiteValue { value.map(SQLiteValue.text) ?? .null }
}
