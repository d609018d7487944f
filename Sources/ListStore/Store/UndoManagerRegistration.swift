extension ListStore {
    /// Registers this store's ``author``'s last transaction with `manager` (an `UndoManager`, on Apple
    /// platforms) as the action the Edit menu's Undo performs, titled with its action name in the file's
    /// history: call it on the main actor after each edit your app makes through the store. Registers
    /// nothing when there is nothing to undo.
    ///
    /// Choosing Undo runs ``undoInBackground(by:isolation:)`` — the main actor never waits for the write
    /// lock — and registers the redo at once, with the same name (a manager puts what is registered while
    /// it undoes on its redo stack, and only then); choosing Redo runs ``redoInBackground(by:isolation:)`` and
    /// registers the undo, and so on, back and forth, so the menu and the file's durable history agree.
    /// Choices made before the last one finished run after it, in order. An undo or redo the store refuses
    /// (a ``ListStoreError/Family/refused`` error (undo refused)) changes nothing: the opposite registered
    /// for it is removed again, and the error goes to `onFailure` (as does a failure to read the history).
    ///
    /// The manager's stack lives in memory, for this run of the app; the history in the file survives it
    /// (call ``ListStore/undo(by:)`` directly after a relaunch, or register again).
    @MainActor
    public func registerUndo(with manager: any UndoRegistering, onFailure: (@MainActor (any Error) -> Void)? = nil) {
        do {
            guard let entry = try nextUndo() else { return }
            UndoRegistration(store: self, manager: manager, onFailure: onFailure).register(redo: false, actionName: entry.actionName)
        } catch {
            onFailure?(error)
        }
    }
}

/// One registered edit, undone and redone back and forth from a manager's menu: the target its actions
/// are registered for, so that a refused one's opposite can be removed again.
@MainActor
private final class UndoRegistration {
    let store: ListStore
    weak var manager: (any UndoRegistering)?
    let onFailure: (@MainActor (any Error) -> Void)?

    init(store: ListStore, manager: any UndoRegistering, onFailure: (@MainActor (any Error) -> Void)?) {
        self.store = store
        self.manager = manager
        self.onFailure = onFailure
    }

    /// Registers the undo (or redo) with the manager, named as in the file's history.
    func register(redo: Bool, actionName: String?) {
        guard let manager else { return }
        manager.registerUndoAction(withTarget: self) { [self] in perform(redo: redo, actionName: actionName) }
        if let actionName { manager.setActionName(actionName) }
    }

    /// Undo (or redo) chosen from the menu. The opposite is registered now, while the manager undoes (or
    /// redoes), the only time it lands on the other stack; the store's undo runs in the background.
    private func perform(redo: Bool, actionName: String?) {
        register(redo: !redo, actionName: actionName)
        let store = store
        Task {
            do {
                if redo { try await store.redoInBackground() } else { try await store.undoInBackground() }
            } catch {
                manager?.removeAllActions(withTarget: self)
                onFailure?(error)
            }
        }
    }
}
