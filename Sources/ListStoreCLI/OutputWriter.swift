import Foundation
import ListStore

/// Writes text to a file descriptor, all of it, or says why not: the one way liststore writes its
/// standard output, its standard error and export files. (Foundation's `FileHandle.write` traps when a
/// write fails, e.g. on a full disk or `/dev/full`.)
struct DescriptorWriter: Sendable {
    let descriptor: Int32

    /// A write the operating system refused, with its `errno`.
    struct Failure: Error, Equatable {
        let code: Int32
        /// What went wrong, in words: a full disk and the file size limit as ``StorageLimit`` says them.
        var reason: String { StorageLimit(errno: code)?.reason ?? String(cString: strerror(code)) }
    }

    /// Writes `text`, retrying interrupted and partial writes.
    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = writeBytes(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Failure(code: errno)
                }
                guard written > 0 else { throw Failure(code: EIO) }  // never for files and pipes; no endless loop
                offset += written
            }
        }
    }
}

private func writeBytes(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int { write(descriptor, bytes, count) }

/// The reader of standard output went away (`liststore show | head -1`): not an error. liststore stops
/// writing and exits quietly, with the status the command had (0 for a read), as `head`'s writer should.
struct StandardOutputClosed: Error {}

/// Standard output, written through a ``DescriptorWriter``: a closed pipe ends the command quietly
/// (``StandardOutputClosed``), any other failure is one `error:` line.
struct StandardOutput: Sendable {
    var descriptor: Int32 = STDOUT_FILENO

    func write(_ text: String) throws {
        do {
            try DescriptorWriter(descriptor: descriptor).write(text)
        } catch let failure as DescriptorWriter.Failure {
            if failure.code == EPIPE { throw StandardOutputClosed() }
            throw CommandFailure("could not write to standard output: \(failure.reason); the output is incomplete")
        }
    }
}
