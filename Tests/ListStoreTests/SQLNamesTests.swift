import Testing

@testable import ListStore

/// The tokenizer that decides whether another program's trigger mentions ListStore's tables.
@Suite struct SQLNamesTests {
    @Test func quotedNamesAreUnquotedAndCommentsSkipped() {
        let sql = """
            CREATE TRIGGER t AFTER INSERT ON inbox -- rows in a comment
            BEGIN /* sections */ INSERT INTO "ro""ws" VALUES ('it''s'); DELETE FROM [rows]; UPDATE `sec``tions` SET x=1; SELECT main.rows_2, $v; END
            """
        #expect(
            SQLNames.tokens(in: sql) == [
                "CREATE", "TRIGGER", "t", "AFTER", "INSERT", "ON", "inbox", "BEGIN", "INSERT", "INTO", "ro\"ws",
                "VALUES", "it's", "DELETE", "FROM", "rows", "UPDATE", "sec`tions", "SET", "x", "1",
                "SELECT", "main", "rows_2", "$v", "END",
            ])
    }

    @Test func unterminatedTokensEndAtTheEnd() {
        #expect(SQLNames.tokens(in: "SELECT 'rows") == ["SELECT", "rows"])
        #expect(SQLNames.tokens(in: "/* x") == [])
        #expect(SQLNames.tokens(in: "a [b") == ["a", "b"])
    }
}
