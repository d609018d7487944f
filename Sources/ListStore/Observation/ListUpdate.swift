/// One element of ``ListStore/observe(includingOtherConnections:pollInterval:startingWith:)``.
public enum ListUpdate: Sendable, Hashable {
    /// The state the observation starts from: always the first element, exactly once.
    case initial(ListSnapshot)
    /// What one commit changed — or several commits by other connections noticed in one poll — in
    /// commit order, with values. Applied to the state so far (``ListSnapshot/apply(_:)``), it gives
    /// the store's state after the commit.
    case changes(ChangeSet)
    /// The store changed in a way no change set describes: edits made outside ListStore that insert,
    /// delete or move rows or sections (the `sqlite3` shell, another program), or more commits than the
    /// change log keeps. This is the new state; a table view reloads its data. Observers that started
    /// with `startingWith: .marker` get ``invalidated`` instead, and nothing is read for them.
    case reset(ListSnapshot)
    /// The first element instead of ``initial(_:)`` when observing with `startingWith: .marker`: observation
    /// has started, and no state was read. Every commit after this element's position arrives; read
    /// what you show after receiving it, and apply updates by id, since a commit made between the two
    /// may arrive although your read already shows it.
    case started
    /// ``reset(_:)`` for an observation that started with `startingWith: .marker`: the store changed in a
    /// way no change set describes, and no state was read (a view of a large store re-reads the pages it
    /// shows). Observations that start with the state never get it.
    case invalidated
}

/// What ``ListStore/observe(includingOtherConnections:pollInterval:startingWith:)`` gives first.
public enum ObservationStart: Sendable, Hashable {
    /// The whole state, read atomically with the start: ``ListUpdate/initial(_:)``. Right for a mirror.
    case state
    /// Only ``ListUpdate/started``: for a view that reads pages of a large store itself and re-reads them
    /// on every update, so that starting to observe reads nothing. Such an observation's resets are
    /// ``ListUpdate/invalidated``, which read nothing either.
    case marker
}
