/// One write transaction's edit events, list by list (schema 8: a file holds several lists, each with
/// its own index paths). Each list's events are in that list's coordinates; a row or section moved to
/// another list is deleted from its list's events and inserted into the other's, and its id is noted in
/// ``arrivedRows`` or ``arrivedSections`` (an insertion of an id older than the transaction is believed
/// only for those).
struct ListedEvents: Sendable, Hashable {
    /// The events of each list the transaction changed, by list id, in the order they happened.
    var lists: [Int64: [EditEvent]] = [:]
    /// Rows that came from another list in this transaction (their ids are not new).
    var arrivedRows: [Int64] = []
    /// Sections that came from another list in this transaction (their ids are not new).
    var arrivedSections: [Int64] = []

    /// The events of a transaction that changed one list.
    init(_ events: [EditEvent], list: Int64) {
        if !events.isEmpty { lists[list] = events }
    }

    /// Events of several lists.
    init(lists: [Int64: [EditEvent]], arrivedRows: [Int64] = [], arrivedSections: [Int64] = []) {
        self.lists = lists.filter { !$0.value.isEmpty }
        self.arrivedRows = arrivedRows
        self.arrivedSections = arrivedSections
    }

    /// The events of list `list` (none when the transaction did not change it).
    func events(of list: Int64) -> [EditEvent] { lists[list] ?? [] }
}
