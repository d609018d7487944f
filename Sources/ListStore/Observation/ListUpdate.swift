/// One element of ``ListStore/observe(includingOtherConnections:pollInterval:)``.
public enum ListUpdate: Sendable, Hashable {
    /// The state the observation starts from: always the first element, exactly once.
    case initial(ListSnapshot)
    /// What one commit changed — or several commits by other connections noticed in one poll — in
    /// commit order, with values. Applied to the state so far (``ListSnapshot/apply(_:)``), it gives
    /// the store's state after the commit.
    case changes(ChangeSet)
    /// The store changed in a way no change set describes: edits made outside ListStore that insert,
    /// delete or move rows or sections (the `sqlite3` shell, another program), or more commits than the
    /// change log keeps. This is the new state; a table view reloads its data.
    case reset(ListSnapshot)
}
