/// JSON text built as UTF-8 bytes, for the records every write stores (the change log's, the history's):
/// appending a literal or a number here costs a few instructions a byte, where each append to a `String`
/// costs a hundred or more, and a 1,000-row delete's two records are some 30,000 appends.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// The text built so far.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `text`'s bytes as they are (the caller knows they need no escape).
    mutating func append(utf8 text: String) { bytes.append(contentsOf: text.utf8) }

    /// `value` in decimal, as `String(value)` writes it.
    mutating func append(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var magnitude = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[start...].reverse()
    }

    mutating func append(_ value: Int) { append(Int64(value)) }

    /// `value`, or `null`.
    mutating func append(_ value: Int64?) {
        guard let value else { return append("null") }
        append(value)
    }
}
