import Foundation
import ListStore

/// Where `export FILE` writes: the file FILE names, following symbolic links, never the database.
enum ExportDestination {
    /// The file `path` names once symbolic links are followed (it need not exist yet: a dangling link
    /// names the file it would create). Relative link targets are relative to the link's folder. The
    /// result is written as `path` is (relative stays relative); `context` resolves it for the file system.
    static func followingLinks(_ path: String, _ context: CommandContext) throws -> String {
        var current = path
        for _ in 0..<40 {  // the kernel's own limit on links in a row
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: context.file(current)) else { return current }
            current = target.hasPrefix("/") ? target : CommandContext.folder(of: current) + "/" + target
        }
        throw CommandFailure("cannot write \(path): too many symbolic links in a row (a loop?); pass the path of a file")
    }

    /// Refuses a destination that is the database itself (or one of its -wal/-shm files), by name or
    /// through a link: that would replace the store with its own export.
    static func refuseDatabase(_ target: String, destination: String, database: String, _ context: CommandContext) throws {
        let refusal = CommandFailure("refusing to export over the database itself (\(destination)); choose another FILE")
        let targetURL = URL(fileURLWithPath: target).resolvingSymlinksInPath().standardizedFileURL
        // A database given as a link has its -wal and -shm beside the file it names, not beside the link.
        let databaseFile = (try? followingLinks(database, context)) ?? database
        for suffix in ["", "-wal", "-shm"] {
            let file = databaseFile + suffix
            if targetURL == URL(fileURLWithPath: file).resolvingSymlinksInPath().standardizedFileURL { throw refusal }
            if let one = identity(target), let other = identity(file), one == other { throw refusal }  // hard links too
        }
    }

    /// Refuses to replace a file that its permissions keep us from writing (as the shell's `>` would).
    static func refuseReadOnly(_ target: String, destination: String) throws {
        guard FileManager.default.fileExists(atPath: target), access(target, W_OK) != 0 else { return }
        throw CommandFailure("cannot write \(destination): the file is read-only; change its permissions or choose another FILE")
    }

    /// Refuses a destination that exists and is not a regular file — a FIFO, a device, a socket: the
    /// export would be renamed over it (replacing `/dev/null` itself, for root) instead of written into
    /// it. Standard output reaches any of them: `liststore export - > FIFO`.
    static func refuseSpecialFile(_ target: String, destination: String) throws {
        var info = stat()
        guard stat(target, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return }
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw CommandFailure(
            "cannot write \(destination): it is \(kind), and export FILE writes a whole new file in its place; to write the document into it, use `liststore export - > \(destination)`"
        )
    }

    /// A new hidden name beside `target`, e.g. `.export.json.<uuid>.tmp` (the name cut short enough to
    /// stay within the 255 bytes a file name may have).
    static func temporaryPath(for target: String, in folder: String) -> String {
        let name = target.split(separator: "/").last.map(String.init) ?? "export"
        var short = ""
        for scalar in name.unicodeScalars {
            guard short.utf8.count + String(scalar).utf8.count <= 100 else { break }
            short.unicodeScalars.append(scalar)
        }
        return (folder == "/" ? "" : folder) + "/.\(short).\(UUID().uuidString).tmp"
    }

    /// The one-line error for a write to the export that the system refused with `code`; nothing was
    /// changed: the destination is as it was, and the temporary file is removed by the caller.
    static func failure(_ code: Int32, destination: String, creatingIn folder: String? = nil) -> CommandFailure {
        if let limit = StorageLimit(errno: code) {
            return CommandFailure("cannot write \(destination): \(limit.reason); nothing was changed (\(destination) is as it was) — \(limit.remedy)")
        }
        if let folder, code == EACCES || code == EPERM || code == EROFS {
            return CommandFailure("cannot write \(destination): the folder \(folder) is not writable; check its permissions")
        }
        return CommandFailure("cannot write \(destination): \(String(cString: strerror(code))); nothing was changed (\(destination) is as it was) — check the path and the disk")
    }

    /// Gives `temporary` the permission bits of `target` when that exists, so replacing a file keeps
    /// who may read it.
    static func keepPermissions(of target: String, on temporary: String) {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: target))?[.posixPermissions] as? Int else { return }
        try? FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: temporary)
    }

    /// The device and inode of the file at `path` (following links), or nil when there is none.
    private static func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }
}
