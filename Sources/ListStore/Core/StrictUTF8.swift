import Foundation

extension String {
    /// The text `bytes` spell in UTF-8, or nil when they are not valid UTF-8 — never a repaired string.
    ///
    /// The standard library's `String(validating:as:)` does this from iOS 18 and macOS 15 on; this works
    /// at the library's deployment targets: a decoding that repaired nothing gives back the same bytes.
    /// (Compared with `memcmp` where both are contiguous: an element-by-element comparison through the
    /// generic collection costs a hundred times as much, which a 64 MiB title makes seconds.)
    package init?(strictUTF8 bytes: some Collection<UInt8>) {
        let decoded = String(decoding: bytes, as: UTF8.self)
        let same: Bool? =
            bytes.withContiguousStorageIfAvailable { given in
                decoded.utf8.withContiguousStorageIfAvailable { text in
                    guard text.count == given.count else { return false }
                    guard let textStart = text.baseAddress, let givenStart = given.baseAddress else { return true }  // both empty
                    return memcmp(textStart, givenStart, given.count) == 0
                }
            } ?? nil
        guard same ?? decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }
}
