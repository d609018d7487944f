/// The one rule for a UTF-8 byte order mark (`EF BB BF`), which some editors write at the start of a
/// file: at the very start of an input it is not part of the text; anywhere else it is.
enum ByteOrderMark {
    static let bytes: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// `input` without a byte order mark at its start.
    static func dropped<Bytes: Collection<UInt8>>(from input: Bytes) -> Bytes.SubSequence {
        input.starts(with: bytes) ? input.dropFirst(bytes.count) : input[...]
    }
}
