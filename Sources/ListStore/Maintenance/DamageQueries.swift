import SQLiteLayer

/// Rows whose section no longer exists (a section deleted by hand with foreign keys off, as the
/// `sqlite3` shell and Python's `sqlite3` have them by default). Reads never show them; repair moves
/// them into a new section so that nothing is lost.
struct StoreDamage {
    let missingSectionID: Int64
    let count: Int
    let lowestRowID: Int64
    let highestRowID: Int64

    var problem: IntegrityProblem {
        let rows = count == 1 ? "row #\(lowestRowID) belongs" : "\(count) rows (#\(lowestRowID)…#\(highestRowID)) belong"
        return IntegrityProblem("\(rows) to section #\(missingSectionID), which does not exist (deleted outside ListStore): no read shows them")
    }

    static func orphans(_ db: Connection) throws -> [StoreDamage] {
        try db.cached(
            """
            SELECT r.section_id, count(*), min(r.id), max(r.id) FROM rows AS r
            WHERE NOT EXISTS (SELECT 1 FROM sections AS s WHERE s.id = r.section_id)
            GROUP BY r.section_id ORDER BY r.section_id
            """
        ).bind([]).map { StoreDamage(missingSectionID: $0.int64(0), count: $0.int(1), lowestRowID: $0.int64(2), highestRowID: $0.int64(3)) }
    }
}

/// Titles and payloads written by hand that ListStore itself would never write: empty or NUL-bearing
/// titles, text that is not UTF-8, payloads that are not JSON. Reads show them as they are; an import
/// would refuse them, so `check` reports them with the SQL that fixes them (repair leaves data alone).
enum ValueDamage {
    /// At most this many ids are named per kind of problem.
    static let namedLimit = 5

    static func scan(_ db: Connection) throws -> [IntegrityProblem] {
        var problems: [IntegrityProblem] = []
        for table in ["sections", "rows"] {
            let noun = table == "rows" ? "row" : "section"
            problems += try report(
                db, "SELECT id FROM \(table) WHERE title = ''", noun, "an empty title",
                "UPDATE \(table) SET title = '(untitled)' WHERE title = '';")
            problems += try report(
                db, "SELECT id FROM \(table) WHERE instr(title, char(0)) > 0", noun, "a NUL character in its title",
                "UPDATE \(table) SET title = substr(title, 1, instr(title, char(0)) - 1) || substr(title, instr(title, char(0)) + 1) WHERE instr(title, char(0)) > 0; (removes one NUL per run: repeat while check reports it)"
            )
            problems += try invalidUTF8(db, table: table, column: "title", noun: noun)
        }
        problems += try report(
            db, "SELECT id FROM rows WHERE payload IS NOT NULL AND NOT json_valid(payload)", "row",
            "a payload that is not valid JSON",
            "UPDATE rows SET payload = json_quote(payload) WHERE payload IS NOT NULL AND NOT json_valid(payload); (keeps each as a JSON string)")
        problems += try invalidUTF8(db, table: "rows", column: "payload", noun: "row")
        problems += try tooDeep(db)
        return problems
    }

    /// Payloads nested deeper than ``ListStore/maximumPayloadDepth`` (written by hand: ListStore refuses
    /// them), which newer SQLite's JSON functions cannot read and an import refuses. Only payloads long
    /// enough to be that deep are looked at.
    private static func tooDeep(_ db: Connection) throws -> [IntegrityProblem] {
        var ids: [Int64] = []
        var count = 0
        try db.cached("SELECT id, payload FROM rows WHERE payload IS NOT NULL AND length(payload) > ?1")
            .bind([.int(PayloadDepth.maximum)]).forEachRow { row in
                guard (try? PayloadDepth.check(row.text(1))) == nil else { return }
                count += 1
                if ids.count < namedLimit { ids.append(row.int64(0)) }
            }
        guard count > 0, let first = ids.first else { return [] }
        return [
            IntegrityProblem(
                describe("row", ids, count) + " \(count == 1 ? "has" : "have") a payload nested deeper than \(PayloadDepth.maximum) levels",
                isRepairable: false,
                remedy: "UPDATE rows SET payload = json_quote(payload) WHERE id = \(first); (keeps it as a JSON string; one statement per row)")
        ]
    }

    private static func report(_ db: Connection, _ query: String, _ noun: String, _ what: String, _ remedy: String) throws -> [IntegrityProblem] {
        var ids: [Int64] = []
        var count = 0
        try db.cached(query).bind([]).forEachRow { row in
            count += 1
            if ids.count < namedLimit { ids.append(row.int64(0)) }
        }
        guard count > 0 else { return [] }
        return [IntegrityProblem(describe(noun, ids, count) + " \(count == 1 ? "has" : "have") \(what)", isRepairable: false, remedy: remedy)]
    }

    /// Text whose bytes are not UTF-8 (written as a blob cast to text): shown with replacement
    /// characters, so an export would not carry it as it is.
    private static func invalidUTF8(_ db: Connection, table: String, column: String, noun: String) throws -> [IntegrityProblem] {
        var ids: [Int64] = []
        var count = 0
        // Only text with a byte of 0x80 or more can be invalid; the GLOB keeps the scan to those. (GLOB reads
        // such a byte, or any sequence starting with one, as a character above U+007F or as U+FFFD, never as
        // printable ASCII; text that is all printable ASCII — most of it — is never decoded here.)
        try db.cached("SELECT id, hex(\(column)) FROM \(table) WHERE \(column) IS NOT NULL AND \(column) GLOB '*[^ -~]*'").bind([]).forEachRow { row in
            guard let bytes = decodeHex(row.text(1)), String(strictUTF8: bytes) == nil else { return }
            count += 1
            if ids.count < namedLimit { ids.append(row.int64(0)) }
        }
        guard count > 0, let first = ids.first else { return [] }
        let replacement = column == "payload" ? "NULL" : "'new title'"
        return [
            IntegrityProblem(
                describe(noun, ids, count) + " \(count == 1 ? "has" : "have") a \(column) that is not valid UTF-8",
                isRepairable: false,
                remedy: "UPDATE \(table) SET \(column) = \(replacement) WHERE id = \(first); (one statement per \(noun), with the \(column) you want)")
        ]
    }

    private static func describe(_ noun: String, _ ids: [Int64], _ count: Int) -> String {
        let named = ids.map { "#\($0)" }.joined(separator: ", ") + (count > ids.count ? " and \(count - ids.count) more" : "")
        return count == 1 ? "\(noun) \(named)" : "\(count) \(noun)s (\(named))"
    }

    private static func decodeHex(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

extension IDExhaustion {
    static func problems(_ db: Connection) throws -> [IntegrityProblem] {
        try states(db).compactMap { state in
            let noun = state.table == "rows" ? "row" : "section"
            if state.highestID == Int64.max {
                // The largest id below plus one; 1 when it is the only one (max() of nothing is NULL, which an id refuses).
                let next = "(SELECT coalesce(max(id), 0) + 1 FROM \(state.table) WHERE id < \(Int64.max))"
                let references =
                    state.table == "sections" ? " UPDATE rows SET section_id = (SELECT max(id) FROM sections WHERE id < \(Int64.max)) WHERE section_id = \(Int64.max);" : ""
                let move =
                    state.table == "sections" ? "UPDATE sections SET id = \(next) WHERE id = \(Int64.max);\(references)" : "UPDATE rows SET id = \(next) WHERE id = \(Int64.max);"
                return IntegrityProblem(
                    "\(noun) #\(state.highestID) has the largest possible id, so no \(noun) can be added", isRepairable: false,
                    remedy: "\(move) (gives it a free id), then `repair()`")
            }
            if state.sequence == Int64.max {
                return IntegrityProblem("the id sequence of \(state.table) (sqlite_sequence) is at the largest possible id, so no \(noun) can be added")
            }
            return nil
        }
    }
}
