import Foundation
import SQLiteLayer

/// FTS5's `bm25` for title words (``RowSearch/ranked``), computed in Swift for the rows the index cannot
/// score — rows noted stale, and every row of a file without the index — exactly as FTS5 computes it from
/// its index, so that the two orders agree.
///
/// For each typed word (one FTS5 phrase) `bm25` adds `idf × f × (k1 + 1) / (f + k1 × (1 − b + b × D / avgdl))`,
/// with `k1` 1.2 and `b` 0.75: `f` the word's occurrences in the title, `D` the title's length in tokens,
/// `avgdl` the mean length, `idf` `log((N − n + 0.5) / (n + 0.5))` (at least 1e-6) for `N` titles of which `n`
/// hold the word; and it returns the sum negated (smaller is better). As the index has no column sizes
/// (`columnsize = 0`), FTS5 measures `D` by tokenizing the title as stored (`rows.title`, not the spaced
/// text it indexed: a run of Chinese characters is one token there), and `avgdl` from the tokens it indexed.
struct TitleRanking {
    /// `N`, and the tokens of all titles.
    let rowCount: Int64
    let tokenCount: Int64
    /// `n` for each word.
    let holding: [Int64]

    /// The score of a row titled `title`, holding each word `occurrences[i]` times.
    func score(occurrences: [Int], title: String) -> Double {
        let k1 = 1.2
        let b = 0.75
        let length = Double(TitleWordQuery.tokens(of: title, keepingAccents: false).count)
        // An index emptied by hand, with rows noted since: any finite mean, as every score is then alike.
        let average = rowCount > 0 && tokenCount > 0 ? Double(tokenCount) / Double(rowCount) : 1
        var score = 0.0
        // The operations in FTS5's order (fts5_aux.c, fts5Bm25Function), so that the results are the same doubles.
        for (word, count) in holding.enumerated() {
            var idf = log((Double(rowCount) - Double(count) + 0.5) / (Double(count) + 0.5))  // counts read from the file: no Int64 arithmetic
            if idf <= 0.0 { idf = 1e-6 }
            let f = Double(occurrences[word])
            score += idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * length / average)))
        }
        return -1.0 * score
    }

    /// The statistics FTS5 ranks by: its row and token counts, which it keeps in its `averages` record
    /// (`liststore_title_words_data`, id 1: two SQLite varints, rows then tokens, for the one column), and
    /// the rows whose words hold each of `words`.
    static func fromIndex(_ words: TitleWordQuery, _ db: Connection) throws -> TitleRanking {
        let record = try db.scalarText("SELECT hex(block) FROM liststore_title_words_data WHERE id = 1") ?? ""
        var bytes: [UInt8] = []
        var digits = record.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            guard let byte = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { break }
            bytes.append(byte)
        }
        var offset = 0
        // No record: an index that has held no row yet, which FTS5 reads as zeros.
        guard !bytes.isEmpty else { return TitleRanking(rowCount: 0, tokenCount: 0, holding: words.phraseExpressions.map { _ in 0 }) }
        guard let rows = SQLiteVarint.read(bytes, &offset).map(Int64.init(bitPattern:)), let tokens = SQLiteVarint.read(bytes, &offset).map(Int64.init(bitPattern:)) else {
            throw ListStoreError.corrupt(
                "the index of titles holds no readable row count to rank by (liststore_title_words_data, id 1); repair() (liststore repair) makes the index again")
        }
        let count = try db.cached("SELECT count(*) FROM liststore_title_words WHERE liststore_title_words MATCH ?1")
        let holding = try words.phraseExpressions.map { try count.bind([.text($0)]).first { $0.int64(0) } ?? 0 }
        return TitleRanking(rowCount: rows, tokenCount: tokens, holding: holding)
    }

    /// The statistics as the index would hold them, from every title of the file, read and tokenized here.
    static func fromTitles(_ words: TitleWordQuery, _ db: Connection) throws -> TitleRanking {
        var rows: Int64 = 0
        var tokens: Int64 = 0
        var holding = [Int64](repeating: 0, count: words.indexedPhrases.count)
        try db.cached("SELECT title FROM rows").bind([]).forEachRow { row in
            let titleTokens = TitleWordQuery.tokens(of: TitleWords.indexed(row.text(0)), keepingAccents: false)
            rows += 1
            tokens += Int64(titleTokens.count)
            for (word, count) in words.occurrences(inIndexedTokens: titleTokens).enumerated() where count > 0 { holding[word] += 1 }
        }
        return TitleRanking(rowCount: rows, tokenCount: tokens, holding: holding)
    }
}
