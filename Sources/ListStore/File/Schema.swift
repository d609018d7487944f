import ListStoreMigrations
import SQLiteLayer

/// The schema this build of ListStore writes and understands.
enum Schema {
    /// `PRAGMA application_id` of every ListStore file: "List" in ASCII.
    static let applicationID: Int32 = 0x4C69_7374

    /// The migrations compiled into the binary; the version is the file name's number.
    static let migrations: [Migration] = MigrationFiles.all.map { file in
        var migration = Migration(version: Int(file.name.prefix { $0.isNumber }) ?? 0, name: file.name, sql: String(decoding: file.bytes, as: UTF8.self))
        if migration.version == 8 {
            // 0008 rebuilds `sections`: other programs' foreign keys into it are parked too (see ListsMigration).
            migration.before = { try ListsMigration.parkForeignReferences($0) }
            migration.after = { try ListsMigration.parkForeignReferences($0) }
        }
        if migration.version == 15 { migration.after = { try BaseOrderKeys.give($0) } }
        return migration
    }

    static let migrator = Migrator(migrations: migrations, applicationID: applicationID)

    /// One entry of `sqlite_schema` (declared in Core, so that the generated ``SchemaSnapshot`` can sit below this layer).
    typealias Object = SchemaObject

    private static let expectedByVersion = Locked<[Int: Set<Object>]>([:])

    /// Exactly the schema objects a file of `version` has. The latest version's are compiled in
    /// (``SchemaSnapshot``, which `SchemaSnapshotTests` proves equal to what the migrations make), so that
    /// recognising a current file does not run every migration in memory first (about 10 ms of CPU time of a
    /// one-row `liststore add`); any other version's are made once per process by ``migratedObjects(version:)``.
    static func expectedObjects(version: Int) throws -> Set<Object> {
        if version == SchemaSnapshot.version { return SchemaSnapshot.objects }
        return try migratedObjects(version: version)
    }

    /// The schema objects of a file of `version` as the migrations make them: made once per process by
    /// migrating an in-memory database, so they can never drift from `Migrations/`.
    static func migratedObjects(version: Int) throws -> Set<Object> {
        if let known = expectedByVersion.withLock({ $0[version] }) { return known }
        let db = try Connection(path: ":memory:", mode: .readWriteCreate)
        try Migrator(migrations: Array(migrations.prefix(version)), applicationID: applicationID).migrate(db)
        let objects = try objects(in: db)
        expectedByVersion.withLock { $0[version] = objects }
        return objects
    }

    /// The schema objects of the file behind `db`.
    static func objects(in db: Connection) throws -> Set<Object> {
        Set(
            try db.cached("SELECT type, name, tbl_name, sql FROM sqlite_schema").bind([]).map {
                Object(type: $0.text(0), name: $0.text(1), table: $0.text(2), sql: $0.optionalText(3))
            })
    }

    /// What in the file's schema ListStore refuses to work with; empty when it can work with the file.
    ///
    /// ListStore's own tables, indexes, triggers and views must be exactly those its version creates
    /// (one missing or changed is reported). Objects of other programs in the same file — ANALYZE's
    /// `sqlite_stat*` tables, Litestream's `_litestream_*` tables, an app's tables, views and indexes — are
    /// tolerated, except those that could change ListStore's data behind its back or make its writes
    /// fail (see ``ForeignObjectRules``).
    static func differences(in db: Connection, version: Int) throws -> [String] {
        let expected = try expectedObjects(version: version)
        let actual = try objects(in: db)
        let expectedNames = Dictionary(expected.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        let actualNames = Dictionary(actual.map { ($0.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var differences: [String] = []
        var foreign: [Object] = []
        for object in actual.sorted(by: { $0.name < $1.name }) {
            if let wanted = expectedNames[object.name.lowercased()] {
                if wanted != object { differences.append("\(object) was changed") }
            } else {
                foreign.append(object)
            }
        }
        for object in expected.sorted(by: { $0.name < $1.name }) where actualNames[object.name.lowercased()] == nil {
            differences.append("\(object) is missing")
        }
        let rules = ForeignObjectRules(
            tables: Set(expected.filter { $0.type == "table" }.map { $0.name.lowercased() }),
            views: Set(expected.filter { $0.type == "view" }.map { $0.name.lowercased() }))
        for object in foreign {
            differences += try rules.problems(with: object, in: db)
        }
        return differences
    }
}
