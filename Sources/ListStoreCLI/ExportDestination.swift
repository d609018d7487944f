import Foundation

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
    static func refuseDatabase(_ target: String, destination: String, database: String) throws {
        let refusal = CommandFailure("refusing to export over the database itself (\(destination)); choose another FILE")
        let targetURL = URL(fileURLWithPath: target).resolvingSymlinksInPath().standardizedFileURL
        for suffix in ["", "-wal", "-shm"] {
            let file = database + suffix
            if targetURL == URL(fileURLWithPath: file).resolvingSymlinksInPath().standardizedFileURL { throw refusal }
            if let one = identity(target), let other = identity(file), one == other { throw refusal }  // hard links too
        }
    }

    /// Refuses to replace a file that its permissions keep us from writing (as the shell's `>` would).
    static func refuseReadOnly(_ target: String, destination: String) throws {
        guard FileManager.default.fileExists(atPath: target), access(target, W_OK) != 0 else { return }
        throw CommandFailure("cannot write \(destination): the file is read-only; change its permissions or choose another FILE")
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
