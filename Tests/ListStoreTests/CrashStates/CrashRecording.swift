import CrashRecorder
import Foundation

@testable import ListStore

/// What a crash-state test recorded: every write, truncation, sync and deletion that reached the files of
/// one folder, in order, with a marker after each transaction whose commit had returned.
struct RecordedRun: Sendable {
    /// One recorded call.
    enum Operation: Sendable {
        case write(file: String, offset: Int, bytes: [UInt8])
        case truncate(file: String, size: Int)
        case sync(file: String)
        case delete(file: String)
        /// The `count`th transaction of the workload had returned from its commit.
        case committed(count: Int)
    }

    /// The files as they stood when the recording began, by name within the folder.
    let initialFiles: [String: [UInt8]]
    let operations: [Operation]
}

/// The recording VFS (`Tests/CrashRecorder`), registered as SQLite's default for the whole test process:
/// every connection opened after it passes through it, and only the files under the folder being
/// recorded are written down. One recording at a time.
enum CrashRecorder {
    private static let oneAtATime = Locked(())

    /// Registers the recorder, before any store of the test opens a connection.
    static func install() throws {
        let code = crash_recorder_install()
        guard code == 0 else { throw RecorderUnavailable(code: code) }
    }

    struct RecorderUnavailable: Error { let code: Int32 }

    /// Runs `body` recording the calls on the files in `folder` (named relative to it); `body` calls
    /// `committed` after each transaction whose commit returned.
    static func record(in folder: URL, _ body: (_ committed: @escaping () -> Void) throws -> Void) throws -> RecordedRun {
        try install()
        return try oneAtATime.withLock { _ in
            let prefix = folder.standardizedFileURL.path + "/"
            var initialFiles: [String: [UInt8]] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasSuffix("-shm") {
                initialFiles[name] = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            }
            crash_recorder_begin(prefix)
            defer { crash_recorder_end() }
            let count = Locked(0)
            try body {
                crash_recorder_mark(
                    Int64(
                        count.withLock {
                            $0 += 1
                            return $0
                        }))
            }
            crash_recorder_end()
            return RecordedRun(initialFiles: initialFiles, operations: operations(droppingPrefix: prefix))
        }
    }

    private static func operations(droppingPrefix prefix: String) -> [RecordedRun.Operation] {
        var result: [RecordedRun.Operation] = []
        var names: [Int32: String] = [:]
        func name(_ index: Int32) -> String {
            if let known = names[index] { return known }
            let full = crash_recorder_file_name(index).map { String(cString: $0) } ?? "?"
            let relative = full.hasPrefix(prefix) ? String(full.dropFirst(prefix.count)) : full
            names[index] = relative
            return relative
        }
        var recorded = crash_recorder_operation()
        for index in 0..<crash_recorder_count() where crash_recorder_operation_at(index, &recorded) != 0 {
            switch recorded.kind {
            case Int32(CRASH_RECORDER_WRITE.rawValue):
                let bytes = recorded.data.map { [UInt8](UnsafeBufferPointer(start: $0, count: Int(recorded.length))) } ?? []
                result.append(.write(file: name(recorded.file), offset: Int(recorded.offset), bytes: bytes))
            case Int32(CRASH_RECORDER_TRUNCATE.rawValue): result.append(.truncate(file: name(recorded.file), size: Int(recorded.offset)))
            case Int32(CRASH_RECORDER_SYNC.rawValue): result.append(.sync(file: name(recorded.file)))
            case Int32(CRASH_RECORDER_DELETE.rawValue): result.append(.delete(file: name(recorded.file)))
            default: result.append(.committed(count: Int(recorded.offset)))
            }
        }
        return result
    }
}
