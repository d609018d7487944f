import Foundation

/// The words a person typed into a search bar, as ``RowSearch/titleWords`` and its options mean
/// them: every word must be in the title, in any order; a word is a phrase of the index's tokens (`e-mail`
/// is `e` followed by `mail`; `法師` is `法` followed by `師`); the last is a prefix unless
/// ``RowSearch/lastWordIsPrefix`` is false.
struct TitleWordQuery {
    /// The most words a search takes.
    static let maximumWords = 32

    /// The words, each ``TitleWords/prepared(_:)``, in the order typed.
    let words: [String]
    /// The same words as the index holds them (``TitleWords/indexed(_:)``), for the FTS5 query.
    let indexedWords: [String]
    let lastIsPrefix: Bool
    let matchesAccents: Bool

    init(_ text: String, lastIsPrefix: Bool, matchingAccents: Bool) throws {
        guard !ByteSearch.contains(0, in: text) else { throw ListStoreError.invalidSearch("the words contain a NUL character, which no title has") }
        guard text.utf8.count <= ListReader.maximumSearchTextLength else {
            throw ListStoreError.invalidSearch("the words are \(text.utf8.count) bytes long; search for at most \(ListReader.maximumSearchTextLength) bytes")
        }
        let typed = text.split(whereSeparator: \.isWhitespace).map(String.init).filter { !Self.tokens(of: TitleWords.indexed($0), keepingAccents: false).isEmpty }
        guard !typed.isEmpty else { throw ListStoreError.invalidSearch("the words have no letter or digit to search for") }
        // What the index matches one by one: each word's runs of letters and digits, and each Chinese, Japanese
        // or Thai character.
        let tokenCount = typed.reduce(0) { $0 + Self.tokens(of: TitleWords.indexed($1), keepingAccents: false).count }
        guard tokenCount <= Self.maximumWords else {
            throw ListStoreError.invalidSearch(
                "\(tokenCount) words were given (each Chinese, Japanese or Thai character is one, and so is each part of a word joined by punctuation); search for at most \(Self.maximumWords)"
            )
        }
        self.words = typed.map(TitleWords.prepared)
        indexedWords = typed.map(TitleWords.indexed)
        // A space typed after the last word ends it: the person has finished typing it.
        self.lastIsPrefix = lastIsPrefix && !(text.unicodeScalars.last.map { $0.properties.isWhitespace } ?? false)
        matchesAccents = matchingAccents
    }

    /// The FTS5 query: every word a quoted string (a `"` doubled), so that FTS5 reads no operator, `*`,
    /// `NEAR` or parenthesis in it; the last followed by `*` for a prefix.
    var expression: String { phraseExpressions.joined(separator: " ") }

    /// Each word alone as an FTS5 query (the last with `*` while a prefix): what FTS5's `bm25` counts the rows
    /// holding.
    var phraseExpressions: [String] {
        indexedWords.enumerated().map { index, word in
            "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + (lastIsPrefix && index == words.count - 1 ? " *" : "")
        }
    }

    /// Each word's tokens as the index holds them (accents removed).
    var indexedPhrases: [[String]] { indexedWords.map { Self.tokens(of: $0, keepingAccents: false) } }

    /// How many times each word occurs in `titleTokens` (a title's tokens as the index holds them), as FTS5
    /// counts a phrase's instances: at every token where the word's tokens start, the last compared as a
    /// prefix, byte by byte, while ``lastIsPrefix``.
    func occurrences(inIndexedTokens titleTokens: [String]) -> [Int] {
        indexedPhrases.enumerated().map { index, phrase in
            let prefix = lastIsPrefix && index == words.count - 1
            guard !phrase.isEmpty, titleTokens.count >= phrase.count else { return 0 }
            return (0...(titleTokens.count - phrase.count)).count { start in
                phrase.indices.allSatisfy { offset in
                    let token = titleTokens[start + offset]
                    return prefix && offset == phrase.count - 1 ? token.utf8.starts(with: phrase[offset].utf8) : token == phrase[offset]
                }
            }
        }
    }

    /// Whether `title` holds every word, judged in Swift as the index judges it (for rows noted stale,
    /// whose entries may be out of date), and with accents compared when ``matchesAccents``.
    func matches(_ title: String) -> Bool {
        let titleTokens = Self.tokens(of: TitleWords.prepared(title), keepingAccents: matchesAccents)
        for (index, word) in words.enumerated() {
            let phrase = Self.tokens(of: word, keepingAccents: matchesAccents)
            let prefix = lastIsPrefix && index == words.count - 1
            guard !phrase.isEmpty, titleTokens.count >= phrase.count else { return false }
            let found = (0...(titleTokens.count - phrase.count)).contains { start in
                phrase.indices.allSatisfy { offset in
                    let token = titleTokens[start + offset]
                    return prefix && offset == phrase.count - 1 ? token.hasPrefix(phrase[offset]) : token == phrase[offset]
                }
            }
            if !found { return false }
        }
        return true
    }

    /// `text`'s tokens as `unicode61` makes them: runs of letters, digits and private-use characters
    /// (marks kept with them), lowercased, and without their accents unless `keepingAccents`.
    static func tokens(of text: String, keepingAccents: Bool) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        let decomposed = text.decomposedStringWithCanonicalMapping
        for scalar in decomposed.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber, .letterNumber, .otherNumber,
                .privateUse:
                current.append(scalar)
            case .nonspacingMark, .spacingMark, .enclosingMark:
                if keepingAccents && !current.isEmpty { current.append(scalar) }
            default:
                if !current.isEmpty { tokens.append(String(current).lowercased().precomposedStringWithCanonicalMapping) }
                current = String.UnicodeScalarView()
            }
        }
        if !current.isEmpty { tokens.append(String(current).lowercased().precomposedStringWithCanonicalMapping) }
        return tokens
    }
}
