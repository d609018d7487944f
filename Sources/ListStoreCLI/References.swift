import ListStore

/// A row named on the command line: by index path (`S:R`, as `show` prints it) or by id (`id:N`, as
/// `show --json` prints it). An id keeps naming the same row whatever other processes insert, delete or
/// move before the command runs.
enum RowReference: Hashable {
    case path(ListIndexPath)
    case id(RowID)

    /// Parses `S:R` or `id:N`; anything else is a usage error that shows both forms.
    static func parse(_ text: String, usage: @autoclosure () -> String) throws -> RowReference {
        if let id = try IDText.parse(text, usage: usage()) { return .id(RowID(rawValue: id)) }
        guard let path = ListIndexPath(text) else {
            throw UsageError(
                "\(quoted(text)) is not an index path or id: write SECTION:ROW with zero-based numbers (e.g. 0:1), or id:N with the row's id (e.g. id:18)",
                usage: usage())
        }
        return .path(path)
    }
}

/// A section named on the command line: by index (`2`) or by id (`id:N`).
enum SectionReference: Hashable {
    case index(Int)
    case id(SectionID)

    /// Parses a zero-based index or `id:N`; `what` names the argument in errors (`SECTION`, `INDEX`).
    static func parse(_ text: String, _ what: String, usage: @autoclosure () -> String) throws -> SectionReference {
        if let id = try IDText.parse(text, usage: usage()) { return .id(SectionID(rawValue: id)) }
        guard let index = DecimalInteger.parse(text[...]) else {
            throw UsageError(
                "\(what) must be a non-negative whole number (the section's index) or id:N (its id), not \(quoted(text))",
                usage: usage())
        }
        return .index(index)
    }
}

/// The `id:N` form: `id:` then 1 to 18 decimal digits (what `show --json` prints for ids up to
/// 999,999,999,999,999,999; the same limit as indexes, so no number overflows).
enum IDText {
    static let prefix = "id:"

    /// The id in `text`, nil when `text` does not start with `id:`; a usage error when it does but
    /// what follows is not an id.
    static func parse(_ text: String, usage: @autoclosure () -> String) throws -> Int64? {
        guard text.hasPrefix(prefix) else { return nil }
        let digits = text.dropFirst(prefix.count)
        guard let value = DecimalInteger.parse(digits) else {
            throw UsageError(
                "\(quoted(text)) is not an id: write id:N with N the id (1 to 18 digits) that `show --json` prints, e.g. id:18",
                usage: usage())
        }
        return Int64(value)
    }
}

extension ParsedCommand {
    /// An argument naming a row: `S:R` or `id:N`.
    func row(_ text: String) throws -> RowReference {
        try RowReference.parse(text, usage: spec.usage)
    }

    /// An argument naming a section: an index or `id:N`; `what` names it in errors.
    func section(_ text: String, _ what: String) throws -> SectionReference {
        try SectionReference.parse(text, what, usage: spec.usage)
    }

    /// An argument naming a destination index path (`S:R` only: where the row is after the move).
    func destination(_ text: String) throws -> ListIndexPath {
        if text.hasPrefix(IDText.prefix) {
            throw usageError("the destination \(quoted(text)) must be an index path S:R (where the row is after the move), not an id")
        }
        return try indexPath(text)
    }
}

extension ListTransaction {
    /// The id of the row `reference` names now, inside this transaction (an index path is resolved
    /// with the same checks an edit runs).
    func rowID(_ reference: RowReference) throws -> RowID {
        switch reference {
        case .id(let id): return id
        case .path(let path): return try row(at: path).id
        }
    }

    /// The id of the section `reference` names now, inside this transaction.
    func sectionID(_ reference: SectionReference) throws -> SectionID {
        switch reference {
        case .id(let id): return id
        case .index(let index): return try section(at: index).id
        }
    }
}

extension AsOfTransaction {
    /// The id of the row a reference names: by id, or the row shown at an index path at the transaction's version.
    func rowID(_ reference: RowReference) throws -> RowID {
        switch reference {
        case .id(let id): return id
        case .path(let path): return try row(at: path).id
        }
    }

    /// The id of the section a reference names: by id, or the section shown at an index at the transaction's version.
    func sectionID(_ reference: SectionReference) throws -> SectionID {
        switch reference {
        case .id(let id): return id
        case .index(let index): return try current.section(at: try self.index(ofSectionDrawnAt: index)).id
        }
    }
}
