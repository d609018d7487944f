import ListStore
import StoreShorthands

/// An undo manager that does with registrations what Foundation's `UndoManager` does (which Linux's
/// Foundation lacks): while it undoes, a registration goes on the redo stack; while it redoes, on the undo
/// stack; at any other time, on the undo stack, clearing the redo stack. `setActionName` names the action
/// registered last; `undo()` and `redo()` pop and perform the top action, as the Edit menu's items do.
@MainActor
final class StandInUndoManager: UndoRegistering {
    struct Action {
        let target: AnyObject
        let perform: @MainActor @Sendable () -> Void
        var name = ""
    }

    private(set) var undoStack: [Action] = []
    private(set) var redoStack: [Action] = []
    private var isUndoing = false
    private var isRedoing = false
    private var lastRegisteredOnRedoStack = false

    func registerUndoAction(withTarget target: AnyObject, _ action: @escaping @MainActor @Sendable () -> Void) {
        let registered = Action(target: target, perform: action)
        if isUndoing {
            redoStack.append(registered)
        } else {
            if !isRedoing { redoStack.removeAll() }
            undoStack.append(registered)
        }
        lastRegisteredOnRedoStack = isUndoing
    }

    func setActionName(_ actionName: String) {
        if lastRegisteredOnRedoStack, !redoStack.isEmpty {
            redoStack[redoStack.count - 1].name = actionName
        } else if !lastRegisteredOnRedoStack, !undoStack.isEmpty {
            undoStack[undoStack.count - 1].name = actionName
        }
    }

    func removeAllActions(withTarget target: Any) {
        let target = target as AnyObject
        undoStack.removeAll { $0.target === target }
        redoStack.removeAll { $0.target === target }
    }

    var canUndo: Bool { !undoStack.isEmpty }
    var canRedo: Bool { !redoStack.isEmpty }
    /// The Undo item's action name, nil when there is no Undo item.
    var undoActionName: String? { undoStack.last?.name }
    /// The Redo item's action name, nil when there is no Redo item.
    var redoActionName: String? { redoStack.last?.name }

    /// The Edit menu's Undo.
    func undo() {
        guard let action = undoStack.popLast() else { return }
        isUndoing = true
        defer { isUndoing = false }
        action.perform()
    }

    /// The Edit menu's Redo.
    func redo() {
        guard let action = redoStack.popLast() else { return }
        isRedoing = true
        defer { isRedoing = false }
        action.perform()
    }
}
