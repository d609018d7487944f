import SQLiteLayer

extension CLIHarness {
    /// Runs `sql` on the file as another program would, in this process (the sqlite3 shell: foreign keys
    /// as `foreignKeys` says).
    func handEdit(foreignKeys: Bool, _ sql: String) throws {
        let db = try Connection(path: database, mode: .readWrite)
        try db.executeScript("PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF");\n" + sql)
    }
}
