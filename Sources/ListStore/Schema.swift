import ListStoreMigrations
import SQLiteLayer
import Synchronization

/// The schema this build of ListStore writes and understands.
enum Schema {
    /// `PRAGMA application_id` of every ListStore file: "List" in ASCII.
    static let applicationID: Int32 = 0x4C69_7374

    /// The migrations compiled into the binary; the version is the file name's number.
    static let migrations: [Migration] = MigrationFiles.all.map { file in
        Migration(version: Int(file.name.prefix { $0.isNumber }) ?? 0, name: file.name, sql: String(decoding: file.bytes, as: UTF8.self))
    }

    static let migrator = Migrator(migrations: migrations, applicationID: applicationID)

    /// One entry of `sqlite_schema`.
    struct Object: Hashable, Sendable, CustomStringConvertible {
        let type: String
        let name: String
        let sql: String?
        var description: String { "\(type) \(name)" }
    }

    private static let expectedByVersion = Mutex<[Int: Set<Object>]>([:])

    /// Exactly the schema objects a file of `version` has: made once per process by migrating an
    /// in-memory database, so it can never drift from `Migrations/`.
    static func expectedObjects(version: Int) throws -> Set<Object> {
        if let known = expectedByVersion.withLock({ $0[version] }) { return known }
        let db = try Connection(path: ":memory:", mode: .readWriteCreate)
        try Migrator(migrations: Array(migrations.prefix(version)), applicationID: applicationID).migrate(db)
        let objects = try objects(in: db)
        expectedByVersion.withLock { $0[version] = objects }
        return objects
    }

    /// The schema objects of the file behind `db`.
    static func objects(in db: Connection) throws -> Set<Object> {
        Set(try db.cached("SELECT type, name, sql FROM sqlite_schema").bind([]).map { Object(type: $0.text(0), name: $0.text(1), sql: $0.optionalText(2)) })
    }

    /// What differs between the file's schema and the one its version should have; empty when they match.
    static func differences(in db: Connection, version: Int) throws -> [String] {
        let expected = try expectedObjects(version: version)
        let actual = try objects(in: db)
        let expectedNames = Dictionary(expected.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let actualNames = Dictionary(actual.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var differences: [String] = []
        for object in actual.sorted(by: { $0.name < $1.name }) {
            if let wanted = expectedNames[object.name] {
                if wanted != object { differences.append("\(object) was changed") }
            } else {
                differences.append("\(object) is not part of ListStore's schema")
            }
        }
        for object in expected.sorted(by: { $0.name < $1.name }) where actualNames[object.name] == nil {
            differences.append("\(object) is missing")
        }
        return differences
    }
}
