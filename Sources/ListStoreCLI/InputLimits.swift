import Foundation
import ListStore

/// Limits on what commands read, so endless or hostile input (`import - </dev/zero`, `yes | liststore
/// add 0 -`) ends with a clear error instead of filling memory. Generous for real lists: a million-row
/// export is about 60 MB.
enum InputLimits {
    /// The most bytes `import` reads (from a file or standard input), and `add … -` from standard input.
    static let maximumInput = 1 << 30
    /// The longest single piece: a title, a payload, a line of standard input.
    static let maximumPiece = 64 << 20

    /// "1 GiB", "64 MiB".
    static func text(_ bytes: Int) -> String {
        bytes >= 1 << 30 && bytes % (1 << 30) == 0 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
    }

    /// The error for input longer than ``maximumInput``.
    static func tooLarge(_ name: String, _ consequence: String) -> CommandFailure {
        CommandFailure("\(name) is larger than \(text(maximumInput)), the most liststore reads; \(consequence) — split it into smaller parts")
    }
}

/// Reads a file descriptor in chunks of 64 KB, stopping after `InputLimits.maximumInput + 1` bytes (so
/// the caller can tell that the limit was passed) or just after the first NUL byte: no command accepts
/// one (neither JSON nor a title may hold it), so `</dev/zero` is refused at once instead of read forever.
enum BoundedReader {
    static func read(descriptor: Int32, limit: Int = InputLimits.maximumInput) -> Data {
        var data = Data()
        readChunks(descriptor, limit) {
            data.append(contentsOf: $0)
            return data.count
        }
        return data
    }

    /// Like ``read(descriptor:limit:)``, into an array sized for the `expected` bytes (a regular file's
    /// size), so that reading a large file makes no second copy while the buffer grows.
    static func readBytes(descriptor: Int32, expected: Int, limit: Int = InputLimits.maximumInput) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(expected, limit) + 1)
        readChunks(descriptor, limit) {
            bytes.append(contentsOf: $0)
            return bytes.count
        }
        return bytes
    }

    /// Reads chunks of 64 KB into `append` (which returns the bytes kept so far) within `limit` + 1
    /// bytes, stopping just after the first NUL byte.
    private static func readChunks(_ descriptor: Int32, _ limit: Int, _ append: (ArraySlice<UInt8>) -> Int) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var kept = 0
        while kept <= limit {
            let wanted = min(chunk.count, limit + 1 - kept)
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            if let nul = ByteSearch.firstIndex(of: 0, in: chunk[..<count]) {
                _ = append(chunk[...nul])
                break
            }
            kept = append(chunk[..<count])
        }
    }

    /// All of standard input, within the limits above.
    @Sendable static func readStandardInput() -> Data { read(descriptor: STDIN_FILENO) }
}

/// The C library's `read(2)`, named apart from `BoundedReader.read`.
func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
        return Darwin.read(descriptor, buffer, count)
    #else
        return Glibc.read(descriptor, buffer, count)
    #endif
}

/// The C library's `open(2)` for reading, named apart from the `open` methods of the CLI's types.
func systemOpenForReading(_ path: String) -> Int32 {
    #if canImport(Darwin)
        return Darwin.open(path, O_RDONLY | O_CLOEXEC)
    #else
        return Glibc.open(path, O_RDONLY | O_CLOEXEC)
    #endif
}

/// The C library's `close(2)`.
func systemClose(_ descriptor: Int32) {
    #if canImport(Darwin)
        _ = Darwin.close(descriptor)
    #else
        _ = Glibc.close(descriptor)
    #endif
}
