import Foundation
import SQLiteLayer

/// Opens a file as a ListStore: recognises it before writing anything, then configures and migrates it.
struct StoreOpener {
    let path: String
    let mode: ListStore.AccessMode
    let busyTimeout: Int32

    func open() throws -> Connection {
        do {
            return try open(as: mode == .readOnly ? .readOnly : .readWriteCreate)
        } catch ListStoreError.readOnly where mode == .readOnly && !FileManager.default.fileExists(atPath: path + "-wal") {
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
            try recognise(connection)
            guard mode == .readWrite else {
                let version = try Migrator.version(of: connection)
                if version < Schema.migrator.latestVersion {
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

    /// Throws unless the file is empty (new) or a ListStore file this build can read. Only reads.
    private func recognise(_ connection: Connection) throws {
        let applicationID: Int
        let version: Int
        let objectCount: Int
        do {
            applicationID = try connection.scalarInt("PRAGMA application_id") ?? 0
            version = try Migrator.version(of: connection)
            objectCount = try connection.scalarInt("SELECT count(*) FROM sqlite_schema") ?? 0
        } catch let error as SQLiteError where error.isCorruptOrNotADatabase {
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
    }
}
