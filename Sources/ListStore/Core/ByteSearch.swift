import Foundation

/// Finding one byte in input bytes or text with `memchr`: input runs to a gigabyte and a title to
/// 64 MiB, and a search element by element through the generic collection costs many times as much
/// (a hundred times in a debug build).
package enum ByteSearch {
    /// The index of the first `byte` in `bytes`, or nil.
    package static func firstIndex(of byte: UInt8, in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let found = memchr(base, Int32(byte), buffer.count) else { return nil }
            return bytes.startIndex + (UnsafeRawPointer(found) - UnsafeRawPointer(base))
        }
    }

    /// Whether `text`'s UTF-8 holds `byte`.
    package static func contains(_ byte: UInt8, in text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { buffer in
            guard let base = buffer.baseAddress else { return false }
            return memchr(base, Int32(byte), buffer.count) != nil
        } ?? text.utf8.contains(byte)
    }
}
