/// A coding key spelled as a string literal: the declared on-disk records (the change-log record, the
/// history record) name every key literally, so renaming a Swift name never changes a file.
struct LiteralCodingKey: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    init(stringLiteral value: String) { stringValue = value }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

/// Why a declared record did not decode: a version or a kind ListStore never wrote.
enum RecordFormatError: Error {
    case unknownVersion(Int64)
    case unknownKind(String)
}
