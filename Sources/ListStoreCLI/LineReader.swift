import Foundation
import ListStore

/// The one reader of text input, line by line: `batch`'s lines (from a file descriptor, holding only the
/// line being read and one 64 KB chunk, so input of any length is read in constant memory) and `add`'s
/// titles from standard input (from bytes already read).
///
/// Lines end with LF; a CR before it is dropped (CRLF files). A UTF-8 byte order mark at the very start is
/// skipped (``ByteOrderMark``). A line must be valid UTF-8, contain no NUL byte and be at most
/// ``InputLimits/maximumPiece`` long; otherwise ``next()`` throws a ``CommandFailure`` naming the line.
final class LineReader {
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// What `name` reads, for messages: "standard input" or the path.
    let name: String
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// How far `buffer` has been searched for a newline (from `start`).
    private var scanned = 0
    private var atEnd = false
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    /// The number of the line last returned (1-based).
    private(set) var lineNumber = 0
    /// What a line holds, for messages ("line", "title").
    private let unit: String
    /// The error for line `number` that has `problem` ("is not valid UTF-8").
    private let failure: (_ number: Int, _ problem: String) -> CommandFailure

    private init(
        descriptor: Int32, ownsDescriptor: Bool, name: String, unit: String = "line",
        failure: @escaping (_ number: Int, _ problem: String) -> CommandFailure = { CommandFailure("line \($0): the line \($1); nothing was changed") }
    ) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        self.name = name
        self.unit = unit
        self.failure = failure
    }

    /// Reads the lines of `bytes`, already read whole (standard input's titles); `unit` and `failure`
    /// word the errors.
    convenience init(bytes: [UInt8], name: String, unit: String, failure: @escaping (_ number: Int, _ problem: String) -> CommandFailure) {
        self.init(descriptor: -1, ownsDescriptor: false, name: name, unit: unit, failure: failure)
        buffer = bytes
        atEnd = true
    }

    deinit { if ownsDescriptor { systemClose(descriptor) } }

    /// Standard input for `-`, else the file at `path` (resolved by `context`); a file that cannot be read
    /// is a failure naming it.
    static func open(_ path: String, _ context: CommandContext) throws -> LineReader {
        if path == "-" { return LineReader(descriptor: context.environment.standardInput, ownsDescriptor: false, name: "standard input") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: context.file(path), isDirectory: &isDirectory), isDirectory.boolValue {
            throw CommandFailure("cannot read \(path): it is a folder; pass a file with one command per line, or - for standard input")
        }
        let descriptor = systemOpenForReading(context.file(path))
        guard descriptor >= 0 else {
            throw CommandFailure("cannot read \(path): \(String(cString: strerror(errno))); pass a file with one command per line, or - for standard input")
        }
        return LineReader(descriptor: descriptor, ownsDescriptor: true, name: path)
    }

    /// The next line's text (without its line ending), or nil at the end of the input.
    func next() throws -> String? {
        while true {
            if let newline = ByteSearch.firstIndex(of: UInt8(ascii: "\n"), in: buffer[scanned...]) {
                let line = try take(upTo: newline)
                start = newline + 1
                scanned = start
                return line
            }
            scanned = buffer.count
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = try take(upTo: buffer.count)
                start = buffer.count
                scanned = start
                return line
            }
            guard buffer.count - start <= InputLimits.maximumPiece else {
                throw failure(lineNumber + 1, "is longer than \(InputLimits.text(InputLimits.maximumPiece)), the most liststore reads for one \(unit)")
            }
            try fill()
        }
    }

    /// Reads the next chunk, first dropping the lines already returned. Input after a NUL byte is not read.
    private func fill() throws {
        if start > 0 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw CommandFailure("cannot read \(name): \(String(cString: strerror(errno))); nothing was changed") }
            if count == 0 {
                atEnd = true
            } else if let nul = ByteSearch.firstIndex(of: 0, in: chunk[..<count]) {
                // No line may hold a NUL byte: stop reading there (`</dev/zero` ends at once), and let
                // the line that holds it be refused by its number.
                buffer.append(contentsOf: chunk[...nul])
                atEnd = true
            } else {
                buffer.append(contentsOf: chunk[..<count])
            }
            return
        }
    }

    private func take(upTo end: Int) throws -> String {
        lineNumber += 1
        var bytes = buffer[start..<end]
        if lineNumber == 1 { bytes = ByteOrderMark.dropped(from: bytes) }
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        guard bytes.count <= InputLimits.maximumPiece else {
            throw failure(lineNumber, "is longer than \(InputLimits.text(InputLimits.maximumPiece)), the most liststore reads for one \(unit)")
        }
        guard ByteSearch.firstIndex(of: 0, in: bytes) == nil else { throw failure(lineNumber, "contains a NUL byte") }
        guard let text = String(strictUTF8: bytes) else { throw failure(lineNumber, "is not valid UTF-8") }
        return text
    }
}
