/// A field of a row's JSON payload, by name: `city`, or `address.city` for a member of a member.
///
/// A name is one or more parts joined by `.`; each part is 1 to 64 of the ASCII letters, digits, `_` and
/// `-` (so `due-date` and `0` are names, and no name can carry SQL or JSON-path syntax); at most 8 parts.
/// It names the object member of that key, case-sensitively, as SQLite's `json_extract(payload, '$.name')`
/// reads it. Array elements cannot be named.
public struct PayloadField: Hashable, Sendable, CustomStringConvertible {
    /// The field's name, as given (`address.city`).
    public let name: String

    /// The longest part of a name, in characters.
    package static let maximumPartLength = 64
    /// The most parts a name may have.
    package static let maximumParts = 8

    /// The field named `name`; throws a ``ListStoreError/Family/invalidInput`` error (invalid payload field) for a name
    /// outside the rule above.
    public init(_ name: String) throws {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard !name.isEmpty else { throw ListStoreError.invalidPayloadField(name, reason: "a field name cannot be empty") }
        guard parts.count <= Self.maximumParts else {
            throw ListStoreError.invalidPayloadField(name, reason: "it has \(parts.count) parts; at most \(Self.maximumParts) are allowed")
        }
        for part in parts {
            guard !part.isEmpty else { throw ListStoreError.invalidPayloadField(name, reason: "it has an empty part (a leading, trailing or doubled .)") }
            guard part.utf8.count <= Self.maximumPartLength else {
                throw ListStoreError.invalidPayloadField(name, reason: "a part is longer than \(Self.maximumPartLength) characters")
            }
            if let bad = part.unicodeScalars.first(where: { !Self.allowed($0) }) {
                throw ListStoreError.invalidPayloadField(name, reason: "it contains \(Self.describe(bad)), which a field name cannot")
            }
        }
        self.name = name
    }

    /// The SQLite JSON path, `$.address.city`: built from checked characters only, none of which SQL or a
    /// JSON path gives a meaning to inside a part.
    var jsonPath: String { "$." + name }

    /// SQL for this field's value in the payload `column`, as a search compares it and an index entry
    /// holds it: `json_extract`'s, or NULL when the payload is not valid JSON or the value is an object or an
    /// array (whose JSON text `json_extract` gives, which a string would otherwise equal). Made of
    /// ``jsonPath``'s checked characters alone.
    func scalarValueSQL(of column: String) -> String {
        "CASE WHEN json_valid(\(column)) AND json_type(\(column), '\(jsonPath)') NOT IN ('object', 'array') THEN json_extract(\(column), '\(jsonPath)') END"
    }

    /// The name.
    public var description: String { name }

    private static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
        default: false
        }
    }

    private static func describe(_ scalar: Unicode.Scalar) -> String {
        scalar.isASCII && scalar.value >= 0x21 && scalar.value < 0x7F && scalar != "'" && scalar != "\""
            ? "'\(scalar)'" : "U+" + String(repeating: "0", count: max(0, 4 - String(scalar.value, radix: 16).count)) + String(scalar.value, radix: 16, uppercase: true)
    }
}

/// A value a payload field is compared with: `json_extract(payload, '$.field') = value`, so a JSON
/// string equals a ``string(_:)`` with the same characters (exactly: no case folding), a JSON number
/// equals an ``integer(_:)`` or ``double(_:)`` of the same value (`38` equals `38.0`), and JSON `true`
/// and `false` equal ``bool(_:)`` — and also the numbers 1 and 0, as SQLite reads them. A field that is
/// missing, `null`, an object or an array equals none of them.
public enum PayloadValue: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral
{
    /// A JSON string.
    case string(String)
    /// A JSON number that is a whole number.
    case integer(Int64)
    /// A JSON number; must be finite.
    case double(Double)
    /// JSON `true` or `false`.
    case bool(Bool)

    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A number value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A Boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// One condition of a search: the payload field `field` equals `value`.
public struct PayloadMatch: Hashable, Sendable {
    /// The field compared.
    public let field: PayloadField
    /// The value it must equal.
    public let value: PayloadValue

    /// The condition `field` = `value`.
    public init(_ field: PayloadField, equals value: PayloadValue) {
        self.field = field
        self.value = value
    }

    /// The condition that the field named `field` equals `value`; throws
    /// ``ListStoreError/invalidPayloadField(_:reason:)`` for a name ``PayloadField`` refuses.
    package init(field: String, equals value: PayloadValue) throws {
        self.init(try PayloadField(field), equals: value)
    }
}

/// What ``ListReader/findRows(_:limit:after:)`` looks for: rows whose title holds words (``titleWords``),
/// whose title contains a text, and whose payload fields equal values, all of them. A search with none of
/// them finds every row.
public struct RowSearch: Hashable, Sendable {
    /// Words the title must hold, as a person types them into a search bar: every word, in any order. Case
    /// is ignored in every script (`É` finds `é`, `Σ` finds `ς`, `STRASSE` finds `Straße`), and so are accents
    /// unless ``matchingAccents`` (`cafe` finds `Café`, `σισυφος` finds `Σίσυφος`: a mark of any script); the last word is the start of a title's word while
    /// ``lastWordIsPrefix`` (`caf` finds `Café`). A word is a run of letters and digits; punctuation inside
    /// one joins its parts as a phrase (`e-mail` finds `E-Mail`). In scripts written without spaces
    /// (Chinese, Japanese, Thai) every character is a word, so a run of them is found inside a title (`法`
    /// and `師` find `法師`). Quotes, `*`, `NEAR`, parentheses and the like are searched for as text, never
    /// read as query syntax. At most 10,000 bytes and 32 words (each Chinese, Japanese or Thai character, and each part of a word
    /// joined by punctuation, counting as one); text with no letter or digit is refused
    /// (``ListStoreError/Family/invalidInput``). Nil: any title.
    ///
    /// With the file's index of titles (``ListStore/addTitleIndex()``) a page takes milliseconds at
    /// 1,000,000 rows and carries the number of rows found (``SearchPage/total``); without it every title
    /// is read and judged in Swift (about 15 µs a title: seconds at 200,000 rows).
    public var titleWords: String?
    /// Whether the last of ``titleWords`` may be the start of a word, as the person is still typing it
    /// (`caf` finds `Café`); true unless set. Every other word is a whole word, and so is the last when a
    /// space follows it (`caf ` finds no `Café`: the person finished the word).
    public var lastWordIsPrefix = true
    /// Whether accents in ``titleWords`` count: `cafe` then does not find `Café`, `café` does (case is
    /// still ignored); false unless set.
    public var matchingAccents = false
    /// Whether the results come in display order — section by section, row by row, as a table view shows
    /// the list — rather than in id order (the order the rows were added); false unless set. Every page
    /// then reads all the rows the search finds to sort them (about 5 µs a row), and the next page continues
    /// after the cursor's row where it is now: a row moved across the cursor between pages may be passed
    /// over or come twice, and when the cursor's row is gone, the next page is empty.
    public var inDisplayOrder = false
    /// Whether the results come best match first, by ``titleWords``: by FTS5's `bm25` — a title holding the
    /// words more often, or shorter, ranks higher (each word weighing more the fewer titles of the file hold
    /// it; a run of Chinese or Japanese characters counts as one word of a title's length) — ties in id
    /// order; false unless set. With the index of titles (``ListStore/addTitleIndex()``) FTS5 scores every
    /// row found before the first page (about 1.7 µs a row: 0.16 s for 100,000). Rows written by other programs
    /// since ListStore's last write, and every row of a file without the index (whose titles a page then
    /// reads twice), are scored in Swift by the same formula and statistics: the order is the same with and
    /// without the index. Pages follow one another by score and id: while the file is unchanged they return
    /// every row found once; when the cursor's row no longer holds the words, the next page is empty.
    /// Requires ``titleWords`` and is not ``inDisplayOrder`` (else ``ListStoreError/Family/invalidInput``).
    public var ranked = false
    /// Text the title must contain, ignoring the case of ASCII letters only (SQLite's `LIKE`: `a` finds
    /// `A`, but `é` does not find `É` and `ß` does not find `SS`; other characters match exactly, by
    /// Unicode scalar, with no normalization). `%`, `_` and `\` are matched as themselves. Read row by
    /// row, never from an index. Nil or empty: any title.
    public var titleContains: String?
    /// Conditions on payload fields, all of which must hold.
    public var payloadMatches: [PayloadMatch]

    /// A search for rows whose title holds `titleWords`, contains `titleContains`, and whose payload meets
    /// every condition of `matches`.
    public init(titleWords: String? = nil, titleContains: String? = nil, where matches: [PayloadMatch] = []) {
        self.titleWords = titleWords
        self.titleContains = titleContains
        self.payloadMatches = matches
    }
}

/// Where the next page of a search starts: after the last row of the page before, by id. Results come
/// in id order, and ids never change and are never reused, so a page asked with the cursor of the one
/// before returns none of the rows it returned, whatever was edited in between, and misses none that
/// matched throughout. A row added since comes on a later page (its id is larger than every earlier
/// one); a row edited to match only after the pages passed it is not returned. In display order
/// (``RowSearch/inDisplayOrder``) and best match first (``RowSearch/ranked``) the next page continues after
/// the cursor's row where it is now (its place, or its score and id).
public struct SearchCursor: Hashable, Sendable, Codable {
    /// The id of the last row the page before returned (or passed).
    public let lastRowID: RowID

    /// The cursor that continues after the row with id `row`.
    public init(after row: RowID) { lastRowID = row }
}

/// One row a search found, with its index path when the page was read.
public struct SearchResult: Hashable, Sendable, Identifiable {
    /// The row, as stored.
    public let row: ListRow
    /// Its index path in the state the page was read from (``SearchPage/version``).
    public let indexPath: ListIndexPath

    /// The row's id.
    public var id: RowID { row.id }
}

/// One page of a search, read in one read transaction.
public struct SearchPage: Hashable, Sendable {
    /// The rows found, in id order (the order they were created), in display order
    /// (``RowSearch/inDisplayOrder``) or best match first (``RowSearch/ranked``), at most the limit asked for.
    public let results: [SearchResult]
    /// Where the next page starts; nil when this page holds the last rows found.
    public let next: SearchCursor?
    /// The state the page was read from: its index paths are that state's.
    public let version: ListVersion
    /// How many rows of the list the whole search finds in that state, on every page: counted when the
    /// search has ``RowSearch/titleWords``; nil otherwise (counting would read every row).
    public var total: Int? = nil
}
