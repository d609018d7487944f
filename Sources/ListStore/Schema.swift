import ListStoreMigrations
import SQLiteLayer

/// The schema this build of ListStore writes and understands.
enum Schema {
    /// `PRAGMA application_id` of every ListStore file: "List" in ASCII.
    static let applicationID: Int32 = 0x4C69_7374

    /// The migrations compiled into the binary; the version is the file name's number.
    static let migrations: [Migration] = MigrationFiles.all.map { file in
        Migration(version: Int(file.name.prefix { $0.isNumber }) ?? 0, name: file.name, sql: String(decoding: file.bytes, as: UTF8.self))
    }

    static let migrator = Migrator(migrations: migrations, applicationID: applicationID)

    /// The tables, indexes and views a ListStore file has; anything else was not made by us.
    static let expectedObjects: Set<String> = [
        "sections", "rows", "list_rows", "sqlite_sequence",
        "rows_counted_on_insert", "rows_counted_on_delete", "rows_counted_on_section_change",
    ]
}
