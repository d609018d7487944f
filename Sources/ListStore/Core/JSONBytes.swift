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

    /// `value` in decimal, as `String(value)` writes it: its digits made last to first on the stack,
    /// then appended at once.
    mutating func append(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var first = digits.count
            repeat {
                first -= 1
                digits[first] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[first...]))
        }
    }

    mutating func append(_ value: Int) { append(Int64(value)) }

    /// `value`, or `null`.
    mutating func append(_ value: Int64?) {
        guard let value else { return append("null") }
        append(value)
    }
}
