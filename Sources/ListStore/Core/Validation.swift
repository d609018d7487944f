import SQLiteLayer

/// Input rules shared by every edit and by check: they throw a ``ListStoreError`` naming the offending input.
extension Connection {
    /// Throws `invalidPayload` unless `payload` is nil or valid JSON (as SQLite's `json_valid` sees it),
    /// and `payloadTooDeep` when it nests deeper than ``ListStore/maximumPayloadDepth``.
    func validatePayload(_ payload: String?) throws {
        guard let payload else { return }
        try PayloadDepth.check(payload)
        guard try scalarInt("SELECT json_valid(?1)", [.text(payload)]) == 1 else {
            throw ListStoreError.invalidPayload(payload)
        }
    }
}

/// Throws `invalidTitle` for titles a table view cannot show or the `sqlite3` shell would cut short.
func validateTitle(_ title: String) throws {
    if title.isEmpty { throw ListStoreError.invalidTitle(title, reason: "a title cannot be empty") }
    if ByteSearch.contains(0, in: title) { throw ListStoreError.invalidTitle(title, reason: "a title cannot contain NUL characters") }
}

/// The first value that appears a second time in `values`, or nil when all are distinct.
package func firstRepeated<T: Hashable>(_ values: [T]) -> T? {
    var seen = Set<T>()
    return values.first { !seen.insert($0).inserted }
}

/// The payload nesting rule (``ListStore/maximumPayloadDepth``, ``ListStore/checkPayloadDepth(_:)``).
enum PayloadDepth {
    /// The deepest nesting of arrays and objects a payload may have.
    static let maximum = 1000

    /// Throws `payloadTooDeep` when `payload` nests arrays and objects deeper than ``maximum``.
    static func check(_ payload: String) throws {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in payload.utf8 {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximum { throw ListStoreError.payloadTooDeep(payload) }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
    }
}
