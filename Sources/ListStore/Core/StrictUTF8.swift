extension String {
    /// The text `bytes` spell in UTF-8, or nil when they are not valid UTF-8 — never a repaired string.
    ///
    /// The standard library's `String(validating:as:)` does this from iOS 18 and macOS 15 on; this works
    /// at the library's deployment targets: a decoding that repaired nothing gives back the same bytes.
    package init?(strictUTF8 bytes: some Collection<UInt8>) {
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }
}
