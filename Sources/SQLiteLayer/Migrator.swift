/// One schema change: a numbered SQL script.
package struct Migration: Sendable, Hashable {
    /// The schema version this migration produces (1, 2, …); stored in `PRAGMA user_version`.
    package let version: Int
    /// A short name, usually the file name, for error messages.
    package let name: String
    /// The SQL script.
    package let sql: String
    /// Runs in the same transaction just before the script, and `after` just after it: for what a script
    /// cannot say because it depends on the file (another program's tables, say).
    package var before: (@Sendable (Connection) throws -> Void)?
    package var after: (@Sendable (Connection) throws -> Void)?

    /// Creates a migration from its version, name and script.
    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    package static func == (lhs: Migration, rhs: Migration) -> Bool {
        lhs.version == rhs.version && lhs.name == rhs.name && lhs.sql == rhs.sql
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(name)
        hasher.combine(sql)
    }
}

/// Applies migrations in order, each in its own `BEGIN IMMEDIATE` transaction, recording the
/// version in `PRAGMA user_version`, so a crash leaves the file at a whole version.
package struct Migrator: Sendable {
    /// The migrations, by ascending version without gaps.
    package let migrations: [Migration]
    /// Written to `PRAGMA application_id` with the first migration, so the file can be recognised.
    package let applicationID: Int32

    /// Creates a migrator; `migrations` must be numbered 1, 2, … in order.
    package init(migrations: [Migration], applicationID: Int32) {
        self.migrations = migrations
        self.applicationID = applicationID
    }

    /// The version a fully migrated file has.
    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// The schema version recorded in the file.
    package static func version(of connection: Connection) throws -> Int {
        try connection.scalarInt("PRAGMA user_version") ?? 0
    }

    /// Applies every migration newer than the file's version. Each transaction re-reads the version,
    /// so two processes migrating the same file at once apply each step exactly once.
    /// `validate` runs inside each transaction before anything is written and may throw to refuse.
    package func migrate(_ connection: Connection, validate: (Connection) throws -> Void = { _ in }) throws {
        for migration in migrations {
            try connection.transaction(.immediate) {
                try validate(connection)
                try apply(migration, to: connection)
            }
        }
    }

    /// Applies every migration newer than the file's version inside the caller's open write transaction
    /// (`BEGIN IMMEDIATE`), so they commit — or roll back — together with what the caller then writes:
    /// a first edit that fails leaves the file at its old version, byte for byte.
    /// `validate` runs first, under the write lock, and may throw to refuse.
    package func migrateWithinTransaction(_ connection: Connection, validate: (Connection) throws -> Void = { _ in }) throws {
        guard !connection.isAutocommit else {
            throw SQLiteError(extendedCode: 1, message: "migrateWithinTransaction needs an open write transaction", sql: nil)
        }
        try validate(connection)
        for migration in migrations { try apply(migration, to: connection) }
    }

    /// Applies `migration` when the file (as the open transaction sees it) is older than it.
    private func apply(_ migration: Migration, to connection: Connection) throws {
        guard try Self.version(of: connection) < migration.version else { return }
        if migration.version == 1 {
            try connection.executeScript("PRAGMA application_id = \(applicationID)")
        }
        try migration.before?(connection)
        try connection.executeScript(migration.sql)
        try migration.after?(connection)
        // PRAGMA takes no bound parameters; the version is an integer from our own table.
        try connection.executeScript("PRAGMA user_version = \(migration.version)")
    }
}
