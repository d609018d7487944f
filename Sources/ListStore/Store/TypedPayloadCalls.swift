extension ListStore {
    /// The payload text a typed write stores for `value` (``NewRow/init(title:encoding:)``,
    /// ``PayloadUpdate/encoding(_:)``): its `JSONEncoder` encoding (dates as `deferredToDate`, seconds since
    /// 2001-01-01 00:00:00 UTC as a `Double`, which reads back exactly; `Data` as Base64; NaN and infinity
    /// refused) put in canonical form, so that equal values give equal text: no whitespace, object keys
    /// sorted by their Unicode scalars, strings in Unicode Normalization Form C with only `"`, `\` and
    /// U+0000…U+001F escaped, integers as their digits and other numbers as the shortest text that reads
    /// back as the same `Double` (`38.0` as `38`).
    package static func canonicalPayload(_ value: some Encodable) throws -> String {
        try TypedPayload.encode(value)
    }
}
