import Foundation
import SQLiteLayer

/// Opens a file as a ListStore: recognises it before writing anything, then configures and migrates it.
struct StoreOpener {
    let path: String
    let mode: ListStore.AccessMode
    let busyTimeout: Int32

    func open() throws -> Connection {
        do {
            // Reading modes still open the file for writing when they can (and then refuse writes with
            // query_only): the last connection to close removes the -wal and -shm files, which a
            // read-only connection would leave behind.
            return try open(as: mode == .readWrite ? .readWriteCreate : .readWrite)
        } catch ListStoreError.readOnly where mode != .readWrite && !FileManager.default.fileExists(atPath: path + "-wal") {
            // SQLite cannot read a WAL file without a -shm file it can create. With no -wal file, no
            // writer is connected, so the file can be read as it is, without locks.
            return try open(as: .readOnlyImmutable)
        }
    }

    private func open(as connectionMode: Connection.Mode) throws -> Connection {
        try ListStore.translatingErrors {
            let connection = try Connection(path: path, mode: connectionMode)
            connection.setBusyTimeout(milliseconds: busyTimeout)
            try connection.enableDefensiveMode()
            try connection.run("PRAGMA foreign_keys = ON")
            if mode != .inspect { try checkFileSize() }
            try recognise(connection)
            if mode != .inspect { try probe(connection) }
            guard mode == .readWrite else {
                try connection.run("PRAGMA query_only = ON")
                let version = try Migrator.version(of: connection)
                if mode == .readOnly && version < Schema.migrator.latestVersion {
                    throw ListStoreError.needsMigration(path: path, fileVersion: version, supportedVersion: Schema.migrator.latestVersion)
                }
                return connection
            }
            if path != ":memory:", try connection.scalarText("PRAGMA journal_mode")?.lowercased() != "wal" {
                try connection.run("PRAGMA journal_mode = WAL")
            }
            try connection.run("PRAGMA synchronous = NORMAL")
            // Another process may have changed the file since `recognise`; check again under the write lock.
            try Schema.migrator.migrate(connection, validate: recognise)
            return connection
        }
    }

    /// Throws unless the file is empty (new) or a ListStore file this build can read, with exactly the
    /// schema its version should have. Only reads. (`inspect` mode accepts an altered schema.)
    private func recognise(_ connection: Connection) throws {
        let applicationID: Int
        let version: Int
        let objectCount: Int
        do {
            applicationID = try connection.scalarInt("PRAGMA application_id") ?? 0
            version = try Migrator.version(of: connection)
            objectCount = try connection.scalarInt("SELECT count(*) FROM sqlite_schema") ?? 0
        } catch let error as SQLiteError where error.isCorruptOrNotADatabase {
            if FileHeader(path: path)?.applicationID == Int(Schema.applicationID) {
                throw ListStoreError.corrupt("\(path): \(error.message)")
            }
            throw ListStoreError.notAListStore(path: path, reason: "not a SQLite database, or a damaged one: \(error.message)")
        }
        if applicationID == 0 && version == 0 && objectCount == 0 { return }  // a new, empty file
        guard applicationID == Int(Schema.applicationID) else {
            let reason = applicationID == 0
                ? "a SQLite database of another application: it has \(objectCount) schema objects and no ListStore application_id"
                : "a SQLite database of another application: its application_id is \(applicationID)"
            throw ListStoreError.notAListStore(path: path, reason: reason)
        }
        if version > Schema.migrator.latestVersion {
            throw ListStoreError.newerSchema(path: path, fileVersion: version, supportedVersion: Schema.migrator.latestVersion)
        }
        if mode != .inspect, let difference = try Schema.differences(in: connection, version: version).first {
            throw ListStoreError.schemaAltered(path: path, detail: difference)
        }
    }

    /// A ListStore file shorter than its header says was truncated. Checked only when no -wal file
    /// holds newer pages, and only for files that carry ListStore's application id.
    private func checkFileSize() throws {
        guard path != ":memory:", !FileManager.default.fileExists(atPath: path + "-wal"),
              let header = FileHeader(path: path), header.applicationID == Int(Schema.applicationID),
              let expected = header.declaredSize,
              let fileSize = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int else { return }
        if fileSize < expected {
            throw ListStoreError.corrupt("\(path) is \(fileSize) bytes but its header says \(expected): it was truncated")
        }
    }

    /// Reads the root and edge pages of the tables and indexes, so a damaged file fails here,
    /// before anything is written, rather than halfway through an edit.
    private func probe(_ connection: Connection) throws {
        guard try Migrator.version(of: connection) > 0 else { return }
        do {
            _ = try connection.scalarInt("""
                SELECT (SELECT count(*) FROM sections) + coalesce((SELECT max(id) FROM rows), 0) + coalesce((SELECT min(id) FROM rows), 0)
                     + coalesce((SELECT max(position) FROM rows WHERE section_id = (SELECT min(id) FROM sections)), 0)
                """)
        } catch let error as SQLiteError where error.isCorruptOrNotADatabase {
            throw ListStoreError.corrupt("\(path): \(error.message)")
        }
    }
}

/// The 100-byte header of a SQLite file, read directly (see SQLite's file format, section 1.3).
struct FileHeader {
    let bytes: [UInt8]

    /// Reads the header of `path`; nil when it is not a SQLite file (or cannot be read).
    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 100), data.count == 100,
              data.starts(with: Array("SQLite format 3\u{0}".utf8)) else { return nil }
        bytes = [UInt8](data)
    }

    private func bigEndian(_ offset: Int, _ count: Int) -> Int { bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) } }

    /// `PRAGMA application_id`, stored at offset 68.
    var applicationID: Int { bigEndian(68, 4) }

    /// Page size × page count, when the in-header page count is valid ("version-valid-for" equals
    /// the change counter).
    var declaredSize: Int? {
        let rawPageSize = bigEndian(16, 2)
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let pageCount = bigEndian(28, 4)
        guard pageCount > 0, bigEndian(92, 4) == bigEndian(24, 4) else { return nil }
        return pageSize * pageCount
    }
}
