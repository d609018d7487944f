/// One element of ``ListStore/observe(includingOtherConnections:pollInterval:)``: a state observation,
/// which always has a state to draw.
public enum ListUpdate: Sendable, Hashable {
    /// The state the observation starts from: always the first element, exactly once.
    case initial(ListSnapshot)
    /// What one commit changed — or several commits by other connections noticed in one poll — in
    /// commit order, with values. Applied to the state so far (``ListSnapshot/apply(_:)``), it gives
    /// the store's state after the commit.
    case changes(ChangeSet)
    /// A new state to start again from: the store changed in a way no change set describes (edits made
    /// outside ListStore that insert, delete or move rows or sections, or more commits than the change
    /// log keeps), or the observer asked for one with ``ListObservation/resynchronize()``. A table view
    /// reloads its data; later change sets apply to this state.
    case reset(ListSnapshot)
}

/// One element of ``ListStore/observeWithoutSnapshots(includingOtherConnections:pollInterval:)``: a marker
/// observation, which reads nothing for itself — for views of large stores that read their own pages.
public enum ListChangeEvent: Sendable, Hashable {
    /// Always the first element, exactly once: observation has started, and no state was read. Every
    /// commit after this element's position arrives; read what you show after receiving it, and apply
    /// updates by id, since a commit made between the two may arrive although your read already shows it.
    case started
    /// What one commit changed (or several commits by other connections noticed in one poll), in commit order.
    case changes(ChangeSet)
    /// The store changed in a way no change set describes (or the observer asked to resynchronise): no
    /// state was read; re-read the pages you show.
    case invalidated
}
