/// The three calls to an undo manager that ``ListStore/registerUndo(with:onFailure:)`` makes. Foundation's
/// `UndoManager` conforms on Apple platforms; any other undo stack (a test's stand-in, an app's own) may.
///
/// A conforming manager must do what `UndoManager` does with a registration: while it undoes (runs an
/// undo action), an action registered goes on its redo stack; while it redoes, on its undo stack; at any
/// other time, on its undo stack, clearing its redo stack.
@MainActor
public protocol UndoRegistering: AnyObject {
    /// Registers `action` as what the manager's next undo performs (or, registered while it undoes, its
    /// next redo), for `target`, which ``removeAllActions(withTarget:)`` names. The manager keeps
    /// `action` until it performs or removes it; `action` keeps `target` alive.
    func registerUndoAction(withTarget target: AnyObject, _ action: @escaping @MainActor @Sendable () -> Void)

    /// Names the action registered last, for the Undo and Redo menu items ("Undo Delete 2 Rows").
    func setActionName(_ actionName: String)

    /// Removes every action registered for `target` from the manager's undo and redo stacks.
    func removeAllActions(withTarget target: Any)
}

// UndoManager is Foundation's on Apple platforms only (swift-corelibs-foundation on Linux has none).
#if canImport(ObjectiveC)
    import Foundation

    /// Foundation's undo manager: its own `setActionName(_:)` and `removeAllActions(withTarget:)` are the
    /// protocol's, and ``registerUndoAction(withTarget:_:)`` is its `registerUndo(withTarget:handler:)`.
    extension UndoManager: UndoRegistering {
        /// Registers `action` with `registerUndo(withTarget:handler:)`, which keeps `target` unretained:
        /// `action` keeps it alive. The handler runs on the main thread, where `UndoManager` runs its
        /// actions (SDKs declare it `@MainActor`, `@Sendable` or neither; this compiles with each).
        @MainActor
        public func registerUndoAction(withTarget target: AnyObject, _ action: @escaping @MainActor @Sendable () -> Void) {
            registerUndo(withTarget: target) { _ in MainActor.assumeIsolated { action() } }
        }
    }
#endif
