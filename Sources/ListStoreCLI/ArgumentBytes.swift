/// Shows the bytes of a command-line argument that is not UTF-8, for an error message: the readable
/// parts as text, each byte that is not part of a UTF-8 character as `\xNN`.
enum ArgumentBytes {
    static func shown(_ bytes: [UInt8]) -> String {
        var text = ""
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes[index])
            if length > 0, index + length <= bytes.count, let character = String(strictUTF8: bytes[index..<index + length]) {
                text += visible(character)
                index += length
            } else {
                text += "\\x" + String(bytes[index], radix: 16, uppercase: true).leftPadded(to: 2)
                index += 1
            }
        }
        return quoted(text)
    }

    /// The length of the UTF-8 sequence `lead` starts, or 0 when it cannot start one.
    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return 0
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
