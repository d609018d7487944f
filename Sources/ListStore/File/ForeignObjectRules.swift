import SQLiteLayer

/// Which schema objects of other programs ListStore refuses to share a file with.
///
/// Other tools keep their own objects in the same file: `ANALYZE` and `PRAGMA optimize` add
/// `sqlite_stat1`/`sqlite_stat4`, Litestream adds `_litestream_seq` and `_litestream_lock`, an app adds its
/// own tables, views and indexes. Those are tolerated. Refused are only the objects that could change
/// ListStore's data behind its back or make its writes fail, because ListStore's edits and its
/// change sets assume that only its own statements (and its own triggers) touch its tables:
/// - a trigger on one of ListStore's tables or views;
/// - a trigger elsewhere whose text names one of ListStore's tables (it could write to them; read
///   conservatively: any mention counts);
/// - an index on ListStore's tables that is UNIQUE, partial, on an expression or with a collation
///   SQLite does not provide (each can refuse or fail a write ListStore validated);
/// - a foreign key into ListStore's tables that could refuse ListStore's deletes (anything but
///   `ON DELETE CASCADE`, or `SET NULL` on a nullable column, referencing the `id`).
struct ForeignObjectRules {
    /// ListStore's tables, lower-cased (`sections`, `rows`, `sqlite_sequence`).
    let tables: Set<String>
    /// ListStore's views, lower-cased (`list_rows`).
    let views: Set<String>

    /// Collations every SQLite has; an index with another one fails writes where it is not registered.
    private static let builtInCollations: Set<String> = ["binary", "nocase", "rtrim"]

    /// Why `object` (not one of ListStore's) is refused; empty when it is tolerated.
    func problems(with object: Schema.Object, in db: Connection) throws -> [String] {
        let owner = object.table.lowercased()
        switch object.type {
        case "trigger":
            if tables.contains(owner) || views.contains(owner) {
                return ["\(object) is not part of ListStore's schema and fires on changes to \(object.table)"]
            }
            if let named = SQLNames.tokens(in: object.sql ?? "").first(where: { tables.contains($0.lowercased()) }) {
                return ["\(object) is not part of ListStore's schema and its body names \(named): it could change ListStore's data"]
            }
            return []
        case "index" where tables.contains(owner):
            return try indexProblems(object, in: db)
        case "table":
            return try foreignKeyProblems(object, in: db)
        default:
            return []
        }
    }

    private func indexProblems(_ object: Schema.Object, in db: Connection) throws -> [String] {
        var problems: [String] = []
        let flags = try db.cached("SELECT \"unique\", partial FROM pragma_index_list(?1) WHERE name = ?2")
            .bind([.text(object.table), .text(object.name)]).first { ($0.int(0) != 0, $0.int(1) != 0) }
        if flags?.0 == true { problems.append("\(object) on \(object.table) is not part of ListStore's schema and is UNIQUE: it could refuse ListStore's writes") }
        if flags?.1 == true { problems.append("\(object) on \(object.table) is not part of ListStore's schema and is partial: its WHERE clause could fail ListStore's writes") }
        try db.cached("SELECT cid, coll FROM pragma_index_xinfo(?1) WHERE key = 1").bind([.text(object.name)]).forEachRow { column in
            if column.int(0) == -2 {
                problems.append("\(object) on \(object.table) is not part of ListStore's schema and indexes an expression: it could fail ListStore's writes")
            } else if let collation = column.optionalText(1), !Self.builtInCollations.contains(collation.lowercased()) {
                problems.append("\(object) on \(object.table) is not part of ListStore's schema and uses collation \(collation): it could fail ListStore's writes")
            }
        }
        return Array(Set(problems)).sorted()
    }

    private func foreignKeyProblems(_ object: Schema.Object, in db: Connection) throws -> [String] {
        struct Reference {
            var parent = ""
            var columns: [(from: String, to: String?)] = []
            var onDelete = ""
        }
        var references: [Int: Reference] = [:]
        try db.cached("SELECT id, \"table\", \"from\", \"to\", on_delete FROM pragma_foreign_key_list(?1)").bind([.text(object.name)]).forEachRow { row in
            references[row.int(0), default: Reference()].parent = row.text(1)
            references[row.int(0)]?.columns.append((row.text(2), row.optionalText(3)))
            references[row.int(0)]?.onDelete = row.text(4).uppercased()
        }
        var problems: [String] = []
        for (_, reference) in references.sorted(by: { $0.key < $1.key }) where tables.contains(reference.parent.lowercased()) {
            let column = reference.columns.count == 1 ? reference.columns[0] : nil
            let referencesID = column.map { $0.to == nil || $0.to?.lowercased() == "id" } ?? false
            var deletesCleanly = reference.onDelete == "CASCADE"
            if reference.onDelete == "SET NULL", let column {
                let notNull =
                    try db.cached("SELECT \"notnull\" FROM pragma_table_info(?1) WHERE name = ?2")
                    .bind([.text(object.name), .text(column.from)]).first { $0.int(0) != 0 } ?? true
                deletesCleanly = !notNull
            }
            if !referencesID || !deletesCleanly {
                problems.append(
                    "\(object) is not part of ListStore's schema and has a foreign key into \(reference.parent) that is not ON DELETE CASCADE (or SET NULL) on its id: it could refuse ListStore's deletes"
                )
            }
        }
        return problems
    }
}
