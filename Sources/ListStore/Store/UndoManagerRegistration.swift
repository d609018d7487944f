// UndoManager is Foundation's on Apple platforms only (swift-corelibs-foundation on Linux has none), and
// the registration below uses its Objective-C selector form: compiled where the Objective-C runtime is.
#if canImport(ObjectiveC)
    import Foundation

    extension ListStore {
        /// Registers this store's ``author``'s last transaction with `undoManager`, as the action the Edit
        /// menu's Undo performs (titled with its action name): call it on the main actor after each edit your
        /// app makes through the store. Undo then calls ``undo()``, and registers ``redo()`` as the redo
        /// action (and so on, back and forth), so the menu and the file's durable history agree. An undo or
        /// redo the store refuses (``ListStoreError/undoRefused(action:entry:redo:reason:)``) changes nothing
        /// and is handed to `onFailure`; the menu item is then gone.
        ///
        /// UndoManager's stack lives in memory, for this run of the app; the history in the file survives it
        /// (call ``undo()`` directly after a relaunch, or register again).
        @MainActor
        public func registerUndo(with undoManager: UndoManager, onFailure: (@MainActor (any Error) -> Void)? = nil) {
            UndoRegistration(store: self, manager: undoManager, onFailure: onFailure).register(redo: false)
        }
    }

    /// One registered undo or redo: the target and object of UndoManager's selector-based registration
    /// (which retains the object, not the target — here the same instance).
    @MainActor
    private final class UndoRegistration: NSObject {
        let store: ListStore
        weak var manager: UndoManager?
        let onFailure: (@MainActor (any Error) -> Void)?
        private var redo = false

        init(store: ListStore, manager: UndoManager, onFailure: (@MainActor (any Error) -> Void)?) {
            self.store = store
            self.manager = manager
            self.onFailure = onFailure
        }

        /// Registers ``perform(_:)`` with the manager, titled with what it would take back.
        func register(redo: Bool) {
            guard let manager else { return }
            self.redo = redo
            let name = (try? store.nextUndo(redo: redo))?.actionName
            manager.registerUndo(withTarget: self, selector: #selector(perform(_:)), object: self)
            if let name { manager.setActionName(name) }
        }

        /// Undo (or redo) chosen from the menu: the store takes it back, and the opposite is registered
        /// (UndoManager records a registration made while it undoes as the redo).
        @objc func perform(_ object: Any?) {
            do {
                if redo { try store.redo() } else { try store.undo() }
                guard let manager else { return }
                UndoRegistration(store: store, manager: manager, onFailure: onFailure).register(redo: !redo)
            } catch {
                onFailure?(error)
            }
        }
    }
#endif
